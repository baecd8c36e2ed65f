// Table tests for judge_in_step() (docs/safety.md "Semi-synchronous replication"): judged once
// holding the primary's set after its last restart; lost on a restart or a new primary.
#include "actors/operator/decide/semisync_in_step.hpp"

#include <boost/test/unit_test.hpp>

namespace {

using namespace br;

const std::string u = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

gtid_set upto(uint64_t n) {
  gtid_set s;
  if (n > 0) s.add(u, "", 1, n);
  return s;
}

in_step_facts facts(uint64_t epoch, uint64_t primary, int64_t started, uint64_t uptime,
                    bool receiving, uint64_t received) {
  return {epoch, upto(primary), started, uptime, receiving, upto(received)};
}

in_step_facts unordered(in_step_facts f) {
  f.ordered = false;
  return f;
}

in_step_facts windowed(in_step_facts f, uint64_t window) {
  f.window_s = window;
  return f;
}

struct row {
  const char* name;
  in_step_record before;
  in_step_facts now;
  in_step_record expect;
};

BOOST_AUTO_TEST_SUITE(decisions_semisync_in_step)

BOOST_AUTO_TEST_CASE(table) {
  const in_step_record judged{true, 1000, 7};
  std::vector<row> rows = {
      {"never judged, holds the set", {}, facts(7, 10, 1000, 60, true, 10), {true, 1000, 7}},
      {"never judged, holds more (received ahead)", {}, facts(7, 10, 1000, 60, true, 12),
       {true, 1000, 7}},
      {"never judged, behind", {}, facts(7, 10, 1000, 60, true, 9), {false, 1000, 7}},
      {"never judged, not receiving", {}, facts(7, 10, 1000, 60, false, 10), {false, 1000, 7}},
      {"never judged, up for too short a time", {}, facts(7, 10, 1000, 4, true, 10),
       {false, 1000, 7}},
      {"never judged, up just long enough", {}, facts(7, 10, 1000, 5, true, 10), {true, 1000, 7}},
      {"in step stays in step while behind (lag loses nothing)", judged,
       facts(7, 20, 1000, 90, true, 15), judged},
      {"in step stays while its receiver is stopped", judged, facts(7, 20, 1000, 90, false, 15),
       judged},
      {"start instant within the tolerance: same start", judged, facts(7, 20, 1002, 90, true, 15),
       judged},
      {"restarted: out of step, judged again later", judged, facts(7, 20, 1003, 90, true, 15),
       {false, 1003, 7}},
      {"restarted and already caught up: in step again", judged, facts(7, 20, 1500, 30, true, 20),
       {true, 1500, 7}},
      {"new primary: judged again", judged, facts(8, 3, 1000, 90, true, 2), {false, 1000, 8}},
      {"new primary, holds its set", judged, facts(8, 3, 1000, 90, true, 3), {true, 1000, 8}},
      {"primary read after the replica's probe was sent: not judged",
       {}, unordered(facts(7, 10, 1000, 60, true, 10)), {false, 1000, 7}},
      {"uptime not longer than the read window: not judged", {},
       windowed(facts(7, 10, 1000, 6, true, 10), 6), {false, 1000, 7}},
      {"uptime longer than the read window: judged", {},
       windowed(facts(7, 10, 1000, 7, true, 10), 6), {true, 1000, 7}},
      {"an unordered read never undoes a judgement", judged,
       unordered(facts(7, 20, 1000, 90, true, 15)), judged},
  };
  for (auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto got = judge_in_step(r.before, r.now);
      BOOST_TEST(got.in_step == r.expect.in_step);
      BOOST_TEST(got.started_at == r.expect.started_at);
      BOOST_TEST(got.epoch == r.expect.epoch);
    }
  }
}

BOOST_AUTO_TEST_CASE(still_in_step_at_a_failover) {
  const in_step_record judged{true, 1000, 7};
  BOOST_TEST(still_in_step(judged, 1000, 7));
  BOOST_TEST(still_in_step(judged, 998, 7));
  BOOST_TEST(!still_in_step(judged, 1003, 7));  // restarted since the judgement
  BOOST_TEST(!still_in_step(judged, 1000, 6));  // judged against another primary
  BOOST_TEST(!still_in_step({false, 1000, 7}, 1000, 7));
}

BOOST_AUTO_TEST_CASE(window_rounds_up) {
  using namespace std::chrono;
  BOOST_TEST(window_seconds(caf::timespan{0}) == 0u);
  BOOST_TEST(window_seconds(-seconds(3)) == 0u);
  BOOST_TEST(window_seconds(milliseconds(1)) == 1u);
  BOOST_TEST(window_seconds(seconds(2)) == 2u);
  BOOST_TEST(window_seconds(milliseconds(2001)) == 3u);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
