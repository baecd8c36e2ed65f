// Go-style duration strings ("2s", "500ms", "1h30m") parsed to and formatted from nanoseconds.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace br::config {

/// Same resolution and range as Go's time.Duration and caf::timespan.
using duration = std::chrono::nanoseconds;

struct duration_parse {
  std::optional<duration> value;
  std::string error;  // set when value is empty
  explicit operator bool() const { return value.has_value(); }
};

/// Accepts a sequence of <decimal><unit> with units ns, us (µs, μs), ms, s, m, h, and a bare "0".
/// Rejects empty text, missing units, unknown units, signs (negative durations are never
/// meaningful in a spec) and values that overflow int64 nanoseconds.
duration_parse parse_duration(std::string_view text);

/// Compact canonical form: "0s", "500ms", "2s", "5m", "1h30m", "1s500ms". parse(format(d)) == d
/// for every non-negative d; negative values get a leading '-'.
std::string format_duration(duration d);

}  // namespace br::config
