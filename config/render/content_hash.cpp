// Deterministic content hash used to name content-addressed objects and to detect drift.
#include "config/render/content_hash.hpp"

#include <cstdint>

namespace br::render {

std::string content_hash(std::string_view content) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64 offset basis
  for (unsigned char c : content) {
    h ^= c;
    h *= 1099511628211ull;
  }
  static constexpr char digits[] = "0123456789abcdef";
  std::string out(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[h & 0xf];
  return out;
}

}  // namespace br::render
