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

}  // namespace br::mysql
