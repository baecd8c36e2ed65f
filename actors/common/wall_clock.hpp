// The wall clock of the actors: one source, injected through each actor's configuration.
//
// Decisions run on the actor clock (monotonic; virtual in tests). Wall time is what people and
// other processes read: report and Event times, observedAt, status timestamps, the cooldown record.
// Every actor reads it through a `wall_source` from its configuration: empty means the system
// clock; virtual-time tests inject one that moves with the scheduler's clock.
#pragma once

#include <caf/timestamp.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "config/rfc3339.hpp"

namespace br {

using wall_source = std::function<caf::timestamp()>;

/// Now, from `source` when set, else from the system clock.
inline caf::timestamp wall_now(const wall_source& source = {}) {
  return source ? source() : caf::make_timestamp();
}

/// wall_now(source) in Unix milliseconds.
inline int64_t unix_ms(const wall_source& source = {}) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             wall_now(source).time_since_epoch())
      .count();
}

/// wall_now(source) in Unix seconds.
inline int64_t unix_seconds(const wall_source& source = {}) {
  return std::chrono::duration_cast<std::chrono::seconds>(wall_now(source).time_since_epoch())
      .count();
}

/// wall_now(source) as RFC 3339 in whole seconds (Kubernetes condition times).
inline std::string rfc3339_seconds(const wall_source& source = {}) {
  return config::format_rfc3339(std::chrono::floor<std::chrono::seconds>(wall_now(source)));
}

}  // namespace br
