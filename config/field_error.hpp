// A problem found in a user's document, located by a Kubernetes-style field path.
#pragma once

#include <string>
#include <vector>

namespace br::config {

struct field_error {
  std::string path;     // e.g. "spec.sites[1].name"
  std::string message;  // e.g. "duplicate site name \"iad\""
  std::string to_string() const { return path.empty() ? message : path + ": " + message; }
  bool operator==(const field_error&) const = default;
};

using field_errors = std::vector<field_error>;

/// All errors, one per line, for logs and CLI output.
inline std::string to_string(const field_errors& errors) {
  std::string out;
  for (const auto& e : errors) {
    if (!out.empty()) out += '\n';
    out += e.to_string();
  }
  return out;
}

}  // namespace br::config
