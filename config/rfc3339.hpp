// RFC 3339 timestamps (Kubernetes metav1.Time style) to and from millisecond time points.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace br::config {

using timestamp = std::chrono::sys_time<std::chrono::milliseconds>;

/// "2024-05-01T12:00:00Z", "2024-05-01T12:00:00.250+02:00"; fractions beyond ms are truncated.
std::optional<timestamp> parse_rfc3339(std::string_view text);

/// UTC with a 'Z'; milliseconds only when non-zero ("2024-05-01T12:00:00Z", "...:00.250Z").
std::string format_rfc3339(timestamp t);

}  // namespace br::config

namespace br::config {

/// A restore's stop time: RFC 3339 or "YYYY-MM-DD HH:MM:SS" (UTC), whole seconds (a fraction is
/// refused: mysqlbinlog compares seconds) -> unix seconds; nullopt when it is neither.
std::optional<std::int64_t> parse_stop_datetime(std::string_view text);

}  // namespace br::config
