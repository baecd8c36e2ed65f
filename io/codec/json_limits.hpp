// Shape limits for JSON a network peer sends, checked on the raw bytes before any parser (or a
// recursive copy, dump or destructor) sees it: no input can exhaust the stack or the heap.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace br {

struct json_limits {
  std::size_t max_bytes = 16u << 10;
  std::size_t max_depth = 8;  ///< nesting of objects and arrays
};

/// What the operator and the sidecars accept as an answer from each other (acks, operator and
/// peer answers): small, and a peer answer nests its view once.
inline constexpr json_limits answer_limits{16u << 10, 4};

/// "" when `body` is within `limits`, else what is wrong ("body is 20000 bytes; at most 16384",
/// "nesting deeper than 8 at byte 17"). Brackets inside strings (with escapes) do not count.
std::string json_shape_problem(std::string_view body, const json_limits& limits);

}  // namespace br
