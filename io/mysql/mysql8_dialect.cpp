// SQL text of the MySQL 8.0.22+/8.4/9.x dialect: the one-SELECT probe and the admin statements.
#include "io/mysql/mysql8_dialect.hpp"

#include <algorithm>

#include "io/mysql/lock_holders_sql.hpp"

namespace br::mysql {

std::string_view to_string(thread_state s) {
  switch (s) {
    case thread_state::off:
      return "OFF";
    case thread_state::on:
      return "ON";
    case thread_state::connecting:
      return "CONNECTING";
    case thread_state::unknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

const mysql8_dialect& mysql8() {
  static const mysql8_dialect instance;
  return instance;
}

// One statement, one round trip: server variables joined with the channel's rows of the
// performance_schema replication tables (LEFT JOINs, so a server without the channel still
// answers exactly one row).
//
// seconds_behind_source is computed here rather than read from SHOW REPLICA STATUS (which would
// be a second statement): NULL unless both the receiver and the applier are ON (as SHOW REPLICA
// STATUS does); otherwise the age of the oldest transaction a worker or the coordinator is
// applying right now, measured from its ORIGINAL commit timestamp on the origin server (so it is
// lag behind the origin, and includes clock skew between hosts); 0 when the applier is idle.
//
// The last SQL error prefers a worker's error (the real cause) over the coordinator's summary.
//
// Uptime, the start instant on the server's own clock (so a restart shows as a moved instant
// whatever the reader's clock; review V4), and the semi-synchronous replication plugins' variables
// and status (docs/safety.md
// "Semi-synchronous replication"): read from performance_schema, so a server without the plugins
// answers NULLs instead of failing on an unknown @@variable.
namespace {

// {ch} stands for the quoted channel name.
constexpr std::string_view kProbeTemplate = R"sql(SELECT
  @@global.read_only AS read_only, @@global.super_read_only AS super_read_only,
  @@global.gtid_executed AS gtid_executed, @@global.server_uuid AS server_uuid,
  @@global.server_id AS server_id, @@global.version AS version,
  (cc.CHANNEL_NAME IS NOT NULL) AS channel_configured,
  cc.HOST AS source_host, cc.PORT AS source_port,
  cs.SERVICE_STATE AS io_state, cs.RECEIVED_TRANSACTION_SET AS received_set,
  cs.SOURCE_UUID AS source_uuid,
  cs.LAST_ERROR_NUMBER AS last_io_errno, cs.LAST_ERROR_MESSAGE AS last_io_error,
  ap.SERVICE_STATE AS sql_state, se.n AS last_sql_errno, se.m AS last_sql_error,
  CASE WHEN cs.SERVICE_STATE = 'ON' AND ap.SERVICE_STATE = 'ON' THEN COALESCE((
    SELECT GREATEST(0, MAX(TIMESTAMPDIFF(MICROSECOND, a.t, NOW(6)))) / 1000000 FROM (
      SELECT w.APPLYING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP AS t
        FROM performance_schema.replication_applier_status_by_worker w
        WHERE w.CHANNEL_NAME = {ch} AND w.APPLYING_TRANSACTION <> ''
      UNION ALL
      SELECT c.PROCESSING_TRANSACTION_ORIGINAL_COMMIT_TIMESTAMP
        FROM performance_schema.replication_applier_status_by_coordinator c
        WHERE c.CHANNEL_NAME = {ch} AND c.PROCESSING_TRANSACTION <> '') AS a), 0)
  END AS seconds_behind_source,
  st.uptime AS uptime, CAST(UNIX_TIMESTAMP() AS SIGNED) - CAST(st.uptime AS SIGNED) AS started_at,
  st.ss_source_status AS ss_source_status, st.ss_clients AS ss_clients,
  st.ss_replica_status AS ss_replica_status, sv.ss_source_enabled AS ss_source_enabled,
  sv.ss_wait_point AS ss_wait_point, sv.ss_wait_count AS ss_wait_count,
  sv.ss_timeout AS ss_timeout, sv.ss_wait_no_replica AS ss_wait_no_replica,
  sv.ss_replica_enabled AS ss_replica_enabled, st.ss_no_tx AS ss_no_tx,
  st.ss_wait_sessions AS ss_wait_sessions
FROM (SELECT 1 AS one) AS probe
LEFT JOIN (
  SELECT MAX(CASE WHEN VARIABLE_NAME = 'Uptime' THEN VARIABLE_VALUE END) AS uptime,
    MAX(CASE WHEN VARIABLE_NAME = 'Rpl_semi_sync_source_status' THEN VARIABLE_VALUE END)
      AS ss_source_status,
    MAX(CASE WHEN VARIABLE_NAME = 'Rpl_semi_sync_source_clients' THEN VARIABLE_VALUE END)
      AS ss_clients,
    MAX(CASE WHEN VARIABLE_NAME = 'Rpl_semi_sync_replica_status' THEN VARIABLE_VALUE END)
      AS ss_replica_status,
    MAX(CASE WHEN VARIABLE_NAME = 'Rpl_semi_sync_source_no_tx' THEN VARIABLE_VALUE END)
      AS ss_no_tx,
    MAX(CASE WHEN VARIABLE_NAME = 'Rpl_semi_sync_source_wait_sessions' THEN VARIABLE_VALUE END)
      AS ss_wait_sessions
  FROM performance_schema.global_status
  WHERE VARIABLE_NAME IN ('Uptime', 'Rpl_semi_sync_source_status',
    'Rpl_semi_sync_source_clients', 'Rpl_semi_sync_replica_status',
    'Rpl_semi_sync_source_no_tx', 'Rpl_semi_sync_source_wait_sessions')) AS st ON TRUE
LEFT JOIN (
  SELECT MAX(CASE WHEN VARIABLE_NAME = 'rpl_semi_sync_source_enabled' THEN VARIABLE_VALUE END)
      AS ss_source_enabled,
    MAX(CASE WHEN VARIABLE_NAME = 'rpl_semi_sync_source_wait_point' THEN VARIABLE_VALUE END)
      AS ss_wait_point,
    MAX(CASE WHEN VARIABLE_NAME = 'rpl_semi_sync_source_wait_for_replica_count'
      THEN VARIABLE_VALUE END) AS ss_wait_count,
    MAX(CASE WHEN VARIABLE_NAME = 'rpl_semi_sync_source_timeout' THEN VARIABLE_VALUE END)
      AS ss_timeout,
    MAX(CASE WHEN VARIABLE_NAME = 'rpl_semi_sync_source_wait_no_replica' THEN VARIABLE_VALUE END)
      AS ss_wait_no_replica,
    MAX(CASE WHEN VARIABLE_NAME = 'rpl_semi_sync_replica_enabled' THEN VARIABLE_VALUE END)
      AS ss_replica_enabled
  FROM performance_schema.global_variables
  WHERE VARIABLE_NAME IN ('rpl_semi_sync_source_enabled', 'rpl_semi_sync_source_wait_point',
    'rpl_semi_sync_source_wait_for_replica_count', 'rpl_semi_sync_source_timeout',
    'rpl_semi_sync_source_wait_no_replica', 'rpl_semi_sync_replica_enabled')) AS sv ON TRUE
LEFT JOIN performance_schema.replication_connection_configuration cc ON cc.CHANNEL_NAME = {ch}
LEFT JOIN performance_schema.replication_connection_status cs ON cs.CHANNEL_NAME = {ch}
LEFT JOIN performance_schema.replication_applier_status ap ON ap.CHANNEL_NAME = {ch}
LEFT JOIN (
  SELECT e.n, e.m FROM (
    SELECT LAST_ERROR_NUMBER AS n, LAST_ERROR_MESSAGE AS m, LAST_ERROR_TIMESTAMP AS t, 0 AS pri
      FROM performance_schema.replication_applier_status_by_worker
      WHERE CHANNEL_NAME = {ch} AND LAST_ERROR_NUMBER <> 0
    UNION ALL
    SELECT LAST_ERROR_NUMBER, LAST_ERROR_MESSAGE, LAST_ERROR_TIMESTAMP, 1
      FROM performance_schema.replication_applier_status_by_coordinator
      WHERE CHANNEL_NAME = {ch} AND LAST_ERROR_NUMBER <> 0) AS e
  ORDER BY e.pri, e.t DESC LIMIT 1) AS se ON TRUE)sql";

std::string replace_all(std::string_view text, std::string_view needle, const std::string& with) {
  std::string out;
  size_t from = 0;
  for (size_t at = text.find(needle); at != std::string_view::npos; at = text.find(needle, from)) {
    out.append(text.substr(from, at - from));
    out += with;
    from = at + needle.size();
  }
  out.append(text.substr(from));
  return out;
}

}  // namespace

std::vector<std::string> mysql8_dialect::probe_statements(std::string_view channel,
                                                          const sql_quoter& q) const {
  return {replace_all(kProbeTemplate, "{ch}", q(channel))};
}

const status_columns& mysql8_dialect::probe_columns() const {
  static const status_columns cols{
      "read_only",      "super_read_only",       "gtid_executed", "server_uuid",   "server_id",
      "version",        "channel_configured",    "io_state",      "sql_state",     "source_host",
      "source_port",    "seconds_behind_source", "last_io_errno", "last_io_error", "last_sql_errno",
      "last_sql_error", "received_set",   "uptime",  "started_at", "ss_source_enabled", "ss_source_status",
      "ss_wait_point",  "ss_wait_count",         "ss_timeout",    "ss_wait_no_replica", "ss_clients",
      "ss_replica_enabled", "ss_replica_status", "source_uuid", "ss_no_tx", "ss_wait_sessions"};
  return cols;
}

thread_state mysql8_dialect::parse_thread_state(const std::optional<std::string>& value) const {
  if (!value) return thread_state::off;  // channel row absent: nothing runs
  if (*value == "ON") return thread_state::on;
  if (*value == "OFF") return thread_state::off;
  if (*value == "CONNECTING") return thread_state::connecting;
  return thread_state::unknown;
}

std::string mysql8_dialect::fence_sql() const {
  return "SET GLOBAL super_read_only = ON";
}

std::vector<std::string> mysql8_dialect::promote_sql() const {
  // offline_mode: a semi-sync fence that did not complete leaves it ON (fence_semisync.cpp).
  return {"SET GLOBAL super_read_only = OFF", "SET GLOBAL read_only = OFF",
          "SET GLOBAL offline_mode = OFF"};
}

// performance_schema.threads does not take the global thread-list lock that
// information_schema.processlist (legacy implementation) does. On MySQL 9.7 SELECT on the table
// shows every account's sessions (integration_accounts); PROCESS is not needed for it.
std::string mysql8_dialect::list_sessions_sql() const {
  return "SELECT PROCESSLIST_ID AS id, PROCESSLIST_USER AS user, PROCESSLIST_HOST AS host,"
         " PROCESSLIST_COMMAND AS command FROM performance_schema.threads"
         " WHERE PROCESSLIST_ID IS NOT NULL AND TYPE = 'FOREGROUND'"
         " AND PROCESSLIST_ID <> CONNECTION_ID()";
}

const session_columns& mysql8_dialect::list_sessions_columns() const {
  static const session_columns cols{"id", "user", "host", "command"};
  return cols;
}

std::string mysql8_dialect::kill_sql(uint64_t connection_id) const {
  return "KILL CONNECTION " + std::to_string(connection_id);
}

// DISTINCT: a session in LOCK TABLES holds both locks and would be listed twice.
std::string mysql8_dialect::list_lock_holders_sql() const {
  return "SELECT DISTINCT t.PROCESSLIST_ID AS id, t.PROCESSLIST_USER AS user,"
         " t.PROCESSLIST_HOST AS host, t.PROCESSLIST_COMMAND AS command" +
         std::string(lock_holders_from_where);
}

std::string mysql8_dialect::set_lock_wait_timeout_sql(std::chrono::seconds timeout) const {
  return "SET SESSION lock_wait_timeout = " +
         std::to_string(std::max<long long>(1, timeout.count()));
}

std::string mysql8_dialect::reset_lock_wait_timeout_sql() const {
  return "SET SESSION lock_wait_timeout = DEFAULT";
}

std::string mysql8_dialect::disable_session_binlog_sql() const {
  return "SET SESSION sql_log_bin = 0";
}

std::string mysql8_dialect::gtid_executed_sql() const {
  return "SELECT @@global.gtid_executed AS gtid_executed";
}

std::string mysql8_dialect::wait_for_executed_sql(const gtid_set& set, std::chrono::seconds timeout,
                                                  const sql_quoter& q) const {
  return "SELECT WAIT_FOR_EXECUTED_GTID_SET(" + q(set.to_compact_string()) + ", " +
         std::to_string(timeout.count()) + ") AS timed_out";
}

namespace {
const char* thread_clause(replica_threads which) {
  switch (which) {
    case replica_threads::both:
      return "";
    case replica_threads::io_thread:
      return " IO_THREAD";
    case replica_threads::sql_thread:
      return " SQL_THREAD";
  }
  return "";
}
}  // namespace

std::string mysql8_dialect::stop_replica_sql(std::string_view channel, replica_threads which,
                                             const sql_quoter& q) const {
  return std::string("STOP REPLICA") + thread_clause(which) + " FOR CHANNEL " + q(channel);
}

std::string mysql8_dialect::start_replica_sql(std::string_view channel, replica_threads which,
                                              const sql_quoter& q) const {
  return std::string("START REPLICA") + thread_clause(which) + " FOR CHANNEL " + q(channel);
}

std::string mysql8_dialect::reset_replica_all_sql(std::string_view channel,
                                                  const sql_quoter& q) const {
  return "RESET REPLICA ALL FOR CHANNEL " + q(channel);
}

std::string mysql8_dialect::change_source_sql(const replication_source& src,
                                              std::string_view channel, const sql_quoter& q) const {
  return "CHANGE REPLICATION SOURCE TO SOURCE_HOST = " + q(src.host) +
         ", SOURCE_PORT = " + std::to_string(src.port) + ", SOURCE_USER = " + q(src.user) +
         ", SOURCE_PASSWORD = " + q(src.password) + ", SOURCE_AUTO_POSITION = 1" +
         (src.ssl_ca.empty()
              ? std::string(", SOURCE_SSL = ") + (src.ssl ? "1" : "0") +
                    ", GET_SOURCE_PUBLIC_KEY = " + (src.get_public_key ? "1" : "0")
              : ", SOURCE_SSL = 1, SOURCE_SSL_CA = " + q(src.ssl_ca) +
                    ", SOURCE_SSL_VERIFY_SERVER_CERT = 1, GET_SOURCE_PUBLIC_KEY = 0") +
         ", SOURCE_CONNECT_RETRY = " + std::to_string(src.connect_retry.count()) +
         ", SOURCE_RETRY_COUNT = " + std::to_string(src.retry_count) + " FOR CHANNEL " + q(channel);
}

std::string mysql8_dialect::set_clone_donor_list_sql(const clone_donor& donor,
                                                     const sql_quoter& q) const {
  return "SET GLOBAL clone_valid_donor_list = " + q(donor.host + ":" + std::to_string(donor.port));
}

std::string mysql8_dialect::clone_sql(const clone_donor& donor, const sql_quoter& q) const {
  return "CLONE INSTANCE FROM " + q(donor.user) + "@" + q(donor.host) + ":" +
         std::to_string(donor.port) + " IDENTIFIED BY " + q(donor.password) +
         (donor.ssl_ca.empty() ? "" : " REQUIRE SSL");
}

std::string mysql8_dialect::set_clone_ssl_ca_sql(const clone_donor& donor,
                                                 const sql_quoter& q) const {
  return "SET GLOBAL clone_ssl_ca = " + q(donor.ssl_ca);
}

std::string mysql8_dialect::clone_status_sql() const {
  return "SELECT STATE AS state, ERROR_NO AS error_no, ERROR_MESSAGE AS error_message,"
         " BEGIN_TIME AS begin_time FROM performance_schema.clone_status ORDER BY ID DESC LIMIT 1";
}

// CLONE INSTANCE is refused under super_read_only (ERROR 1290) but not under read_only for an
// account holding CONNECTION_ADMIN (the operator's): lift super_read_only only, so the recipient
// stays fenced to applications (read_only=ON) while it is cloned (issue 19).
std::vector<std::string> mysql8_dialect::unfence_for_clone_sql() const {
  return {"SET GLOBAL super_read_only = OFF"};
}

}  // namespace br::mysql
