// Base64 (RFC 4648, standard alphabet); see base64.hpp.
#include "io/codec/base64.hpp"

#include <array>

namespace br {

std::string base64_encode(std::string_view in) {
  static const char* a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned v = 0;
  int bits = 0;
  for (unsigned char ch : in) {
    v = (v << 8) | ch;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out.push_back(a[(v >> bits) & 63]);
    }
  }
  if (bits > 0) out.push_back(a[(v << (6 - bits)) & 63]);
  while (out.size() % 4) out.push_back('=');
  return out;
}

std::optional<std::string> base64_decode(std::string_view in) {
  static const std::array<int, 256> table = [] {
    std::array<int, 256> t{};
    t.fill(-1);
    const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = i;
    return t;
  }();
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (char ch : in) {
    if (ch == '=') break;
    if (ch == '\n' || ch == '\r') continue;
    int v = table[static_cast<unsigned char>(ch)];
    if (v < 0) return std::nullopt;
    buffer = (buffer << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace br
