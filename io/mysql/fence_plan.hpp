// Pure rules of the bounded fence: how long one attempt may wait for a lock, and what follows a
// failed attempt (kill the lock holders and retry, or give up with a clear error).
#pragma once

#include <chrono>
#include <optional>
#include <ostream>
#include <string_view>

#include "io/mysql/error.hpp"

namespace br::mysql {

/// SET GLOBAL super_read_only=ON takes the global read lock and then the commit lock (metadata
/// locks). A session holding LOCK TABLES ... WRITE, or running a write statement, holds the
/// conflicting lock, and the SET waits for it up to lock_wait_timeout (a year by default). On
/// MySQL 9.7 the SET then fails with 1205 ER_LOCK_WAIT_TIMEOUT; 1213 ER_LOCK_DEADLOCK is what the
/// metadata-lock deadlock detector answers when it picks the waiter as the victim.
bool is_lock_wait_failure(const mysql_error& e);

/// Server minimum of lock_wait_timeout (it takes whole seconds).
inline constexpr std::chrono::seconds min_lock_wait{1};
/// Upper bound of one attempt's lock wait: long enough for a commit in flight to finish, short
/// enough that the writes queued behind the waiting SET stall only briefly.
inline constexpr std::chrono::seconds max_lock_wait{3};
/// Time kept for listing and killing the lock holders between two attempts.
inline constexpr std::chrono::milliseconds kill_round_reserve{200};

/// Lock wait of the next attempt, `elapsed` into a fence with `budget`: a tenth of the budget in
/// whole seconds, clamped to [min_lock_wait, max_lock_wait], and never past the deadline. The
/// first attempt always runs (a fence is never skipped), with min_lock_wait at least; a later one
/// gets 0 s when less than min_lock_wait is left, meaning no attempt fits any more.
std::chrono::seconds attempt_lock_wait(std::chrono::milliseconds budget,
                                       std::chrono::milliseconds elapsed, bool first_attempt);

/// What the fence does after an attempt.
enum class fence_next {
  done,                     ///< super_read_only=ON was applied
  kill_blockers_and_retry,  ///< a lock wait, and another attempt still fits after the kill
  give_up_error,            ///< any other failure: the caller sees that error
  give_up_deadline,         ///< a lock wait, and no further attempt fits in the budget
};
std::string_view to_string(fence_next n);
inline std::ostream& operator<<(std::ostream& os, fence_next n) {
  return os << to_string(n);
}

/// The decision after one attempt: `attempt_error` is nullopt when the SET succeeded; `elapsed`
/// counts from the start of the fence (the attempt included).
fence_next next_fence_step(const std::optional<mysql_error>& attempt_error,
                           std::chrono::milliseconds elapsed, std::chrono::milliseconds budget);

/// What a server looks like to a fence that may have to release semi-synchronous waits
/// (docs/safety.md "Fencing a semi-synchronous primary").
struct semisync_fence_state {
  bool source_on = false;        ///< rpl_semi_sync_source_enabled = ON (plugin loaded)
  bool fenced = false;           ///< @@read_only = 1: a fence already applied
  bool offline = false;          ///< offline_mode already ON (an administrator's, or a failed fence's)
};

/// The release before SET GLOBAL super_read_only=ON. A commit waiting for an acknowledgement that
/// cannot come holds the commit lock, so the fence would wait for it forever; switching the
/// source side off ends the wait, and the commit's client would see it succeed: an acknowledged
/// write on a deposed primary. So the clients go first: offline_mode=ON disconnects every
/// application session without CONNECTION_ADMIN and refuses new ones, the session kill ends the
/// rest (a KILL closes the client's socket at once, while the commit itself keeps waiting inside
/// the server), and only then the source side goes off; the released commits are
/// divergent-but-unacknowledged. offline_mode goes back OFF after the fence applied, only when the
/// fence set it.
struct semisync_fence_steps {
  bool go_offline = false;
  bool kill_sessions = false;
  bool source_off = false;
  bool operator==(const semisync_fence_steps&) const = default;
};
/// Nothing when the source side is off; only the source side off on a server that is already
/// fenced (no client can commit there; a replica whose source side is on holds its applier);
/// otherwise all three, without go_offline when offline_mode is already on.
semisync_fence_steps plan_semisync_release(const semisync_fence_state& s);
std::ostream& operator<<(std::ostream& os, const semisync_fence_steps& s);

}  // namespace br::mysql
