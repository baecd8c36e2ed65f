// One pass over the bytes: nesting depth outside strings.
#include "io/codec/json_limits.hpp"

namespace br {

std::string json_shape_problem(std::string_view body, const json_limits& limits) {
  if (body.size() > limits.max_bytes)
    return "body is " + std::to_string(body.size()) + " bytes; at most " +
           std::to_string(limits.max_bytes);
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limits.max_depth)
        return "nesting deeper than " + std::to_string(limits.max_depth) + " at byte " +
               std::to_string(i);
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return {};
}

}  // namespace br
