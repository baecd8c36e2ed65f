// Go-style duration parsing and formatting.
#include "config/duration.hpp"

#include <array>
#include <cstdint>
#include <limits>

namespace br::config {
namespace {

struct unit {
  std::string_view name;
  std::int64_t nanos;
};

// Longest names first so "ms" wins over "m".
constexpr std::array<unit, 8> units{{{"ns", 1},
                                     {"us", 1'000},
                                     {"\xC2\xB5s", 1'000},  // U+00B5 micro sign
                                     {"\xCE\xBCs", 1'000},  // U+03BC greek mu
                                     {"ms", 1'000'000},
                                     {"s", 1'000'000'000},
                                     {"m", 60'000'000'000},
                                     {"h", 3'600'000'000'000}}};

duration_parse fail(std::string_view text, std::string why) {
  return {std::nullopt, "invalid duration \"" + std::string{text} + "\": " + std::move(why)};
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

duration_parse parse_duration(std::string_view text) {
  if (text.empty()) return fail(text, "empty (use e.g. \"2s\", \"500ms\", \"5m\")");
  if (text.front() == '-' || text.front() == '+')
    return fail(text, "sign not allowed (durations must be non-negative)");
  if (text == "0") return {duration{0}, {}};
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  std::int64_t total = 0;
  std::size_t i = 0;
  while (i < text.size()) {
    // Integer part.
    std::int64_t whole = 0;
    std::size_t start = i;
    bool overflow = false;
    while (i < text.size() && is_digit(text[i])) {
      if (whole > (max - (text[i] - '0')) / 10)
        overflow = true;
      else
        whole = whole * 10 + (text[i] - '0');
      ++i;
    }
    bool had_whole = i > start;
    // Fraction part: keep up to 18 digits, enough for any unit down to ns.
    std::int64_t frac = 0, frac_scale = 1;
    bool had_frac = false;
    if (i < text.size() && text[i] == '.') {
      ++i;
      while (i < text.size() && is_digit(text[i])) {
        had_frac = true;
        if (frac_scale < 1'000'000'000'000'000'000) {
          frac = frac * 10 + (text[i] - '0');
          frac_scale *= 10;
        }
        ++i;
      }
    }
    if (!had_whole && !had_frac)
      return fail(text, "expected a number at position " + std::to_string(start));
    if (overflow) return fail(text, "value out of range");
    // Unit.
    const unit* u = nullptr;
    for (const auto& candidate : units) {
      if (text.substr(i, candidate.name.size()) == candidate.name) {
        u = &candidate;
        break;
      }
    }
    if (u == nullptr) {
      if (i == text.size()) return fail(text, "missing unit (ns, us, ms, s, m, h)");
      std::size_t end = i;
      while (end < text.size() && !is_digit(text[end]) && text[end] != '.') ++end;
      return fail(text, "unknown unit \"" + std::string{text.substr(i, end - i)} +
                            "\" (use ns, us, ms, s, m, h)");
    }
    i += u->name.size();
    if (whole > max / u->nanos) return fail(text, "value out of range");
    std::int64_t part = whole * u->nanos;
    // frac/frac_scale * nanos, exact in 128 bits: frac < 1e18 and nanos <= 3.6e12.
    auto extra = static_cast<std::int64_t>(static_cast<__int128>(frac) * u->nanos / frac_scale);
    if (part > max - extra || total > max - part - extra) return fail(text, "value out of range");
    total += part + extra;
  }
  return {duration{total}, {}};
}

std::string format_duration(duration d) {
  std::int64_t n = d.count();
  if (n == 0) return "0s";
  std::string out;
  // Work in unsigned so that INT64_MIN can be negated.
  std::uint64_t v = n < 0 ? 0 - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  if (n < 0) out += '-';
  constexpr std::array<std::pair<std::string_view, std::uint64_t>, 6> parts{
      {{"h", 3'600'000'000'000ULL},
       {"m", 60'000'000'000ULL},
       {"s", 1'000'000'000ULL},
       {"ms", 1'000'000ULL},
       {"us", 1'000ULL},
       {"ns", 1ULL}}};
  for (const auto& [name, size] : parts) {
    if (v >= size) {
      out += std::to_string(v / size);
      out += name;
      v %= size;
    }
  }
  return out;
}

}  // namespace br::config
