// SQL text, parsing and the arming rule of the in-database dead man's switch.
#include "io/mysql/dead_mans_switch_sql.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "io/mysql/lock_holders_sql.hpp"

namespace br::mysql {

namespace {

std::string upper(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return out;
}

// Bump when the event body changes, so ensure_switch re-creates events made by older code.
// v2: the SET is bounded by a short lock wait and the lock holders are killed between attempts.
// v3: a semi-synchronous source is released (offline_mode, kills, source side OFF) after a blocked attempt.
constexpr std::string_view comment_prefix = "bloodraven dead-mans-switch v3 lease_us=";

// The lock holders the event may kill: the kill policy of fencing.hpp (is_application_session)
// in SQL. Spared: accounts without a name, system threads, the event scheduler, replication
// (binlog dump) and daemon threads, and the event's definer (CURRENT_USER() in the body), which
// is the account that installed the switch (the operator's or the sidecar's).
std::string event_victims_sql() {
  return "SELECT DISTINCT t.PROCESSLIST_ID" + std::string(lock_holders_from_where) +
         " AND t.PROCESSLIST_USER NOT IN ('', 'system user', 'event_scheduler',"
         " SUBSTRING_INDEX(CURRENT_USER(), '@', 1))"
         " AND t.PROCESSLIST_COMMAND NOT IN ('Binlog Dump', 'Binlog Dump GTID', 'Daemon')";
}

}  // namespace

std::string_view to_string(scheduler_state s) {
  switch (s) {
    case scheduler_state::on: return "on";
    case scheduler_state::off: return "off";
    case scheduler_state::disabled: return "disabled";
    case scheduler_state::unknown: break;
  }
  return "unknown";
}

std::string_view to_string(event_status s) {
  switch (s) {
    case event_status::missing: return "missing";
    case event_status::enabled: return "enabled";
    case event_status::disabled: return "disabled";
    case event_status::replica_side_disabled: return "replica_side_disabled";
    case event_status::unknown: break;
  }
  return "unknown";
}

std::string_view to_string(switch_arming a) {
  switch (a) {
    case switch_arming::armed: return "armed";
    case switch_arming::scheduler_off: return "scheduler_off";
    case switch_arming::scheduler_disabled: return "scheduler_disabled";
    case switch_arming::event_missing: return "event_missing";
    case switch_arming::event_disabled: return "event_disabled";
    case switch_arming::event_replica_only: return "event_replica_only";
    case switch_arming::definer_cannot_fence: return "definer_cannot_fence";
    case switch_arming::lease_mismatch: return "lease_mismatch";
    case switch_arming::unknown: break;
  }
  return "unknown";
}

scheduler_state parse_scheduler_state(const std::optional<std::string>& value) {
  if (!value) return scheduler_state::unknown;
  const std::string v = upper(*value);
  if (v == "ON" || v == "1") return scheduler_state::on;
  if (v == "OFF" || v == "0") return scheduler_state::off;
  if (v == "DISABLED") return scheduler_state::disabled;
  return scheduler_state::unknown;
}

event_status parse_event_status(const std::optional<std::string>& value) {
  if (!value) return event_status::missing;
  const std::string v = upper(*value);
  if (v == "ENABLED") return event_status::enabled;
  if (v == "DISABLED") return event_status::disabled;
  if (v == "SLAVESIDE_DISABLED") return event_status::replica_side_disabled;
  return event_status::unknown;
}

switch_arming assess_switch(scheduler_state scheduler, event_status status) {
  switch (scheduler) {
    case scheduler_state::on: break;
    case scheduler_state::off: return switch_arming::scheduler_off;
    case scheduler_state::disabled: return switch_arming::scheduler_disabled;
    case scheduler_state::unknown: return switch_arming::unknown;
  }
  switch (status) {
    case event_status::enabled: return switch_arming::armed;
    case event_status::missing: return switch_arming::event_missing;
    case event_status::disabled: return switch_arming::event_disabled;
    case event_status::replica_side_disabled: return switch_arming::event_replica_only;
    case event_status::unknown: break;
  }
  return switch_arming::unknown;
}

switch_arming assess_switch(scheduler_state scheduler, event_status status,
                            std::optional<bool> definer_can_fence,
                            std::optional<std::chrono::milliseconds> event_lease,
                            std::chrono::milliseconds wanted_lease) {
  const switch_arming base = assess_switch(scheduler, status);
  if (base != switch_arming::armed) return base;
  if (definer_can_fence == false) return switch_arming::definer_cannot_fence;
  if (event_lease != wanted_lease) return switch_arming::lease_mismatch;
  return switch_arming::armed;
}

std::string switch_comment(std::chrono::milliseconds lease) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(lease).count();
  return std::string(comment_prefix) + std::to_string(us);
}

std::optional<std::chrono::milliseconds> parse_switch_comment(std::string_view comment) {
  if (comment.substr(0, comment_prefix.size()) != comment_prefix) return std::nullopt;
  const std::string_view digits = comment.substr(comment_prefix.size());
  if (digits.empty()) return std::nullopt;
  long long us = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), us);
  if (ec != std::errc{} || p != digits.data() + digits.size() || us <= 0 || us % 1000 != 0)
    return std::nullopt;
  return std::chrono::milliseconds{us / 1000};
}

std::string heartbeat_table_sql_name() {
  return std::string(switch_schema) + "." + std::string(heartbeat_table_name);
}

std::string switch_event_sql_name() {
  return std::string(switch_schema) + "." + std::string(switch_event_name);
}

std::string create_heartbeat_table_sql() {
  return "CREATE TABLE IF NOT EXISTS " + heartbeat_table_sql_name() +
         " (id TINYINT UNSIGNED NOT NULL PRIMARY KEY, at DATETIME(6) NOT NULL) ENGINE=InnoDB";
}

std::string refresh_heartbeat_sql(std::chrono::microseconds age) {
  auto at = age.count() > 0
                ? "UTC_TIMESTAMP(6) - INTERVAL " + std::to_string(age.count()) + " MICROSECOND"
                : std::string("UTC_TIMESTAMP(6)");
  return "INSERT INTO " + heartbeat_table_sql_name() + " (id, at) VALUES (1, " + at +
         ") ON DUPLICATE KEY UPDATE at = GREATEST(at, " + at + ")";
}

std::string seed_heartbeat_sql() {
  return "INSERT IGNORE INTO " + heartbeat_table_sql_name() +
         " (id, at) VALUES (1, UTC_TIMESTAMP(6))";
}

std::string create_event_sql(std::chrono::milliseconds lease) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(lease).count();
  const std::string attempts = std::to_string(event_fence_attempts);
  // DEFINER defaults to the creating account (the operator's or the sidecar's): the body runs with
  // its privileges, so it needs SYSTEM_VARIABLES_ADMIN (or SUPER) for the SET, SELECT/EVENT on
  // the schema, and for the kills CONNECTION_ADMIN plus SELECT on performance_schema (without
  // them the kills fail quietly and the SET is still retried); read_switch_state checks that the
  // definer still exists and can fence.
  //
  // Every statement of the body waits at most event_lock_wait_s for a lock (the server default
  // is a year). When the SET gives up on a lock wait (1205, or 1213 as a deadlock victim), the
  // lock holders are killed and the SET retried, event_fence_attempts times in all; the next
  // run, one second later, starts again. A KILL that fails (the session ended, privileges) is
  // skipped; a listing that fails ends that kill round only. The cursor lives in the kill
  // round's block, so leaving the block early also closes it.
  //
  // A semi-synchronous source (v3): a commit waiting for an acknowledgement that cannot come holds
  // the commit lock and a KILL does not end its wait, so after a blocked attempt the body releases
  // it the way the C++ fence does (fence_plan.hpp plan_semisync_release): offline_mode=ON (the
  // application clients without CONNECTION_ADMIN are disconnected, new ones refused), the kill
  // round, and only then the source side OFF (PREPAREd: the variable exists only with the plugin
  // loaded, and a plain SET of an unknown variable fails the CREATE EVENT). offline_mode goes back
  // OFF once the server is fenced, only when this run set it.
  return "CREATE EVENT " + switch_event_sql_name() +
         " ON SCHEDULE EVERY 1 SECOND ON COMPLETION PRESERVE ENABLE COMMENT '" +
         switch_comment(lease) +
         "' DO BEGIN"
         " DECLARE attempt INT DEFAULT 0;"
         " DECLARE blocked INT DEFAULT 0;"
         " DECLARE listed_all INT DEFAULT 0;"
         " DECLARE victim BIGINT UNSIGNED;"
         " DECLARE semisync_on INT DEFAULT 0;"
         " DECLARE went_offline INT DEFAULT 0;"
         " SET SESSION lock_wait_timeout = " + std::to_string(event_lock_wait_s) + ";"
         " IF @@GLOBAL.super_read_only = 0 AND NOT EXISTS (SELECT 1 FROM " +
         heartbeat_table_sql_name() + " WHERE id = 1 AND at >= UTC_TIMESTAMP(6) - INTERVAL " +
         std::to_string(us) +
         " MICROSECOND) THEN"
         " fence: LOOP"
         " SET attempt = attempt + 1, blocked = 0;"
         " BEGIN DECLARE CONTINUE HANDLER FOR 1205, 1213 SET blocked = 1;"
         " SET GLOBAL super_read_only = ON; END;"
         " IF blocked = 0 OR attempt >= " + attempts + " THEN LEAVE fence; END IF;"
         " SET semisync_on = (SELECT COUNT(*) FROM performance_schema.global_variables WHERE"
         " VARIABLE_NAME = 'rpl_semi_sync_source_enabled' AND VARIABLE_VALUE = 'ON');"
         " IF semisync_on = 1 AND @@GLOBAL.offline_mode = 0 THEN"
         " SET GLOBAL offline_mode = ON; SET went_offline = 1; END IF;"
         " kills: BEGIN"
         " DECLARE victims CURSOR FOR " + event_victims_sql() + ";"
         " DECLARE CONTINUE HANDLER FOR NOT FOUND SET listed_all = 1;"
         " DECLARE EXIT HANDLER FOR SQLEXCEPTION BEGIN END;"
         " SET listed_all = 0; OPEN victims;"
         " next_victim: LOOP FETCH victims INTO victim;"
         " IF listed_all = 1 THEN LEAVE next_victim; END IF;"
         " BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN END; KILL CONNECTION victim; END;"
         " END LOOP; CLOSE victims; END kills;"
         " IF semisync_on = 1 THEN BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN END;"
         " PREPARE source_off FROM 'SET GLOBAL rpl_semi_sync_source_enabled = OFF';"
         " EXECUTE source_off; DEALLOCATE PREPARE source_off; END; END IF;"
         " END LOOP fence;"
         " IF went_offline = 1 AND @@GLOBAL.super_read_only = 1 THEN"
         " SET GLOBAL offline_mode = OFF; END IF;"
         " END IF; END";
}

std::string drop_event_sql() {
  return "DROP EVENT IF EXISTS " + switch_event_sql_name();
}

std::optional<account_name> split_definer(std::string_view definer) {
  const auto at = definer.rfind('@');
  if (at == std::string_view::npos) return std::nullopt;
  return account_name{std::string(definer.substr(0, at)), std::string(definer.substr(at + 1))};
}

}  // namespace br::mysql
