// The accepted range of every configured duration: the group spec's fields (group_validate.cpp),
// the sidecar's variables (sidecar_config.cpp) and the operator's flags. One place, so that every
// value the spec accepts and renders into a sidecar's environment is accepted by the sidecar too.
//
// Why maxima at all: durations are int64 nanoseconds (about 292 years), and the operator adds
// them (rule 3 sums four, timers compute now + d). A value near the top of the range would wrap
// a sum negative and open the promotion gate at once (docs/safety.md, gate rule 3). The maxima
// below are far inside the range, so no sum of configured values can come near it; the
// arithmetic saturates as well (config/saturating.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "config/duration.hpp"

namespace br::config {

struct duration_bounds {
  duration min;  ///< inclusive; 1ns means "positive"
  duration max;  ///< inclusive
};

namespace limits {

using namespace std::chrono_literals;

// -- spec (MysqlFailoverGroup) -----------------------------------------------------------------
inline constexpr duration_bounds poll_interval{1ns, 10min};
inline constexpr duration_bounds failover_cooldown{1ns, 168h};  // a week
inline constexpr duration_bounds connection_drain_timeout{1ns, 1h};
inline constexpr duration_bounds relay_drain_timeout{1ns, 24h};
inline constexpr duration_bounds promotion_gate_timeout{1ns, 24h};
inline constexpr duration_bounds max_lag_wait{1ns, 24h};
inline constexpr duration_bounds planned_drain_timeout{1ns, 1h};
inline constexpr duration_bounds max_sync_wait{1ns, 1h};

// -- shared by spec.sidecar.* and the sidecar's variables ----------------------------------------
// leaseTimeout and peerCheckInterval keep their own lower rules (spec: refused below
// max(3s, 3 x peerCheckInterval) and 1s; sidecar: clamped up to them with a warning).
inline constexpr duration_bounds lease_timeout{1ns, 1h};
inline constexpr duration_bounds peer_check_interval{1ns, 1min};
/// The MySQL C API counts its timeouts in whole seconds; a shorter fence cannot be honoured.
inline constexpr duration_bounds fence_timeout{1s, 10min};
/// libcurl counts in milliseconds and reads 0 as "no timeout"; 100ms keeps well clear of that.
inline constexpr duration_bounds request_timeout{100ms, 1min};

// -- process flags --------------------------------------------------------------------------------
inline constexpr duration_bounds shutdown_timeout{1ns, 10min};
inline constexpr duration_bounds http_handler_timeout{1ns, 10min};
inline constexpr duration_bounds pitr_poll_interval{1ns, 24h};  // clamped up to 1s with a warning
/// Any other duration flag (check_duration).
inline constexpr duration_bounds any_flag{1ns, 24h};

// -- integer seconds in the spec -------------------------------------------------------------------
inline constexpr std::int64_t clone_timeout_min_seconds = 60;
inline constexpr std::int64_t clone_timeout_max_seconds = 7 * 24 * 3600;  // a week
inline constexpr std::int64_t dns_ttl_max_seconds = 24 * 3600;
inline constexpr std::int64_t max_lag_max_seconds = 7 * 24 * 3600;

}  // namespace limits

/// "" when d is within b, else what is wrong ("must be a positive duration", "must be at least
/// 1s", "must be at most 10m"), without the value.
std::string check_bounds(duration d, const duration_bounds& b);

}  // namespace br::config
