// libFuzzer target: br::gtid_set::parse on arbitrary bytes, plus round-trip and algebra invariants.
#include "messages/gtid_set.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace {

// abort() rather than assert(): the check must also fire in builds with NDEBUG.
void check(bool ok, const char* what) {
  if (!ok) {
    __builtin_printf("gtid_fuzz invariant failed: %s\n", what);
    std::abort();
  }
}

unsigned __int128 exact_count(const br::gtid_set& s) {
  unsigned __int128 total = 0;
  for (const auto& [key, list] : s.streams())
    for (const auto& [first, last] : list) total += static_cast<unsigned __int128>(last - first) + 1;
  return total;
}

bool well_formed(const br::gtid_set& s) {
  for (const auto& [key, list] : s.streams()) {
    if (list.empty() || key.first.size() != 36 || key.second.size() > br::gtid_set::max_tag_length) return false;
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].first < 1 || list[i].first > list[i].second || list[i].second > br::gtid_set::max_gno)
        return false;
      if (i > 0 && list[i].first <= list[i - 1].second + 1) return false;
    }
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  br::gtid_parse_error err;
  auto parsed = br::gtid_set::parse(text, &err);
  if (!parsed) {
    // Errors must point inside the input (or just past its end) and say something.
    check(err.position <= size, "error position beyond input");
    check(!err.message.empty(), "empty error message");
    return 0;
  }
  const br::gtid_set& x = *parsed;
  check(well_formed(x), "parsed set not normalised");

  std::string printed = x.to_string();
  auto again = br::gtid_set::parse(printed);
  check(again.has_value(), "to_string output does not parse");
  check(*again == x, "parse(to_string(x)) != x");
  check(again->to_string() == printed, "to_string not stable");
  auto compact = br::gtid_set::parse(x.to_compact_string());
  check(compact.has_value() && *compact == x, "parse(to_compact_string(x)) != x");

  check(x.contains(x), "x does not contain itself");
  check(x.subtract(x).empty(), "x \\ x not empty");
  check(x.unite(x) == x && x.intersect(x) == x, "union/intersection not idempotent");
  check(x.empty() == (x.count() == 0), "empty() disagrees with count()");

  unsigned __int128 exact = exact_count(x);
  check(x.count() == (exact > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(exact)), "count() wrong");

  // Split x into two halves by stream and make sure the algebra puts them back together.
  br::gtid_set first_half;
  size_t i = 0;
  for (const auto& [key, list] : x.streams())
    if (i++ % 2 == 0)
      for (const auto& [lo, hi] : list) first_half.add(key.first, key.second, lo, hi);
  br::gtid_set rest = x.subtract(first_half);
  check(x.contains(first_half) && x.contains(rest), "halves not contained");
  check(first_half.intersect(rest).empty(), "halves overlap");
  check(first_half.unite(rest) == x, "halves do not reunite");
  check(exact_count(first_half) + exact_count(rest) == exact, "halves count mismatch");
  return 0;
}
