// The bounded fence's pure rules: attempt lock waits and the step after an attempt.
#include "io/mysql/fence_plan.hpp"

#include <algorithm>

namespace br::mysql {

namespace {
constexpr unsigned er_lock_wait_timeout = 1205;
constexpr unsigned er_lock_deadlock = 1213;
}  // namespace

bool is_lock_wait_failure(const mysql_error& e) {
  return e.kind == error_kind::server_error &&
         (e.code == er_lock_wait_timeout || e.code == er_lock_deadlock);
}

std::chrono::seconds attempt_lock_wait(std::chrono::milliseconds budget,
                                       std::chrono::milliseconds elapsed, bool first_attempt) {
  using std::chrono::seconds;
  const seconds wanted =
      std::clamp(std::chrono::duration_cast<seconds>(budget / 10), min_lock_wait, max_lock_wait);
  // Whole seconds left (rounded down), so the server gives up before the deadline passes.
  const seconds left = std::chrono::duration_cast<seconds>(std::max(
      budget - elapsed, std::chrono::milliseconds{0}));
  if (first_attempt) return std::max(std::min(wanted, left), min_lock_wait);
  if (left < min_lock_wait) return seconds{0};
  return std::min(wanted, left);
}

std::string_view to_string(fence_next n) {
  switch (n) {
    case fence_next::done: return "done";
    case fence_next::kill_blockers_and_retry: return "kill_blockers_and_retry";
    case fence_next::give_up_error: return "give_up_error";
    case fence_next::give_up_deadline: return "give_up_deadline";
  }
  return "give_up_error";
}

fence_next next_fence_step(const std::optional<mysql_error>& attempt_error,
                           std::chrono::milliseconds elapsed, std::chrono::milliseconds budget) {
  if (!attempt_error) return fence_next::done;
  if (!is_lock_wait_failure(*attempt_error)) return fence_next::give_up_error;
  // Another attempt needs the kill round and at least the server's minimum lock wait.
  if (budget - elapsed - kill_round_reserve < min_lock_wait) return fence_next::give_up_deadline;
  return fence_next::kill_blockers_and_retry;
}

semisync_fence_steps plan_semisync_release(const semisync_fence_state& s) {
  if (!s.source_on) return {};
  if (s.fenced) return {false, false, true};
  return {!s.offline, true, true};
}

std::ostream& operator<<(std::ostream& os, const semisync_fence_steps& s) {
  return os << "{go_offline " << s.go_offline << ", kill_sessions " << s.kill_sessions
            << ", source_off " << s.source_off << "}";
}

}  // namespace br::mysql
