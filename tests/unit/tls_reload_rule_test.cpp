// The sidecar's certificate reload rule (issue 26): one row per rule, in the rule's order.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>

#include "actors/sidecar/runtime/tls_reload_rule.hpp"

using namespace br::sidecar;
using br::fs::file_stamp;

BOOST_AUTO_TEST_SUITE(tls_reload_rule)

BOOST_AUTO_TEST_CASE(rules_in_order) {
  const file_stamp a{100, 10}, b{200, 12}, c{300, 12}, gone{};
  using v = std::vector<file_stamp>;
  struct row {
    const char* name;
    v loaded, previous, now;
    tls_reload_action want;
  };
  const row rows[] = {
      {"unchanged", {a, a}, {a, a}, {a, a}, tls_reload_action::none},
      {"a file missing (mid-swap)", {a, a}, {a, a}, {a, gone}, tls_reload_action::settle},
      {"missing even when it was so at the load", {gone}, {gone}, {gone}, tls_reload_action::settle},
      {"just changed: settle one tick", {a, a}, {a, a}, {b, a}, tls_reload_action::settle},
      {"still changing", {a, a}, {b, a}, {c, a}, tls_reload_action::settle},
      {"changed and settled: reload", {a, a}, {b, a}, {b, a}, tls_reload_action::reload},
      {"changed back to what was loaded", {a, a}, {b, a}, {a, a}, tls_reload_action::none},
      {"reload failed last tick: again", {a, a}, {b, b}, {b, b}, tls_reload_action::reload},
      {"same size, new mtime", {a}, {file_stamp{101, 10}}, {file_stamp{101, 10}},
       tls_reload_action::reload},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST(to_string(decide_tls_reload(r.loaded, r.previous, r.now)) == to_string(r.want));
    }
}

BOOST_AUTO_TEST_CASE(the_reload_trusts_the_old_ca_while_the_ca_changes) {
  using br::sidecar::reload_trust;
  struct row {
    const char* name;
    std::string current, trusted, want;
  };
  const std::vector<row> rows = {
      {"unchanged: the file alone", "CA1\n", "CA1\n", "CA1\n"},
      {"nothing trusted yet: the file alone", "CA1\n", "", "CA1\n"},
      {"a new CA: the new one first, then the one the served certificate chains to", "CA2\n",
       "CA1\n", "CA2\nCA1\n"},
      {"no newline at the end of the new file", "CA2", "CA1\n", "CA2\nCA1\n"},
      {"file unreadable: the trusted one", "", "CA1\n", "CA1\n"},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.name) { BOOST_TEST(reload_trust(r.current, r.trusted) == r.want); }
}

BOOST_AUTO_TEST_CASE(stamps_follow_the_file) {
  auto path = std::string{"/tmp/br-tls-stamp-"} + std::to_string(::getpid());
  BOOST_TEST(br::fs::stamp_of(path).missing());
  {
    FILE* f = std::fopen(path.c_str(), "w");
    BOOST_TEST_REQUIRE(f != nullptr);
    std::fputs("abc", f);
    std::fclose(f);
  }
  auto s = br::fs::stamp_of(path);
  BOOST_TEST(s.size == 3);
  BOOST_TEST(br::fs::stamps_of({path, path + ".none"}) == (std::vector<file_stamp>{s, file_stamp{}}));
  std::remove(path.c_str());
}

BOOST_AUTO_TEST_SUITE_END()
