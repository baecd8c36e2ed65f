// Table tests for resolve_split_brain(): the three tiers, priority fallbacks, cooldown.
#include "actors/operator/decide/split_brain.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace br::test;
using S = site_state;
using T = split_brain_tier;

BOOST_AUTO_TEST_SUITE(decisions_split_brain)

struct row {
  const char* name;
  std::vector<site_observation> sites;
  std::string last_target;
  names priorities;
  bool cooldown_allows;
  T tier;
  std::string winner;
  names fence;
  bool repromote;
  bool deferred;
};

BOOST_AUTO_TEST_CASE(tiers_table) {
  const auto W = S::writable, RO = S::read_only;
  const std::vector<row> rows = {
      {"tier 1: history, two sites",
       {cand("a", W), cand("b", W)},
       "b",
       {},
       true,
       T::history,
       "b",
       {"a"},
       false,
       false},
      {"tier 1: history wins over priorities",
       {cand("a", W), cand("b", W)},
       "b",
       {"a"},
       true,
       T::history,
       "b",
       {"a"},
       false,
       false},
      {"tier 1: regardless of cooldown",
       {cand("a", W), cand("b", W)},
       "b",
       {"a"},
       false,
       T::history,
       "b",
       {"a"},
       false,
       false},
      {"tier 1: fences every other writer",
       {cand("a", W), cand("b", W), cand("c", W), cand("e", RO)},
       "b",
       {},
       true,
       T::history,
       "b",
       {"a", "c"},
       false,
       false},
      {"history names a site that is not writable: alert",
       {cand("a", W), cand("b", RO), cand("c", W)},
       "b",
       {"a"},
       true,
       T::alert,
       "",
       {},
       false,
       false},
      {"history names an unknown site: alert",
       {cand("a", W), cand("b", W)},
       "gone",
       {"a"},
       true,
       T::alert,
       "",
       {},
       false,
       false},
      {"tier 2: first priority entry",
       {cand("a", W), cand("b", W)},
       "",
       {"b", "a"},
       true,
       T::priority,
       "b",
       {"a"},
       true,
       false},
      {"tier 2: first entry not writable, second wins",
       {cand("a", W), cand("b", W), cand("c", RO)},
       "",
       {"c", "b"},
       true,
       T::priority,
       "b",
       {"a"},
       true,
       false},
      {"tier 2: dr-only entry is skipped",
       {cand("a", W), cand("b", W), dr("d", W)},
       "",
       {"d", "a"},
       true,
       T::priority,
       "a",
       {"b", "d"},
       true,
       false},
      {"tier 2: cooldown defers re-promotion, losers still fenced",
       {cand("a", W), cand("b", W)},
       "",
       {"a"},
       false,
       T::priority,
       "a",
       {"b"},
       false,
       true},
      {"tier 2: no entry matches -> alert, never declared order",
       {cand("a", W), cand("b", W), cand("c", RO)},
       "",
       {"c"},
       true,
       T::alert,
       "",
       {},
       false,
       false},
      {"tier 3: no history, no priorities",
       {cand("a", W), cand("b", W)},
       "",
       {},
       true,
       T::alert,
       "",
       {},
       false,
       false},
      {"not a split brain",
       {cand("a", W), cand("b", RO)},
       "",
       {"a"},
       true,
       T::alert,
       "",
       {},
       false,
       false},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto d = resolve_split_brain(r.sites, r.last_target, r.priorities, r.cooldown_allows);
      BOOST_TEST(d.tier == r.tier);
      BOOST_TEST(d.winner == r.winner);
      BOOST_TEST(d.fence == r.fence, boost::test_tools::per_element());
      BOOST_TEST(d.repromote == r.repromote);
      BOOST_TEST(d.repromote_deferred == r.deferred);
      BOOST_TEST(!d.message.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(s1_winner_is_never_fenced_and_every_other_writer_is) {
  auto d = resolve_split_brain(
      {cand("a", S::writable), cand("b", S::writable), cand("c", S::writable)}, "", {"c"}, true);
  BOOST_TEST(d.winner == "c");
  BOOST_TEST(d.fence == names({"a", "b"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(alert_message_names_the_writers) {
  auto d = resolve_split_brain({cand("a", S::writable), cand("b", S::writable)}, "", {}, true);
  BOOST_TEST(d.message.rfind("SPLIT BRAIN: 2 sites are writable (a, b)", 0) == 0u);
  BOOST_TEST(d.message.find("alert only") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
