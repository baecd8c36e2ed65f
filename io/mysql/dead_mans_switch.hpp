// In-database dead man's switch (docs/safety.md rule 7): install, heartbeat, read, promote through it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "io/mysql/connection.hpp"
#include "io/mysql/dead_mans_switch_sql.hpp"

namespace br::mysql {

/// What the switch looks like on one server, read in one pass.
struct switch_state {
  scheduler_state scheduler = scheduler_state::unknown;
  event_status status = event_status::missing;
  /// Lease baked into the event (from its comment); nullopt when missing or not made by us.
  std::optional<std::chrono::milliseconds> event_lease;
  std::string definer;  ///< "user@host" as information_schema prints it; "" when missing
  /// The definer exists and holds SYSTEM_VARIABLES_ADMIN or SUPER. nullopt when it could not be
  /// checked (no SELECT on mysql.*) or there is no event.
  std::optional<bool> definer_can_fence;
  bool heartbeat_table = false;  ///< bloodraven.dead_mans_switch_heartbeat exists
  /// Server clock: UTC_TIMESTAMP(6) - row 1 (negative after a backward clock step). nullopt when
  /// the table or the row is missing.
  std::optional<std::chrono::microseconds> heartbeat_age;
  bool super_read_only = true;
  bool read_only = true;

  /// assess_switch over these fields against the configured lease.
  switch_arming arming(std::chrono::milliseconds wanted_lease) const;
  bool writable() const { return !super_read_only && !read_only; }
};

/// What ensure_switch did.
struct ensure_report {
  switch_state state;  ///< after the change (re-read)
  bool changed = false;  ///< the table, the row or the event was created/re-created
  /// The server was fenced, so super_read_only was switched OFF (read_only stayed ON, so
  /// applications could not write) for the DDL and back ON after it.
  bool unfenced_for_ddl = false;
};

/// Outcome of a heartbeat write the server answered.
enum class heartbeat_outcome {
  refreshed,
  fenced,  ///< super_read_only=ON refused the write (error 1290): the switch or a fence won
};
std::string_view to_string(heartbeat_outcome o);
inline std::ostream& operator<<(std::ostream& os, heartbeat_outcome o) {
  return os << to_string(o);
}

/// What promote_with_switch did.
struct promote_report {
  unsigned retries = 0;   ///< attempts after the first (the switch fenced in between)
  bool writable = false;  ///< read back after the last attempt
  switch_state state;     ///< re-read at the end
};

/// Fault injection for tests only: a pause between super_read_only=OFF and the heartbeat write
/// of the FIRST attempt, so a stale heartbeat's switch fires inside the window (proves the retry).
struct promote_test_hooks {
  std::chrono::milliseconds pause_before_first_heartbeat{0};
};

// Every function below first runs SET SESSION sql_log_bin = 0 on `conn` unless it was opened
// with disable_session_binlog (the session stays that way): nothing of the switch may become a
// GTID, on this server or a replica. The account needs SYSTEM_VARIABLES_ADMIN (SET GLOBAL,
// sql_log_bin), CONNECTION_ADMIN (writes while read_only=ON), EVENT and ALL on the bloodraven
// schema, SELECT on mysql.* (definer check; optional). All calls use the connection's timeouts.

/// Reads the switch state; no writes.
result<switch_state> read_switch_state(connection& conn);

/// Creates the heartbeat table, its row (only when missing: arming must not fence at once) and
/// the event (re-created when missing, not ENABLED, made for another lease or body version, or
/// its definer can no longer fence), idempotently. On a fenced server the DDL needs
/// super_read_only=OFF: it is switched off (read_only stays ON) and back on, also after a failed
/// step. Does not touch @@event_scheduler: a scheduler that is not ON shows in the state.
/// `lease` must be at least 1 ms.
result<ensure_report> ensure_switch(connection& conn, std::chrono::milliseconds lease);

/// Upserts the heartbeat row with the server's UTC_TIMESTAMP(6) minus `age` (the sidecar dates it
/// at its lease's last renewal, docs/safety.md rule 6; the operator and promotions use 0); a newer row
/// is kept. A fenced server refuses it: that is the `fenced` outcome, not an error. A missing
/// table is an error (run ensure_switch; is_missing_switch_table tells).
result<heartbeat_outcome> refresh_heartbeat(connection& conn,
                                            std::chrono::microseconds age = std::chrono::microseconds{0});

/// The error a heartbeat gets when the switch's table does not exist (ER_NO_SUCH_TABLE).
bool is_missing_switch_table(const mysql_error& e);

/// refresh_heartbeat, and when the switch's table is missing (a server that never had the switch,
/// or lost it), ensure_switch(lease) first and refresh again. `installed`, when given, receives the
/// ensure report if ensure_switch ran.
result<heartbeat_outcome> refresh_heartbeat_installing(connection& conn,
                                                       std::chrono::milliseconds lease,
                                                       std::chrono::microseconds age,
                                                       std::optional<ensure_report>* installed = nullptr);

/// Makes the server writable through its switch: ensure_switch(lease); then per attempt
/// SET GLOBAL super_read_only=OFF (read_only stays ON), refresh the heartbeat, SET GLOBAL
/// read_only=OFF, read both back. If the switch fenced in between (heartbeat refused, or the
/// read-back shows a fence) the attempt is repeated, at most `retries` more times. The caller
/// decides what a non-writable end means; errors are SQL/connection failures only.
result<promote_report> promote_with_switch(connection& conn, std::chrono::milliseconds lease,
                                           unsigned retries, promote_test_hooks hooks = {});

}  // namespace br::mysql
