// The in-step judgement of semi-synchronous replication (semisync_in_step.hpp).
#include "actors/operator/decide/semisync_in_step.hpp"

#include <chrono>
#include <cstdlib>

namespace br {

uint64_t window_seconds(caf::timespan elapsed) {
  if (elapsed <= caf::timespan{0}) return 0;
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count();
  return static_cast<uint64_t>((ns + 999'999'999) / 1'000'000'000);
}

bool still_in_step(const in_step_record& r, int64_t started_at, uint64_t epoch) {
  return r.in_step && r.epoch == epoch &&
         std::llabs(started_at - r.started_at) <= in_step_start_tolerance_s;
}

in_step_record judge_in_step(const in_step_record& before, const in_step_facts& now) {
  in_step_record r = before;
  bool restarted = std::llabs(now.started_at - before.started_at) > in_step_start_tolerance_s;
  if (restarted || now.epoch != before.epoch) {
    r.in_step = false;  // a restart may have discarded received transactions; a new primary
    r.started_at = now.started_at;
    r.epoch = now.epoch;
  }
  if (!r.in_step && now.ordered && now.uptime_s >= in_step_min_uptime_s &&
      now.uptime_s > now.window_s && now.receiving_from_primary &&
      now.received.contains(now.primary_executed))
    r.in_step = true;
  return r;
}

}  // namespace br
