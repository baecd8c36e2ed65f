// FNV-1a (64 bit) of a text as 16 hex digits: a short fingerprint that is stable across
// processes and builds (std::hash is not). It names a value; it authenticates nothing.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace br {

inline std::string fnv1a64_hex(std::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace br
