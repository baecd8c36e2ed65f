// Table tests for evaluate(): the two-site table row by row, then N-site cases with three
// candidates, a dr-only site and a reader.
#include "actors/operator/decide/evaluate.hpp"

#include <boost/test/unit_test.hpp>
#include <vector>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace br::test;
using S = site_state;
using V = group_verdict;

struct row {
  const char* name;
  std::vector<site_observation> sites;
  names priorities;
  V verdict;
  std::string reason;
  std::string message;  // exact; "" = do not check
  names candidates;
  names fence;
  names writable;
};

BOOST_AUTO_TEST_SUITE(decisions_evaluate)

BOOST_AUTO_TEST_CASE(seed_004_two_site_table) {
  const std::vector<row> rows = {
      {"writable / read-only: healthy",
       {cand("a", S::writable), cand("b", S::read_only)},
       {},
       V::healthy,
       "Healthy",
       "a is primary",
       {},
       {},
       {"a"}},
      {"unreachable / read-only: failover to b",
       {cand("a", S::unreachable), cand("b", S::read_only)},
       {},
       V::failover,
       "Degraded",
       "",
       {"b"},
       {},
       {}},
      {"read-only / unreachable: failover to a",
       {cand("a", S::read_only), cand("b", S::unreachable)},
       {},
       V::failover,
       "Degraded",
       "",
       {"a"},
       {},
       {}},
      {"writable / writable: split brain",
       {cand("a", S::writable), cand("b", S::writable)},
       {},
       V::split_brain,
       "SplitBrain",
       "SPLIT BRAIN: 2 sites are writable (a, b)",
       {},
       {},
       {"a", "b"}},
      {"read-only / read-only: no primary",
       {cand("a", S::read_only), cand("b", S::read_only)},
       {},
       V::no_primary,
       "NoPrimary",
       "NO PRIMARY: both sites are read-only",
       {},
       {},
       {}},
      {"unreachable / unreachable: total loss",
       {cand("a", S::unreachable), cand("b", S::unreachable)},
       {},
       V::total_loss,
       "TotalLoss",
       "TOTAL LOSS: all sites are unreachable",
       {},
       {},
       {}},
      // Not in the seed table, but the reference's degraded text for the two-site case.
      {"writable / unreachable: degraded",
       {cand("a", S::writable), cand("b", S::unreachable)},
       {},
       V::degraded,
       "Degraded",
       "b unreachable while a is primary",
       {},
       {},
       {"a"}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto e = evaluate(r.sites, r.priorities);
      BOOST_TEST(e.verdict == r.verdict);
      BOOST_TEST(e.reason == r.reason);
      if (!r.message.empty()) BOOST_TEST(e.message == r.message);
      BOOST_TEST(e.candidates == r.candidates, boost::test_tools::per_element());
      BOOST_TEST(e.fence == r.fence, boost::test_tools::per_element());
      BOOST_TEST(e.writable == r.writable, boost::test_tools::per_element());
    }
  }
}

// Three candidates a, b, c; dr-only d; reader r.
std::vector<site_observation> group(S a, S b, S c, S d, S r) {
  return {cand("a", a), cand("b", b), cand("c", c), dr("d", d), reader("r", r)};
}

BOOST_AUTO_TEST_CASE(n_site_table) {
  const auto U = S::unreachable, RO = S::read_only, W = S::writable, K = S::unknown;
  const std::vector<row> rows = {
      {"healthy with every follower read-only",
       group(W, RO, RO, RO, RO),
       {},
       V::healthy,
       "Healthy",
       "a is primary",
       {},
       {},
       {"a"}},
      {"reader unreachable does not degrade health",
       group(W, RO, RO, RO, U),
       {},
       V::healthy,
       "Healthy",
       "a is primary",
       {},
       {},
       {"a"}},
      {"primary lost: candidates in declared order",
       group(U, RO, RO, RO, RO),
       {},
       V::failover,
       "Degraded",
       "FAILOVER: no writable site, a unreachable; promotion candidates: b, c",
       {"b", "c"},
       {},
       {}},
      {"primary lost: sitePriorities order first",
       group(U, RO, RO, RO, RO),
       {"c", "a"},
       V::failover,
       "Degraded",
       "",
       {"c", "b"},
       {},
       {}},
      {"dr-only site is never a candidate",
       group(U, U, RO, RO, RO),
       {"d"},
       V::failover,
       "Degraded",
       "",
       {"c"},
       {},
       {}},
      {"dr-only unreachable is an unreachable core site",
       group(RO, RO, RO, U, RO),
       {},
       V::failover,
       "Degraded",
       "",
       {"a", "b", "c"},
       {},
       {}},
      {"reader unreachable alone does not trigger failover",
       group(RO, RO, RO, RO, U),
       {},
       V::no_primary,
       "NoPrimary",
       "NO PRIMARY: all 4 sites are read-only",
       {},
       {},
       {}},
      {"no read-only candidate left",
       group(U, U, U, RO, RO),
       {},
       V::no_primary,
       "NoPrimary",
       "NO PRIMARY: no writable site available",
       {},
       {},
       {}},
      {"every core site unreachable, reader alive: total loss",
       group(U, U, U, U, RO),
       {},
       V::total_loss,
       "TotalLoss",
       "TOTAL LOSS: all sites are unreachable",
       {},
       {},
       {}},
      {"three writable candidates",
       group(W, W, W, RO, RO),
       {},
       V::split_brain,
       "SplitBrain",
       "SPLIT BRAIN: 3 sites are writable (a, b, c)",
       {},
       {},
       {"a", "b", "c"}},
      {"two writable of three",
       group(RO, W, W, RO, RO),
       {},
       V::split_brain,
       "SplitBrain",
       "SPLIT BRAIN: 2 sites are writable (b, c)",
       {},
       {},
       {"b", "c"}},
      {"writable reader is fenced even as the only writable site",
       group(RO, RO, RO, RO, W),
       {},
       V::fence,
       "Degraded",
       "fencing writable non-candidate site(s): r (read-only); no "
       "promotion this cycle",
       {},
       {"r"},
       {"r"}},
      {"writable dr-only beside the primary is fenced",
       group(W, RO, RO, W, RO),
       {},
       V::fence,
       "Degraded",
       "",
       {},
       {"d"},
       {"a", "d"}},
      {"writable dr-only while the primary is lost: fence, no promotion this cycle",
       group(U, RO, RO, W, RO),
       {},
       V::fence,
       "Degraded",
       "",
       {},
       {"d"},
       {"d"}},
      {"writable dr-only and reader during a split brain: fence first",
       group(W, W, RO, W, W),
       {},
       V::fence,
       "Degraded",
       "",
       {},
       {"d", "r"},
       {"a", "b", "d", "r"}},
      {"several unreachable while a primary serves",
       group(W, U, U, RO, U),
       {},
       V::degraded,
       "Degraded",
       "b, c unreachable while a is primary",
       {},
       {},
       {"a"}},
      {"dr-only unreachable while a primary serves",
       group(RO, W, RO, U, RO),
       {},
       V::degraded,
       "Degraded",
       "d unreachable while b is primary",
       {},
       {},
       {"b"}},
      {"unknown core site blocks failover",
       group(U, RO, K, RO, RO),
       {},
       V::degraded,
       "Degraded",
       "no writable site; waiting for a conclusive poll of c before any automatic "
       "action",
       {},
       {},
       {}},
      {"unknown dr-only blocks failover",
       group(U, RO, RO, K, RO),
       {},
       V::degraded,
       "Degraded",
       "",
       {},
       {},
       {}},
      {"unknown reader does not block failover",
       group(U, RO, RO, RO, K),
       {},
       V::failover,
       "Degraded",
       "",
       {"b", "c"},
       {},
       {}},
      {"unknown core site while a primary serves",
       group(W, K, RO, RO, RO),
       {},
       V::degraded,
       "Degraded",
       "b state unknown while a is primary",
       {},
       {},
       {"a"}},
      {"all core unknown (operator start)",
       group(K, K, K, K, K),
       {},
       V::degraded,
       "Degraded",
       "",
       {},
       {},
       {}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto e = evaluate(r.sites, r.priorities);
      BOOST_TEST(e.verdict == r.verdict);
      BOOST_TEST(e.reason == r.reason);
      if (!r.message.empty()) BOOST_TEST(e.message == r.message);
      BOOST_TEST(e.candidates == r.candidates, boost::test_tools::per_element());
      BOOST_TEST(e.fence == r.fence, boost::test_tools::per_element());
      BOOST_TEST(e.writable == r.writable, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(s1_no_failover_while_any_site_is_writable) {
  // Whatever the other states, a writable site anywhere means no failover verdict.
  const S states[] = {S::unknown, S::writable, S::read_only, S::unreachable};
  for (auto a : states)
    for (auto b : states)
      for (auto c : states)
        for (auto d : states)
          for (auto r : states) {
            auto e = evaluate(group(a, b, c, d, r), {});
            bool any_writable = a == S::writable || b == S::writable || c == S::writable ||
                                d == S::writable || r == S::writable;
            if (e.verdict == V::failover) {
              BOOST_TEST_CONTEXT("states " << int(a) << int(b) << int(c) << int(d) << int(r)) {
                BOOST_TEST(!any_writable);
                BOOST_TEST(!e.candidates.empty());
                for (const auto& n : e.candidates) BOOST_TEST((n == "a" || n == "b" || n == "c"));
              }
            }
          }
}

BOOST_AUTO_TEST_CASE(unreachable_lists_core_sites_only) {
  auto e =
      evaluate(group(S::writable, S::unreachable, S::read_only, S::read_only, S::unreachable), {});
  BOOST_TEST(e.unreachable == names({"b"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
