// Property tests for br::gtid_set: set-algebra laws on random sets, checked against a brute-force model.
#include <boost/test/unit_test.hpp>

#include "messages/gtid_set.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace br {
// Lets Boost.Test print sets in failure messages (found by ADL); static keeps it per file.
[[maybe_unused]] static std::ostream& boost_test_print_type(std::ostream& os, const gtid_set& s) {
  return os << "{" << s.to_compact_string() << "}";
}
}  // namespace br

namespace {

using br::gtid_set;

// Small universes so random sets overlap often; the uuids sort in the order c < a < b.
const std::vector<std::string> uuids = {
    "bd414d9a-e603-11f1-821b-02fc00000001",
    "bf5d5d75-e603-11f1-aa37-02fc00000001",
    "0e2c6f1a-7b3d-4c5e-9f80-1a2b3c4d5e6f",
};
const std::vector<std::string> tags = {"", "x", "optest", "_t9"};

// The reference model: one element per transaction.
using gtid = std::tuple<std::string, std::string, uint64_t>;
using model = std::set<gtid>;

struct sample {
  gtid_set set;
  model ref;
};

model to_model(const gtid_set& s);
bool well_formed(const gtid_set& s);

class generator {
 public:
  explicit generator(uint64_t seed) : rng_(seed) {}

  uint64_t below(uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng_); }
  bool coin() { return below(2) == 1; }

  std::string random_case(const std::string& s) {
    std::string out = s;
    for (auto& ch : out)
      if (coin() && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
    return out;
  }

  std::string random_space() {
    static const char* choices[] = {"", "", "", " ", "\n", " \t", "\r\n"};
    return choices[below(std::size(choices))];
  }

  // A random small set built half through parse() of a random, unsorted, mixed-case text and
  // half through add(), so both entry points are compared with the same model.
  sample small_set() {
    sample s;
    std::string text;
    model text_ref;  // what the text alone holds, to check parse() before the union hides bugs
    size_t pieces = below(7);
    for (size_t i = 0; i < pieces; ++i) {
      const auto& uuid = uuids[below(uuids.size())];
      const auto& tag = tags[below(tags.size())];
      uint64_t first = 1 + below(30);
      uint64_t last = first + below(5);
      bool via_add = coin();
      for (uint64_t n = first; n <= last; ++n) {
        s.ref.emplace(uuid, tag, n);
        if (!via_add) text_ref.emplace(uuid, tag, n);
      }
      if (via_add) {
        s.set.add(random_case(uuid), random_case(tag), first, last);
        continue;
      }
      if (!text.empty()) text += random_space() + "," + random_space();
      text += random_case(uuid) + random_space() + ":";
      if (!tag.empty()) text += random_space() + random_case(tag) + random_space() + ":";
      text += random_space() + std::to_string(first);
      if (last != first || coin()) text += random_space() + "-" + random_space() + std::to_string(last);
      // Sometimes a second interval for the same tag in the same element.
      if (coin()) {
        uint64_t extra = 1 + below(30);
        text += ":" + std::to_string(extra);
        s.ref.emplace(uuid, tag, extra);
        text_ref.emplace(uuid, tag, extra);
      }
    }
    br::gtid_parse_error err;
    auto parsed = gtid_set::parse(random_space() + text + random_space(), &err);
    BOOST_REQUIRE_MESSAGE(parsed.has_value(), "generated text failed: [" << text << "] " << err.to_string());
    BOOST_TEST(well_formed(*parsed));
    BOOST_TEST((to_model(*parsed) == text_ref));
    BOOST_TEST(well_formed(s.set));
    s.set = s.set.unite(*parsed);
    return s;
  }

  // A random set whose endpoints cluster at the bottom, the middle and the top of the GNO
  // range, so huge intervals and the max_gno boundary get exercised.
  gtid_set large_set() {
    static const uint64_t anchors[] = {1, uint64_t{1} << 62, gtid_set::max_gno - 40};
    gtid_set s;
    size_t pieces = below(6);
    for (size_t i = 0; i < pieces; ++i) {
      uint64_t first = anchors[below(3)] + below(20);
      uint64_t last = coin() ? first + below(20) : anchors[below(3)] + 40;
      if (last > gtid_set::max_gno) last = gtid_set::max_gno;
      if (last < first) std::swap(first, last);
      s.add(uuids[below(2)], tags[below(2)], first, last);
    }
    return s;
  }

 private:
  std::mt19937_64 rng_;
};

model to_model(const gtid_set& s) {
  model m;
  for (const auto& [key, list] : s.streams())
    for (const auto& [first, last] : list)
      for (uint64_t n = first; n <= last; ++n) m.emplace(key.first, key.second, n);
  return m;
}

// Independent formatter working from the per-transaction model, following the server rules
// (uuid ascending, untagged runs first, then tags ascending, "n" for single transactions).
std::string format_model(const model& m, const std::string& sep) {
  std::map<std::string, std::map<std::string, std::vector<uint64_t>>> grouped;
  for (const auto& [uuid, tag, n] : m) grouped[uuid][tag].push_back(n);
  std::string out;
  for (const auto& [uuid, by_tag] : grouped) {
    if (!out.empty()) out += sep;
    out += uuid;
    for (const auto& [tag, numbers] : by_tag) {
      if (!tag.empty()) out += ":" + tag;
      for (size_t i = 0; i < numbers.size();) {
        size_t j = i;
        while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
        out += ":" + std::to_string(numbers[i]);
        if (j != i) out += "-" + std::to_string(numbers[j]);
        i = j + 1;
      }
    }
  }
  return out;
}

model model_union(const model& x, const model& y) {
  model r;
  std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::inserter(r, r.end()));
  return r;
}
model model_intersection(const model& x, const model& y) {
  model r;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::inserter(r, r.end()));
  return r;
}
model model_difference(const model& x, const model& y) {
  model r;
  std::set_difference(x.begin(), x.end(), y.begin(), y.end(), std::inserter(r, r.end()));
  return r;
}

// Exact transaction count in 128 bits, to check count()'s saturation independently.
unsigned __int128 exact_count(const gtid_set& s) {
  unsigned __int128 total = 0;
  for (const auto& [key, list] : s.streams())
    for (const auto& [first, last] : list) total += static_cast<unsigned __int128>(last - first) + 1;
  return total;
}

uint64_t saturate(unsigned __int128 v) {
  return v > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(v);
}

// Structural invariant every set must keep: non-empty streams of sorted, disjoint,
// non-adjacent intervals inside [1, max_gno].
bool well_formed(const gtid_set& s) {
  for (const auto& [key, list] : s.streams()) {
    if (list.empty()) return false;
    for (size_t i = 0; i < list.size(); ++i) {
      if (list[i].first < 1 || list[i].first > list[i].second || list[i].second > gtid_set::max_gno)
        return false;
      if (i > 0 && list[i].first <= list[i - 1].second + 1) return false;
    }
  }
  return true;
}

void check_laws(const gtid_set& x, const gtid_set& y, const gtid_set& z) {
  auto u = x.unite(y);
  auto i = x.intersect(y);
  auto d = x.subtract(y);
  BOOST_TEST(well_formed(u));
  BOOST_TEST(well_formed(i));
  BOOST_TEST(well_formed(d));
  BOOST_TEST(u == y.unite(x));
  BOOST_TEST(i == y.intersect(x));
  BOOST_TEST(x.unite(y).unite(z) == x.unite(y.unite(z)));
  BOOST_TEST(x.intersect(y).intersect(z) == x.intersect(y.intersect(z)));
  BOOST_TEST(x.intersect(y.unite(z)) == i.unite(x.intersect(z)));  // distributivity
  BOOST_TEST(d.intersect(y).empty());
  BOOST_TEST(d.unite(i) == x);
  BOOST_TEST((exact_count(u) == exact_count(x) + exact_count(y) - exact_count(i)));
  BOOST_TEST(u.count() == saturate(exact_count(u)));
  BOOST_TEST(u.contains(x));
  BOOST_TEST(u.contains(y));
  BOOST_TEST(x.contains(i));
  BOOST_TEST(x.contains(d));
  BOOST_TEST(x.contains(y) == y.subtract(x).empty());
  BOOST_TEST(y.contains(x) == x.subtract(y).empty());
  BOOST_TEST(x.subset_of(y) == y.contains(x));
  BOOST_TEST(x.contains(x));
  BOOST_TEST(x.subtract(x).empty());
  BOOST_TEST(x.unite(x) == x);
  BOOST_TEST(x.intersect(x) == x);
  BOOST_TEST(x.contains(gtid_set{}));
  BOOST_TEST(x.unite(gtid_set{}) == x);
  BOOST_TEST(x.intersect(gtid_set{}).empty());
  BOOST_TEST(gtid_set{}.contains(x) == x.empty());
  auto reparsed = gtid_set::parse(x.to_string());
  BOOST_REQUIRE(reparsed.has_value());
  BOOST_TEST(*reparsed == x);
  auto reparsed_compact = gtid_set::parse(x.to_compact_string());
  BOOST_REQUIRE(reparsed_compact.has_value());
  BOOST_TEST(*reparsed_compact == x);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gtid_set_laws)

BOOST_AUTO_TEST_CASE(small_sets_match_brute_force_model) {
  generator gen(20240611);
  for (int iter = 0; iter < 3000; ++iter) {
    auto x = gen.small_set();
    auto y = gen.small_set();
    BOOST_TEST_CONTEXT("iteration " << iter << " x=" << x.set.to_compact_string()
                                    << " y=" << y.set.to_compact_string()) {
      BOOST_TEST(well_formed(x.set));
      BOOST_TEST((to_model(x.set) == x.ref));
      BOOST_TEST(x.set.count() == x.ref.size());
      BOOST_TEST(x.set.empty() == x.ref.empty());
      BOOST_TEST(x.set.to_string() == format_model(x.ref, ",\n"));
      BOOST_TEST(x.set.to_compact_string() == format_model(x.ref, ","));
      BOOST_TEST((to_model(x.set.unite(y.set)) == model_union(x.ref, y.ref)));
      BOOST_TEST((to_model(x.set.intersect(y.set)) == model_intersection(x.ref, y.ref)));
      BOOST_TEST((to_model(x.set.subtract(y.set)) == model_difference(x.ref, y.ref)));
      BOOST_TEST(x.set.contains(y.set) == std::includes(x.ref.begin(), x.ref.end(), y.ref.begin(), y.ref.end()));
      auto z = gen.small_set();
      check_laws(x.set, y.set, z.set);
      // Subsets built from the model must be recognised as contained.
      auto sub = x.set.intersect(z.set);
      BOOST_TEST(x.set.contains(sub));
      BOOST_TEST(sub.subset_of(x.set));
    }
  }
}

BOOST_AUTO_TEST_CASE(large_sets_obey_the_laws) {
  generator gen(77);
  for (int iter = 0; iter < 3000; ++iter) {
    auto x = gen.large_set();
    auto y = gen.large_set();
    auto z = gen.large_set();
    BOOST_TEST_CONTEXT("iteration " << iter << " x=" << x.to_compact_string() << " y=" << y.to_compact_string()
                                    << " z=" << z.to_compact_string()) {
      BOOST_TEST(well_formed(x));
      BOOST_TEST(x.count() == saturate(exact_count(x)));
      check_laws(x, y, z);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
