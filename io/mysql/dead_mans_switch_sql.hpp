// Pure parts of the in-database dead man's switch: SQL text, parsing, and the "is it armed" rule.
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace br::mysql {

/// Names of the switch's objects. The schema exists on every managed server (the sandbox and the
/// chart create it); the table and the event are created per server with sql_log_bin=0.
inline constexpr std::string_view switch_schema = "bloodraven";
inline constexpr std::string_view switch_event_name = "dead_mans_switch";
inline constexpr std::string_view heartbeat_table_name = "dead_mans_switch_heartbeat";

/// @@GLOBAL.event_scheduler. DISABLED means the server was started with the scheduler off and it
/// cannot be turned on without a restart.
enum class scheduler_state { on, off, disabled, unknown };
std::string_view to_string(scheduler_state s);
inline std::ostream& operator<<(std::ostream& os, scheduler_state s) {
  return os << to_string(s);
}

/// information_schema.EVENTS.STATUS of our event. replica_side_disabled is SLAVESIDE_DISABLED:
/// the event arrived through replication and never runs on this server.
enum class event_status { missing, enabled, disabled, replica_side_disabled, unknown };
std::string_view to_string(event_status s);
inline std::ostream& operator<<(std::ostream& os, event_status s) {
  return os << to_string(s);
}

/// Why the switch is (not) armed, most fundamental cause first.
enum class switch_arming {
  armed,                ///< the scheduler runs and our event is ENABLED (and, when known, sound)
  scheduler_off,        ///< event_scheduler=OFF: can be switched on at runtime
  scheduler_disabled,   ///< event_scheduler=DISABLED: needs a server restart with it on
  event_missing,        ///< no bloodraven.dead_mans_switch on this server
  event_disabled,       ///< the event exists but is DISABLED
  event_replica_only,   ///< SLAVESIDE_DISABLED: a replicated copy, never runs here
  definer_cannot_fence, ///< the definer is gone or lacks SYSTEM_VARIABLES_ADMIN/SUPER
  lease_mismatch,       ///< the event fences after another lease than the configured one
  unknown,              ///< a value this code does not know
};
std::string_view to_string(switch_arming a);
inline std::ostream& operator<<(std::ostream& os, switch_arming a) {
  return os << to_string(a);
}

/// "ON" / "OFF" / "DISABLED" (any case; also "1"/"0") -> state; NULL or other text -> unknown.
scheduler_state parse_scheduler_state(const std::optional<std::string>& value);
/// "ENABLED" / "DISABLED" / "SLAVESIDE_DISABLED" -> status; NULL (no such row) -> missing.
event_status parse_event_status(const std::optional<std::string>& value);

/// The decision the operator needs: armed only when the scheduler is ON and the event ENABLED.
switch_arming assess_switch(scheduler_state scheduler, event_status status);

/// The full decision: assess_switch first, then the definer (nullopt = could not check: not held
/// against the switch) and the lease the event was created with (nullopt = not ours/unparsable).
switch_arming assess_switch(scheduler_state scheduler, event_status status,
                            std::optional<bool> definer_can_fence,
                            std::optional<std::chrono::milliseconds> event_lease,
                            std::chrono::milliseconds wanted_lease);

inline bool is_armed(switch_arming a) {
  return a == switch_arming::armed;
}

/// The event's COMMENT: marks it as ours, with the body version and the lease baked into the
/// body, so a changed lease or body is detected without parsing the body.
std::string switch_comment(std::chrono::milliseconds lease);
/// Inverse of switch_comment; nullopt for any other text (including an older body version).
std::optional<std::chrono::milliseconds> parse_switch_comment(std::string_view comment);

/// "bloodraven.dead_mans_switch_heartbeat" etc.
std::string heartbeat_table_sql_name();
std::string switch_event_sql_name();

/// CREATE TABLE IF NOT EXISTS for the heartbeat (one row per server, id = 1; DATETIME(6) in UTC
/// from the server's own clock, so no session time zone or DST shift enters the comparison).
std::string create_heartbeat_table_sql();
/// Upsert of row 1 with UTC_TIMESTAMP(6).
/// Upsert of row 1 dated `age` before the server's UTC_TIMESTAMP(6); an existing newer row is
/// kept (GREATEST): the operator and the sidecar both vouch, and the freshest vouch counts.
std::string refresh_heartbeat_sql(std::chrono::microseconds age = std::chrono::microseconds{0});
/// Row 1 only when it is missing (arming a server must not fence it at once).
std::string seed_heartbeat_sql();
/// Lock wait (whole seconds, the server's minimum) of every statement of the event body.
inline constexpr int event_lock_wait_s = 1;
/// SET attempts per event run; between two, the application sessions holding the lock are killed.
inline constexpr int event_fence_attempts = 3;

/// CREATE EVENT: every second, if the server is writable (super_read_only = 0) and row 1 is older
/// than `lease` by the server clock (or missing), SET GLOBAL super_read_only = ON. The check of
/// super_read_only first keeps a fenced server from re-running the SET (and from logging). The
/// SET runs under lock_wait_timeout = event_lock_wait_s; when it gives up on a lock, the lock
/// holders that are application sessions (the kill policy of fencing.hpp, sparing the event's
/// definer) are killed and the SET retried, event_fence_attempts in all per run.
std::string create_event_sql(std::chrono::milliseconds lease);
std::string drop_event_sql();

/// "user@host" as information_schema.EVENTS.DEFINER prints it, split at the LAST '@' (a user
/// name may contain '@', a host name may not). nullopt when there is no '@'.
struct account_name {
  std::string user;
  std::string host;
  bool operator==(const account_name&) const = default;
};
std::optional<account_name> split_definer(std::string_view definer);

}  // namespace br::mysql
