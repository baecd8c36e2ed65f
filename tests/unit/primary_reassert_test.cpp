// Table tests for decide_primary_reassert().
#include "actors/operator/decide/primary_reassert.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <functional>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace br::test;
using namespace std::chrono_literals;
using S = site_state;
using R = reassert_verdict;

const std::string A = uuid_a;
const std::string B = uuid_b;
const wall_time t0{std::chrono::seconds(1'700'000'000)};

// b was promoted at A:1-10; since then it took B:1-5; a and c replicated part of it.
reassert_input base() {
  reassert_input in;
  in.sites = {cand("a", S::read_only), cand("b", S::read_only), dr("c", S::read_only),
              reader("r", S::read_only)};
  in.gtid_executed = {{"a", gtids(A + ":1-10," + B + ":1-3")},
                      {"b", gtids(A + ":1-10," + B + ":1-5")},
                      {"c", gtids(A + ":1-10")},
                      {"r", gtids(A + ":1-10")}};
  in.last_failover_target = "b";
  in.promotion_gtid_executed = A + ":1-10";
  in.now = t0;
  in.failover_cooldown = 5min;
  return in;
}

BOOST_AUTO_TEST_SUITE(decisions_primary_reassert)

BOOST_AUTO_TEST_CASE(reassert_table) {
  struct row {
    const char* name;
    std::function<void(reassert_input&)> change;
    R verdict;
    std::string reason;  // substring
  };
  const std::vector<row> rows = {
      {"all read-only, target holds everything", [](auto&) {}, R::reassert, "clearing its fence"},
      {"server-form promotion GTID with newline",
       [](auto& in) { in.promotion_gtid_executed = A + ":1-10,\n" + B + ":1"; }, R::reassert, ""},
      {"no failover history", [](auto& in) { in.last_failover_target = ""; }, R::not_applicable,
       "no failover history"},
      {"target not configured", [](auto& in) { in.last_failover_target = "x"; }, R::not_applicable,
       "not a configured site"},
      {"target is dr-only", [](auto& in) { in.last_failover_target = "c"; }, R::not_applicable,
       "not a primary-candidate"},
      {"a site is writable", [](auto& in) { in.sites[0].state = S::writable; }, R::not_applicable,
       "a is writable"},
      {"a core site is unreachable", [](auto& in) { in.sites[2].state = S::unreachable; },
       R::not_applicable, "c is unreachable"},
      {"a core site is unknown", [](auto& in) { in.sites[0].state = S::unknown; },
       R::not_applicable, "a is unknown"},
      {"the target itself is unreachable", [](auto& in) { in.sites[1].state = S::unreachable; },
       R::not_applicable, "b is unreachable"},
      {"a writable reader", [](auto& in) { in.sites[3].state = S::writable; }, R::not_applicable,
       "r is writable"},
      {"an unreachable reader is ignored", [](auto& in) { in.sites[3].state = S::unreachable; },
       R::reassert, ""},
      {"a reader's extra transactions are ignored",
       [](auto& in) { in.gtid_executed["r"] = gtids(A + ":1-11"); }, R::reassert, ""},
      {"unparsable promotion GTID", [](auto& in) { in.promotion_gtid_executed = "not-a-gtid:1"; },
       R::refused, "cannot be parsed"},
      {"lineage mismatch", [](auto& in) { in.promotion_gtid_executed = A + ":1-12"; }, R::refused,
       "lineage mismatch: b lacks 2 transaction(s)"},
      {"peer divergence",
       [](auto& in) { in.gtid_executed["a"] = gtids(A + ":1-10," + B + ":1-7"); }, R::refused,
       "peer divergence: a has 2 transaction(s) b lacks"},
      {"dr-only peer divergence", [](auto& in) { in.gtid_executed["c"] = gtids(A + ":1-11"); },
       R::refused, "peer divergence: c has 1"},
      {"target set unknown", [](auto& in) { in.gtid_executed.erase("b"); }, R::refused,
       "gtid_executed of b is unknown"},
      {"peer set unknown", [](auto& in) { in.gtid_executed.erase("c"); }, R::refused,
       "gtid_executed of c is unknown"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto in = base();
      r.change(in);
      auto d = decide_primary_reassert(in);
      BOOST_TEST(d.verdict == r.verdict);
      BOOST_TEST(d.reason.find(r.reason) != std::string::npos, "reason was: " << d.reason);
      if (d.verdict == R::reassert) BOOST_TEST(d.site == "b");
    }
  }
}

BOOST_AUTO_TEST_CASE(rate_limit_boundaries) {
  auto in = base();
  in.last_reassert = t0 - 5min + 1ns;
  auto d = decide_primary_reassert(in);
  BOOST_TEST(d.verdict == R::rate_limited);
  BOOST_TEST(d.retry_in.count() == 1);
  in.last_reassert = t0 - 5min;  // exactly one cooldown ago
  BOOST_TEST(decide_primary_reassert(in).verdict == R::reassert);
  in.last_reassert = t0;
  d = decide_primary_reassert(in);
  BOOST_TEST(d.verdict == R::rate_limited);
  BOOST_TEST(d.retry_in.count() == caf::timespan{5min}.count());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
