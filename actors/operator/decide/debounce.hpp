// Per-site debounce: folds one probe result into a site's state.
//
// Rules (failure_threshold F >= 1, recovery_threshold R >= 1; 0 is treated as 1):
//   failed    -> consecutive_failures += 1 (saturating), consecutive_writable = 0.
//                If consecutive_failures >= F the state becomes unreachable; otherwise the
//                state is unchanged (a streak in progress keeps the previous state, so a
//                writable primary that misses F-1 polls is still writable).
//   read_only -> both counters reset to 0; the state becomes read-only immediately (safe,
//                non-destructive), from any state.
//   writable  -> consecutive_failures = 0, consecutive_writable += 1 (saturating).
//                If consecutive_writable >= R the state becomes writable; otherwise the state is
//                unchanged: unknown stays unknown, read-only stays read-only, unreachable stays
//                unreachable until R consecutive writable polls were seen.
// Any successful poll breaks the failure streak and any non-writable poll breaks the writable
// streak. `transitioned` is true exactly when the state changed; from/to are then the old and
// new states (and are both the current state otherwise).
#pragma once

#include <cstdint>

#include "messages/decisions.hpp"

namespace br {

debounce_step debounce(const debounce_state& current, poll_result poll, uint32_t failure_threshold,
                       uint32_t recovery_threshold);

}  // namespace br
