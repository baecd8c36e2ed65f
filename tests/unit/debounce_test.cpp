// Table tests for debounce(): state machine, counters on every input, thresholds.
#include "actors/operator/decide/debounce.hpp"

#include <boost/test/unit_test.hpp>
#include <limits>
#include <vector>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using P = poll_result;
using S = site_state;

struct row {
  const char* name;
  S start;
  std::vector<P> polls;
  S expected;
  uint32_t failures;
  uint32_t writable;
  int transitions;  // how many polls changed the state
};

// Seed defaults: failureThreshold 3, recoveryThreshold 2.
const std::vector<row> seed_rows = {
    {"unknown: 2 failures stay unknown", S::unknown, {P::failed, P::failed}, S::unknown, 2, 0, 0},
    {"unknown: 3 failures -> unreachable",
     S::unknown,
     {P::failed, P::failed, P::failed},
     S::unreachable,
     3,
     0,
     1},
    {"writable: 2 failures keep writable",
     S::writable,
     {P::failed, P::failed},
     S::writable,
     2,
     0,
     0},
    {"writable: 3 failures -> unreachable",
     S::writable,
     {P::failed, P::failed, P::failed},
     S::unreachable,
     3,
     0,
     1},
    {"unreachable: more failures keep counting",
     S::unreachable,
     {P::failed, P::failed},
     S::unreachable,
     2,
     0,
     0},
    {"unknown: one read_only poll -> read-only", S::unknown, {P::read_only}, S::read_only, 0, 0, 1},
    {"writable: one read_only poll -> read-only",
     S::writable,
     {P::read_only},
     S::read_only,
     0,
     0,
     1},
    {"unreachable: one read_only poll -> read-only",
     S::unreachable,
     {P::read_only},
     S::read_only,
     0,
     0,
     1},
    {"unknown: 1 writable poll stays unknown", S::unknown, {P::writable}, S::unknown, 0, 1, 0},
    {"unknown: 2 writable polls -> writable",
     S::unknown,
     {P::writable, P::writable},
     S::writable,
     0,
     2,
     1},
    {"read-only: 1 writable poll stays read-only",
     S::read_only,
     {P::writable},
     S::read_only,
     0,
     1,
     0},
    {"read-only: 2 writable polls -> writable",
     S::read_only,
     {P::writable, P::writable},
     S::writable,
     0,
     2,
     1},
    {"unreachable: 1 writable poll stays unreachable",
     S::unreachable,
     {P::writable},
     S::unreachable,
     0,
     1,
     0},
    {"unreachable: 2 writable polls -> writable",
     S::unreachable,
     {P::writable, P::writable},
     S::writable,
     0,
     2,
     1},
    {"failure breaks the writable streak",
     S::read_only,
     {P::writable, P::failed, P::writable},
     S::read_only,
     0,
     1,
     0},
    {"read_only poll breaks the writable streak",
     S::read_only,
     {P::writable, P::read_only, P::writable},
     S::read_only,
     0,
     1,
     0},
    {"writable poll breaks the failure streak",
     S::writable,
     {P::failed, P::failed, P::writable, P::failed, P::failed},
     S::writable,
     2,
     0,
     0},
    {"read_only poll breaks the failure streak",
     S::read_only,
     {P::failed, P::failed, P::read_only, P::failed, P::failed},
     S::read_only,
     2,
     0,
     0},
    {"flapping primary: failure streak from writable then recovery",
     S::writable,
     {P::failed, P::failed, P::failed, P::writable, P::writable},
     S::writable,
     0,
     2,
     2},
    {"writable streak continues while writable",
     S::writable,
     {P::writable, P::writable, P::writable},
     S::writable,
     0,
     3,
     0},
};

BOOST_AUTO_TEST_SUITE(decisions_debounce)

BOOST_AUTO_TEST_CASE(seed_004_state_machine_table) {
  for (const auto& r : seed_rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      debounce_state st{r.start, 0, 0};
      int transitions = 0;
      for (auto p : r.polls) {
        auto step = debounce(st, p, 3, 2);
        BOOST_TEST(step.from == st.state);
        BOOST_TEST(step.to == step.next.state);
        BOOST_TEST(step.transitioned == (step.from != step.to));
        transitions += step.transitioned ? 1 : 0;
        st = step.next;
      }
      BOOST_TEST(st.state == r.expected);
      BOOST_TEST(st.consecutive_failures == r.failures);
      BOOST_TEST(st.consecutive_writable == r.writable);
      BOOST_TEST(transitions == r.transitions);
    }
  }
}

BOOST_AUTO_TEST_CASE(transition_reports_from_and_to) {
  auto step = debounce({S::writable, 2, 0}, P::failed, 3, 2);
  BOOST_TEST(step.transitioned);
  BOOST_TEST(step.from == S::writable);
  BOOST_TEST(step.to == S::unreachable);
  auto quiet = debounce({S::writable, 1, 0}, P::failed, 3, 2);
  BOOST_TEST(!quiet.transitioned);
  BOOST_TEST(quiet.from == S::writable);
  BOOST_TEST(quiet.to == S::writable);
}

BOOST_AUTO_TEST_CASE(s2_read_only_to_writable_never_on_a_single_success) {
  // A replica must not be seen writable on one transient read_only=0 (recoveryThreshold 2),
  // else evaluate() could see two writable sites or miss a failover.
  auto step = debounce({S::read_only, 0, 0}, P::writable, 3, 2);
  BOOST_TEST(step.next.state == S::read_only);
  BOOST_TEST(!step.transitioned);
}

BOOST_AUTO_TEST_CASE(thresholds_of_one_and_zero) {
  // threshold 1: a single poll decides; 0 is treated as 1 (never "already reached").
  for (uint32_t t : {0u, 1u}) {
    BOOST_TEST_CONTEXT("threshold " << t) {
      BOOST_TEST(debounce({S::writable, 0, 0}, P::failed, t, t).next.state == S::unreachable);
      BOOST_TEST(debounce({S::read_only, 0, 0}, P::writable, t, t).next.state == S::writable);
    }
  }
  // Threshold 0 must not turn a *successful* poll into unreachable.
  BOOST_TEST(debounce({S::writable, 0, 0}, P::writable, 0, 0).next.state == S::writable);
}

BOOST_AUTO_TEST_CASE(larger_thresholds_exact_boundary) {
  debounce_state st{S::writable, 0, 0};
  for (int i = 0; i < 4; ++i) st = debounce(st, P::failed, 5, 4).next;
  BOOST_TEST(st.state == S::writable);
  st = debounce(st, P::failed, 5, 4).next;
  BOOST_TEST(st.state == S::unreachable);
  for (int i = 0; i < 3; ++i) st = debounce(st, P::writable, 5, 4).next;
  BOOST_TEST(st.state == S::unreachable);
  st = debounce(st, P::writable, 5, 4).next;
  BOOST_TEST(st.state == S::writable);
}

BOOST_AUTO_TEST_CASE(counters_saturate) {
  constexpr auto max = std::numeric_limits<uint32_t>::max();
  auto f = debounce({S::unreachable, max, 0}, P::failed, 3, 2);
  BOOST_TEST(f.next.consecutive_failures == max);
  BOOST_TEST(f.next.state == S::unreachable);
  auto w = debounce({S::writable, 0, max}, P::writable, 3, 2);
  BOOST_TEST(w.next.consecutive_writable == max);
  BOOST_TEST(w.next.state == S::writable);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
