// Table tests for rank_candidates(): containment first, then sitePriorities, then declared order;
// incomparable best candidates are reported, never picked.
#include "actors/operator/decide/rank_candidates.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace br::test;

candidate_gtid c(std::string name, const std::string& text) {
  return candidate_gtid{std::move(name), gtids(text)};
}

const std::string A = uuid_a;
const std::string B = uuid_b;

BOOST_AUTO_TEST_SUITE(decisions_rank_candidates)

BOOST_AUTO_TEST_CASE(s3_strict_superset_beats_priority) {
  // b is ahead by 2 transactions; priorities prefer a, but a would lose 6-7.
  auto r = rank_candidates({c("a", A + ":1-5"), c("b", A + ":1-7")}, {"a"});
  BOOST_TEST(r.winner == "b");
  BOOST_TEST(!r.incomparable);
  BOOST_TEST(r.order == names({"b", "a"}), boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(r.behind.size() == 1u);
  BOOST_TEST(r.behind[0].name == "a");
  BOOST_TEST(r.behind[0].missing_count == 2u);
  BOOST_TEST(r.behind[0].missing == gtids(A + ":6-7"));
}

BOOST_AUTO_TEST_CASE(equal_sets_table) {
  struct row {
    const char* name;
    names priorities;
    names order;
  };
  const std::vector<row> rows = {
      {"no priorities: declared order", {}, {"a", "b", "c"}},
      {"priority names one site", {"b"}, {"b", "a", "c"}},
      {"priority names two sites", {"c", "b"}, {"c", "b", "a"}},
      {"priority entry that is not a candidate is skipped", {"zz", "c"}, {"c", "a", "b"}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto k = rank_candidates({c("a", A + ":1-9"), c("b", A + ":1-9"), c("c", A + ":1-9")},
                               r.priorities);
      BOOST_TEST(k.order == r.order, boost::test_tools::per_element());
      BOOST_TEST(k.winner == r.order.front());
      BOOST_TEST(k.behind.empty());
      BOOST_TEST(!k.incomparable);
    }
  }
}

BOOST_AUTO_TEST_CASE(containment_chain_then_priorities) {
  // a ⊂ b = c ; d ⊂ a. Priorities prefer d then c.
  auto r = rank_candidates(
      {c("a", A + ":1-5"), c("b", A + ":1-8"), c("c", A + ":1-8"), c("d", A + ":1-2")}, {"d", "c"});
  BOOST_TEST(r.order == names({"c", "b", "a", "d"}), boost::test_tools::per_element());
  BOOST_TEST(r.winner == "c");
  BOOST_TEST_REQUIRE(r.behind.size() == 2u);
  BOOST_TEST(r.behind[0].name == "a");
  BOOST_TEST(r.behind[0].missing_count == 3u);
  BOOST_TEST(r.behind[1].name == "d");
  BOOST_TEST(r.behind[1].missing_count == 6u);
}

BOOST_AUTO_TEST_CASE(s3_incomparable_best_candidates_are_reported_not_picked) {
  // a has A:5 that b lacks, b has B:1 that a lacks.
  auto r =
      rank_candidates({c("a", A + ":1-5"), c("b", A + ":1-4," + B + ":1"), c("c", A + ":1-3")}, {});
  BOOST_TEST(r.incomparable);
  BOOST_TEST(!r.has_winner());
  BOOST_TEST(r.winner.empty());
  BOOST_TEST(r.incomparable_a == "a");
  BOOST_TEST(r.incomparable_b == "b");
  BOOST_TEST(r.a_only == gtids(A + ":5"));
  BOOST_TEST(r.b_only == gtids(B + ":1"));
  BOOST_TEST(r.behind.empty());
  BOOST_TEST(r.message.find("incomparable") != std::string::npos);
  // The order still never puts c (contained in both) above either of them.
  BOOST_TEST(r.order.back() == "c");
}

BOOST_AUTO_TEST_CASE(incomparable_pair_follows_priorities) {
  auto r = rank_candidates({c("a", A + ":1-5"), c("b", A + ":1-4," + B + ":1")}, {"b"});
  BOOST_TEST(r.incomparable);
  BOOST_TEST(r.incomparable_a == "b");
  BOOST_TEST(r.incomparable_b == "a");
  BOOST_TEST(r.a_only == gtids(B + ":1"));
}

BOOST_AUTO_TEST_CASE(incomparable_below_a_superset_is_fine) {
  // b and c are incomparable, but a contains both: a wins.
  auto r = rank_candidates(
      {c("b", A + ":1-5"), c("c", B + ":1-2"), c("a", A + ":1-10," + B + ":1-2")}, {"b"});
  BOOST_TEST(!r.incomparable);
  BOOST_TEST(r.winner == "a");
  BOOST_TEST(r.order == names({"a", "b", "c"}), boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(r.behind.size() == 2u);
  BOOST_TEST(r.behind[0].missing_count == 7u);   // b lacks A:6-10 and B:1-2
  BOOST_TEST(r.behind[1].missing_count == 10u);  // c lacks A:1-10
}

BOOST_AUTO_TEST_CASE(single_and_empty) {
  auto one = rank_candidates({c("a", "")}, {});
  BOOST_TEST(one.winner == "a");
  BOOST_TEST(one.behind.empty());
  auto none = rank_candidates({}, {"a"});
  BOOST_TEST(!none.has_winner());
  BOOST_TEST(!none.incomparable);
  BOOST_TEST(none.order.empty());
}

BOOST_AUTO_TEST_CASE(empty_set_is_contained_in_every_set) {
  auto r = rank_candidates({c("fresh", ""), c("b", A + ":1")}, {"fresh"});
  BOOST_TEST(r.winner == "b");
  BOOST_TEST_REQUIRE(r.behind.size() == 1u);
  BOOST_TEST(r.behind[0].name == "fresh");
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
