// Fencing commands: fence (super_read_only, bounded), kill application sessions, promote.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "io/mysql/connection.hpp"
#include "io/mysql/dialect.hpp"
#include "io/mysql/fence_plan.hpp"

namespace br::mysql {

/// super_read_only = OFF, then read_only = OFF, as two statements (the first alone leaves the
/// server read_only). Stops at the first failure.
result<void> promote(connection& conn, const dialect& d);

/// One row of the session list.
struct session_info {
  uint64_t id = 0;
  std::optional<std::string> user;  ///< NULL for threads without an account
  std::string host;
  std::string command;  ///< "Sleep", "Query", "Binlog Dump GTID", "Daemon", ...
};

struct kill_policy {
  /// Accounts (user names, any host) never killed: e.g. the operator's and the monitoring user.
  std::set<std::string> protected_users;
};

/// Pure: is this a session a fence must kill? Kept: our own session, users NULL / "" /
/// "system user" / "event_scheduler", commands "Binlog Dump" / "Binlog Dump GTID" / "Daemon"
/// (replication applier, outbound binlog feeds, event scheduler), and protected users.
bool is_application_session(const session_info& s, uint64_t own_id, const kill_policy& policy);

struct kill_report {
  unsigned killed = 0;        ///< KILL succeeded
  unsigned already_gone = 0;  ///< KILL answered 1094 (the session ended meanwhile)
  unsigned kept = 0;          ///< listed but not an application session
  std::vector<uint64_t> killed_ids;
  std::vector<mysql_error> failures;  ///< other KILL errors (e.g. 1095 missing CONNECTION_ADMIN)
  std::vector<uint64_t> failed_ids;  ///< the sessions of `failures`, in the same order
};

/// Lists sessions and KILLs every application session. A KILL that fails with a server error is
/// recorded and the rest are still killed; a connection-level failure (lost, timeout) aborts.
result<kill_report> kill_application_sessions(connection& conn, const dialect& d,
                                              const kill_policy& policy);

/// Like kill_application_sessions, over the sessions holding a lock the fence waits for
/// (dialect::list_lock_holders_sql). `kept` counts the holders the policy spares.
result<kill_report> kill_lock_holders(connection& conn, const dialect& d,
                                      const kill_policy& policy);

/// How a fence is bounded.
struct fence_options {
  /// The whole fence, all attempts and kills included. The first attempt always runs; a later
  /// one starts only when it fits (fence_plan.hpp).
  std::chrono::milliseconds budget{std::chrono::seconds{5}};
  /// Who the fence may kill when its SET waits for a lock (same rule as the session kill).
  kill_policy policy;
};

/// What a bounded fence did.
struct fence_report {
  unsigned attempts = 0;    ///< SET statements sent
  unsigned lock_waits = 0;  ///< of those, ended by lock_wait_timeout (or an MDL deadlock)
  /// Lock holders killed between attempts (application sessions only).
  std::vector<uint64_t> killed_ids;
  unsigned kept = 0;  ///< lock holders the policy spared (ourselves, system, protected users)
  /// Kill rounds where the server named no lock holder at all, so every application session was
  /// killed instead (metadata-lock instrumentation off).
  unsigned fallback_rounds = 0;
  std::vector<mysql_error> kill_failures;  ///< KILLs (or lock-holder listings) the server refused
  std::chrono::milliseconds elapsed{0};
  /// The semi-synchronous release that ran first (fence_plan.hpp plan_semisync_release): all
  /// false on a server whose source side is off.
  semisync_fence_steps semisync;
};

/// The semi-synchronous release before a fence (fence_plan.hpp): reads the source side,
/// super_read_only and offline_mode, then runs plan_semisync_release's steps in order
/// (offline_mode=ON, the application sessions killed under `policy` and recorded in `rep`, the
/// source side OFF). Stops at the first failure; offline_mode then stays ON (a deposed primary
/// that no application can reach) until a fence or a promotion ends it. A session the server
/// refused to kill (1095: another account's SYSTEM_USER session, e.g. root's) stops the release
/// while it is in a statement (a commit waiting for an acknowledgement, or queued behind one:
/// its client would be answered OK); an idle one is left alone (offline_mode does not end
/// sessions with CONNECTION_ADMIN either). promote_with_switch and promote end offline_mode.
result<semisync_fence_steps> release_semisync_waits(connection& conn, const dialect& d,
                                                    const kill_policy& policy, fence_report& rep);

/// SET GLOBAL super_read_only = ON (also sets read_only), idempotent, bounded by opts.budget.
/// A semi-synchronous source is released after the first attempt that waited for a lock
/// (release_semisync_waits; a healthy semi-sync primary, whose commits are acknowledged, is fenced
/// without it and keeps its receivers); offline_mode set by that release goes back OFF once the
/// fence applied (and stays ON when it did not).
/// Each attempt runs under a short session lock_wait_timeout (attempt_lock_wait); when it ends
/// in a lock wait, the application sessions holding the lock are killed (when the server names
/// no holder at all: every application session) and the SET is retried, until it succeeds or no
/// attempt fits in the budget. The lock wait is set back to the server default afterwards.
/// Errors: a failure other than a lock wait as it came (a connection-level one, also from a kill
/// round, leaves the outcome to the caller: the SET may have applied); a budget spent waiting is
/// server_error 1205 (nothing applied) whose message says so (attempts, kills, time). A kill
/// round the server refuses (privileges) is recorded in kill_failures and the SET retried.
result<fence_report> fence_bounded(connection& conn, const dialect& d, const fence_options& opts);

/// fence_bounded with the connection's own terms: the budget is its read timeout (the deadline
/// its owner gave each command) and the policy spares its own account.
result<void> fence(connection& conn, const dialect& d);

}  // namespace br::mysql
