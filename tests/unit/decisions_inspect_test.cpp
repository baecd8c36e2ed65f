// The decision value types travel in CAF 0.17 messages: binary round trips and stringification.
#include <boost/test/unit_test.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>
#include <chrono>
#include <vector>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace br::test;
using namespace std::chrono_literals;

template <class T>
T round_trip(T value) {
  std::vector<char> buf;
  caf::binary_serializer sink{nullptr, buf};
  auto e1 = sink(value);
  BOOST_TEST_REQUIRE(!e1);
  T copy{};
  caf::binary_deserializer source{nullptr, buf};
  auto e2 = source(copy);
  BOOST_TEST_REQUIRE(!e2);
  return copy;
}

BOOST_AUTO_TEST_SUITE(decisions_inspect)

BOOST_AUTO_TEST_CASE(group_evaluation_round_trip) {
  group_evaluation e;
  e.verdict = group_verdict::split_brain;
  e.reason = "SplitBrain";
  e.message = "SPLIT BRAIN: 2 sites are writable (a, b)";
  e.writable = {"a", "b"};
  e.unreachable = {"c"};
  auto c = round_trip(e);
  BOOST_TEST(c.verdict == e.verdict);
  BOOST_TEST(c.message == e.message);
  BOOST_TEST(c.writable == e.writable, boost::test_tools::per_element());
  BOOST_TEST(c.unreachable == e.unreachable, boost::test_tools::per_element());
  BOOST_TEST(caf::deep_to_string(e).find("split_brain") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(merged_record_with_caf_optional_round_trip) {
  merged_failover_record m;
  m.record = failover_record{wall_time{std::chrono::seconds(1'700'000'000)}, "pdx"};
  m.source = record_source::annotation;
  m.warnings = {"restored"};
  auto c = round_trip(m);
  BOOST_TEST_REQUIRE(static_cast<bool>(c.record));
  BOOST_TEST((*c.record == *m.record));
  BOOST_TEST(c.source == record_source::annotation);
  merged_failover_record empty;
  BOOST_TEST(!round_trip(empty).record);
}

BOOST_AUTO_TEST_CASE(ranking_with_gtid_sets_round_trip) {
  candidate_ranking r;
  r.order = {"b", "a"};
  r.winner = "b";
  r.behind.push_back(candidate_gap{"a", gtids(uuid_a + ":6-7"), 2});
  r.a_only = gtids(uuid_b + ":1");
  auto c = round_trip(r);
  BOOST_TEST(c.winner == "b");
  BOOST_TEST_REQUIRE(c.behind.size() == 1u);
  BOOST_TEST(c.behind[0].missing == gtids(uuid_a + ":6-7"));
  BOOST_TEST(c.a_only == r.a_only);
}

BOOST_AUTO_TEST_CASE(gate_and_other_decisions_round_trip) {
  gate_decision g;
  g.verdict = gate_verdict::wait;
  g.until = mono_time{} + 41500ms;
  g.missing_acks = {"c"};
  auto gc = round_trip(g);
  BOOST_TEST((gc.until == g.until));
  BOOST_TEST(gc.missing_acks == g.missing_acks, boost::test_tools::per_element());

  debounce_step s{
      {site_state::unreachable, 3, 0}, true, site_state::writable, site_state::unreachable};
  auto sc = round_trip(s);
  BOOST_TEST((sc.next == s.next));
  BOOST_TEST(sc.from == site_state::writable);

  reclone_validation v{true, "pdx", reclone_kind::divergent_prefix, ""};
  BOOST_TEST(round_trip(v).kind == reclone_kind::divergent_prefix);

  reassert_decision d{reassert_verdict::rate_limited, "b", "rate", 5s};
  BOOST_TEST(round_trip(d).retry_in.count() == caf::timespan{5s}.count());

  recovery_classification rc{recovery_kind::divergent, gtids(uuid_a + ":8-10"), uuid_a + ":8-10",
                             3};
  BOOST_TEST(round_trip(rc).divergent_count == 3u);

  split_brain_resolution sb{split_brain_tier::priority, "a", {"b"}, true, false, "m"};
  BOOST_TEST(round_trip(sb).fence == names({"b"}), boost::test_tools::per_element());

  site_observation o{"a", site_role::dr_only, site_state::read_only};
  BOOST_TEST(round_trip(o).role == site_role::dr_only);

  cooldown_status cs{false, 3min};
  BOOST_TEST(round_trip(cs).remaining.count() == caf::timespan{3min}.count());
  BOOST_TEST(!caf::deep_to_string(g).empty());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
