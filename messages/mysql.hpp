// Messages to the MySQL I/O workers: one command type in, one outcome type out (easy to mock).
#pragma once

#include <caf/actor_clock.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/timespan.hpp>

#include <cstdint>
#include <string>

#include "messages/gr.hpp"

namespace br {

/// Where and as whom to connect. The password is deliberately NOT part of inspect(), so it never
/// appears in to_string()/logs; local CAF messages carry the whole struct by value.
struct mysql_target {
  std::string site;
  std::string host = "127.0.0.1";
  uint16_t port = 3306;
  std::string user;
  std::string password;
  /// spec.tls (issue 26): sessions are TLS verified against tls_ca_file (chain and host name),
  /// with the optional client certificate and key; with an empty tls_ca_file the connect fails,
  /// never plain text. false = the connection as before.
  // `{}`: positional brace-initialisers that stop at password stay warning-free.
  bool tls_verify{};
  std::string tls_ca_file{};
  std::string tls_cert_file{};
  std::string tls_key_file{};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, mysql_target& x) {
  return f(caf::meta::type_name("mysql_target"), x.site, x.host, x.port, x.user);
}

enum class mysql_op : uint8_t {
  probe,              ///< one-round-trip probe -> outcome.probe
  fence,              ///< SET GLOBAL super_read_only=ON
  kill_sessions,      ///< kill application sessions -> value = count
  promote,            ///< super_read_only=OFF, read_only=OFF
  read_gtid,          ///< value = gtid_executed (server format)
  wait_executed,      ///< WAIT_FOR_EXECUTED_GTID_SET(gtid, timeout) -> value "reached"|"timed_out"
  stop_replica,
  reset_replica_all,
  change_source,      ///< CHANGE REPLICATION SOURCE TO source (auto-position, ssl per source_ssl)
  start_replica,
  clone,              ///< CLONE INSTANCE FROM source into target, deadline = timeout
  /// Dead man's switch (docs/safety.md rule 7), all with sql_log_bin=0 and `lease`:
  heartbeat,          ///< refresh the heartbeat row (value "refreshed"|"fenced"); creates the
                      ///< switch first when its table is missing
  ensure_switch,      ///< create/repair table, row and event; value = arming ("armed", ...)
  promote_switch,     ///< promote through the switch (retries); value = arming after it
  read_purged,        ///< value = gtid_purged (server format)
  show_grants,        ///< SHOW GRANTS of the target's own account; value = the lines, '\n'-joined
  read_clone_state,   ///< value = STATE of the latest performance_schema.clone_status row, or ""
  /// value = up to 5 InnoDB tables outside the system schemas and the operator's own, comma
  /// separated ("" = none); information_schema.INNODB_TABLES, so PROCESS suffices
  read_user_tables,
  /// Group Replication (issue 22; io/mysql/group_replication.hpp):
  gr_probe,        ///< probe plus the member's gr_snapshot -> outcome.probe (probe.gr filled)
  gr_bootstrap,    ///< settings `gr`, bootstrap_group ON, START, OFF -> value = own state
  gr_start,        ///< settings `gr`, START (recovery account = `source`) -> value = own state
  gr_stop,         ///< STOP GROUP_REPLICATION
  gr_set_primary,  ///< group_replication_set_as_primary(`member_id`, timeout in seconds)
  /// Guarded quorum recovery (issue 23): SET group_replication_force_members to
  /// `gr.local_address`, wait for a majority view, then reset it to ''; with an empty address
  /// only the reset (an interrupted recovery's clean-up) -> value = own state
  gr_force_members,
  /// Semi-synchronous replication (issue 25; io/mysql/semisync.hpp):
  stop_io_thread,    ///< STOP REPLICA IO_THREAD when a receiver runs, then probe -> outcome.probe
  semisync_source,   ///< the source side ON with wait_for_replica_count = `semisync_k`
  semisync_replica,  ///< the source side OFF, the receiver side ON
};


struct mysql_command {
  mysql_op op = mysql_op::probe;
  mysql_target target;
  caf::timespan timeout{std::chrono::seconds(5)};  ///< hard deadline of the whole operation
  std::string gtid;                                ///< wait_executed
  mysql_target source;                             ///< change_source (replication user) / clone
  bool source_ssl = true;
  /// change_source with spec.tls: the CA as the replica's mysqld sees it (SOURCE_SSL_CA, the
  /// source's certificate verified); "" = source_ssl without verification.
  std::string source_ssl_ca;
  caf::timespan lease{std::chrono::seconds(20)};  ///< heartbeat/ensure_switch/promote_switch
  /// promote_switch: refuse (error_kind "switch_not_armed", server untouched) unless the switch
  /// is armed after ensure_switch; policy Safe promotes only onto an armed server.
  bool require_armed = false;
  /// When the caller stops waiting for the answer, on the actor clock (the sender's
  /// `self->clock().now()` plus its request timeout). A command still waiting behind its target
  /// at that time is dropped unexecuted (error_kind "abandoned"); one started before it runs to
  /// its end. time_point{} = arrival at site_io + timeout + 1 s.
  caf::actor_clock::time_point deadline{};
  /// The leadership generation the command was decided under (docs/safety.md S8). site_io refuses
  /// a command below its floor (error_kind "stale_generation"); the floor rises when leadership
  /// ends. 0 = decided without leader election (standalone mode).
  uint64_t leader_generation = 0;
  gr_settings gr;         ///< gr_bootstrap / gr_start
  std::string member_id;  ///< gr_set_primary: the new primary's MEMBER_ID
  uint32_t semisync_k = 0;  ///< semisync_source: rpl_semi_sync_source_wait_for_replica_count
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, mysql_command& x) {
  return f(caf::meta::type_name("mysql_command"), x.op, x.target, x.timeout, x.gtid, x.source,
           x.source_ssl, x.lease, x.require_armed, x.deadline, x.leader_generation, x.gr,
           x.member_id, x.semisync_k, x.source_ssl_ca);
}

/// The rpl_semi_sync_source_timeout the operator sets and requires (milliseconds, about 49.7
/// days; MySQL 9.7 accepts up to 2^64 - 1): "never falls back to asynchronous" (a waiting commit
/// answered by a timeout after a failover would be an acknowledged write the new primary lacks).
constexpr uint64_t semisync_timeout_max_ms = 4294967295ULL;

/// Wire form of io/mysql's probe_result (plain strings so it is cheap to copy and to mock).
/// The semi-synchronous replication plugins of a server (all false/0: not loaded).
struct site_semisync {
  bool source_loaded = false;
  bool source_enabled = false;
  bool source_on = false;        ///< waiting for acknowledgements now (not fallen back)
  std::string wait_point;        ///< "AFTER_SYNC" | "AFTER_COMMIT"
  uint32_t wait_count = 0;       ///< rpl_semi_sync_source_wait_for_replica_count
  uint64_t timeout_ms = 0;       ///< rpl_semi_sync_source_timeout
  bool wait_no_replica = false;
  uint32_t clients = 0;          ///< semi-sync receivers connected
  bool replica_loaded = false;
  bool replica_enabled = false;
  bool replica_on = false;
  uint64_t no_tx = 0;            ///< Rpl_semi_sync_source_no_tx (unacknowledged commits since start)
  uint32_t wait_sessions = 0;    ///< Rpl_semi_sync_source_wait_sessions (commits waiting now)
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, site_semisync& x) {
  return f(caf::meta::type_name("site_semisync"), x.source_loaded, x.source_enabled, x.source_on,
           x.wait_point, x.wait_count, x.timeout_ms, x.wait_no_replica, x.clients,
           x.replica_loaded, x.replica_enabled, x.replica_on, x.no_tx, x.wait_sessions);
}

struct site_probe {
  bool read_only = false;
  bool super_read_only = false;
  std::string gtid_executed;  ///< server format
  std::string server_uuid;
  uint32_t server_id = 0;
  std::string version;
  bool channel_configured = false;
  std::string io_state;   ///< "ON" | "OFF" | "CONNECTING"
  std::string sql_state;  ///< "ON" | "OFF"
  std::string source_host;
  uint16_t source_port = 0;
  std::string source_uuid;  ///< the source's server_uuid as the receiver saw it
  double seconds_behind = -1;  ///< -1 = NULL
  uint32_t last_io_errno = 0;
  std::string last_io_error;
  uint32_t last_sql_errno = 0;
  std::string last_sql_error;
  int64_t latency_us = 0;
  /// RECEIVED_TRANSACTION_SET of the replica channel (server format; "" without a channel): what
  /// the relay log holds, the target of the failover executor's relay drain.
  std::string received_gtid;
  /// gr_probe only: the member's view of its group (member_id "" = not read).
  gr_snapshot gr;
  uint64_t uptime_s = 0;  ///< seconds since mysqld started (restart detection)
  int64_t started_at = 0;  ///< the server's start instant on its own clock (unix seconds)
  site_semisync semisync;
  bool writable() const { return !read_only && !super_read_only; }
  bool replicating() const { return channel_configured && io_state == "ON" && sql_state == "ON"; }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, site_probe& x) {
  return f(caf::meta::type_name("site_probe"), x.read_only, x.super_read_only, x.gtid_executed,
           x.server_uuid, x.server_id, x.version, x.channel_configured, x.io_state, x.sql_state,
           x.source_host, x.source_port, x.seconds_behind, x.last_io_errno, x.last_io_error,
           x.last_sql_errno, x.last_sql_error, x.latency_us, x.received_gtid, x.gr, x.uptime_s,
           x.started_at, x.semisync, x.source_uuid);
}

/// Result of one mysql_command. `error_kind` mirrors io/mysql's classification
/// ("refused" | "timeout" | "lost_connection" | "auth" | "server_error" | "other"), or says why
/// site_io did not run the command at all: "abandoned" (its deadline passed while it waited),
/// "overload" (too many commands already wait for its target), "stale_generation" (decided
/// under a leadership that has ended). None of these three touched the server.
struct mysql_outcome {
  bool ok = false;
  std::string error_kind;
  std::string error;
  uint32_t error_code = 0;
  std::string value;
  site_probe probe;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, mysql_outcome& x) {
  return f(caf::meta::type_name("mysql_outcome"), x.ok, x.error_kind, x.error, x.error_code,
           x.value, x.probe);
}

inline std::string to_string(mysql_op op) {
  switch (op) {
    case mysql_op::probe: return "probe";
    case mysql_op::fence: return "fence";
    case mysql_op::kill_sessions: return "kill_sessions";
    case mysql_op::promote: return "promote";
    case mysql_op::read_gtid: return "read_gtid";
    case mysql_op::wait_executed: return "wait_executed";
    case mysql_op::stop_replica: return "stop_replica";
    case mysql_op::reset_replica_all: return "reset_replica_all";
    case mysql_op::change_source: return "change_source";
    case mysql_op::start_replica: return "start_replica";
    case mysql_op::clone: return "clone";
    case mysql_op::heartbeat: return "heartbeat";
    case mysql_op::ensure_switch: return "ensure_switch";
    case mysql_op::promote_switch: return "promote_switch";
    case mysql_op::read_purged: return "read_purged";
    case mysql_op::show_grants: return "show_grants";
    case mysql_op::read_clone_state: return "read_clone_state";
    case mysql_op::read_user_tables: return "read_user_tables";
    case mysql_op::gr_probe: return "gr_probe";
    case mysql_op::gr_bootstrap: return "gr_bootstrap";
    case mysql_op::gr_start: return "gr_start";
    case mysql_op::gr_stop: return "gr_stop";
    case mysql_op::gr_set_primary: return "gr_set_primary";
    case mysql_op::gr_force_members: return "gr_force_members";
    case mysql_op::stop_io_thread: return "stop_io_thread";
    case mysql_op::semisync_source: return "semisync_source";
    case mysql_op::semisync_replica: return "semisync_replica";
  }
  return "unknown";
}

}  // namespace br
