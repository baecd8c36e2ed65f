// Table tests for promotion_gate() (docs/safety.md "The promotion gate", S2/S10): rules 1-3 with
// boundary times, the gate timeout, Safe vs Fast.
#include "actors/operator/decide/promotion_gate.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>

#include "config/duration.hpp"
#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace br::test;
using namespace std::chrono_literals;
using G = gate_verdict;
using Rule = gate_rule;

const mono_time t0 = mono_time{} + 1000h;

// Old primary "a"; other sites b (candidate), c, d. Seed defaults: lease 20s, peer check 5s;
// fence 5s, request 5s -> rule-3 wait = 1.1 * 35s = 38.5s. promotionGateTimeout 120s.
gate_input base() {
  gate_input in;
  in.other_sites = {"b", "c", "d"};
  in.started = t0;
  in.now = t0;
  in.lease_timeout = 20s;
  in.peer_check_interval = 5s;
  in.fence_timeout = 5s;
  in.request_timeout = 5s;
  in.gate_timeout = 120s;
  return in;
}

const caf::timespan wait35 = 38500ms;

BOOST_AUTO_TEST_SUITE(decisions_promotion_gate)

BOOST_AUTO_TEST_CASE(rule3_wait_is_sum_plus_ten_percent) {
  BOOST_TEST(rule3_wait(20s, 5s, 5s, 5s).count() == wait35.count());
  BOOST_TEST(rule3_wait(0s, 0s, 0s, 0s).count() == 0);
  // Rounded up, never short: 1.1 * 1ns = 1.1ns -> 2ns; 1.1 * 10ns = 11ns exactly.
  BOOST_TEST(rule3_wait(1ns, 0s, 0s, 0s).count() == 2);
  BOOST_TEST(rule3_wait(4ns, 3ns, 2ns, 1ns).count() == 11);
}

BOOST_AUTO_TEST_CASE(s2_gate_opens_on_operator_fence_rule1) {
  auto in = base();
  in.operator_fenced_old_primary = true;
  auto d = promotion_gate(in);
  BOOST_TEST(d.verdict == G::open);
  BOOST_TEST(d.rule == Rule::operator_fenced);
}

BOOST_AUTO_TEST_CASE(s2_gate_opens_on_old_primary_ack_rule2) {
  auto in = base();
  in.old_primary_sidecar_acked = true;
  in.old_primary_unreachable = true;  // mysqld down, sidecar alive: it acks (S5 boots fenced)
  auto d = promotion_gate(in);
  BOOST_TEST(d.verdict == G::open);
  BOOST_TEST(d.rule == Rule::old_primary_acked);
}

BOOST_AUTO_TEST_CASE(s2_gate_waits_for_lease_after_last_ack) {
  auto in = base();
  // Acks arrive out of order; the LAST one (c at t0+3s) starts the wait.
  in.peer_acks = {{"b", t0 + 1s}, {"c", t0 + 3s}, {"d", t0 + 2s}};
  const mono_time deadline = t0 + 3s + wait35;  // t0 + 41.5s
  struct row {
    const char* name;
    mono_time now;
    G verdict;
  };
  const std::vector<row> rows = {
      {"right after the last ack", t0 + 3s, G::wait},
      {"lease counted from the first ack would have passed", t0 + 1s + wait35, G::wait},
      {"one nanosecond before the deadline", deadline - 1ns, G::wait},
      {"exactly at the deadline", deadline, G::open},
      {"after the deadline", deadline + 1s, G::open},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      in.now = r.now;
      auto d = promotion_gate(in);
      BOOST_TEST(d.verdict == r.verdict);
      if (d.verdict == G::wait) {
        BOOST_TEST((d.until == deadline));
        BOOST_TEST(d.missing_acks.empty());
      } else {
        BOOST_TEST(d.rule == Rule::peers_acked_waited);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(s2_gate_never_opens_without_every_other_sites_ack) {
  auto in = base();
  in.peer_acks = {{"b", t0}, {"d", t0}, {"a", t0}, {"zz", t0}};  // c missing; a/zz do not count
  in.now = t0 + 100s;
  auto d = promotion_gate(in);
  BOOST_TEST(d.verdict == G::wait);
  BOOST_TEST(d.missing_acks == names({"c"}), boost::test_tools::per_element());
  BOOST_TEST((d.until == t0 + 120s));
  BOOST_TEST(d.reason.find("c") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(s10_gate_times_out_at_promotion_gate_timeout) {
  auto in = base();
  in.peer_acks = {{"b", t0}};
  in.now = t0 + 120s - 1ns;
  BOOST_TEST(promotion_gate(in).verdict == G::wait);
  in.now = t0 + 120s;
  auto d = promotion_gate(in);
  BOOST_TEST(d.verdict == G::timed_out);
  BOOST_TEST(d.rule == Rule::none);
  BOOST_TEST(d.missing_acks == names({"c", "d"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(s10_rule3_deadline_after_timeout_waits_only_until_timeout) {
  auto in = base();
  in.peer_acks = {{"b", t0 + 100s}, {"c", t0 + 100s}, {"d", t0 + 100s}};
  in.now = t0 + 100s;
  auto d = promotion_gate(in);
  BOOST_TEST(d.verdict == G::wait);
  BOOST_TEST((d.until == t0 + 120s));
  in.now = t0 + 120s;
  BOOST_TEST(promotion_gate(in).verdict == G::timed_out);
}

BOOST_AUTO_TEST_CASE(rule3_deadline_equal_to_timeout_opens) {
  auto in = base();
  in.gate_timeout = 3s + wait35;
  in.peer_acks = {{"b", t0 + 3s}, {"c", t0}, {"d", t0}};
  in.now = t0 + 3s + wait35;
  auto d = promotion_gate(in);
  BOOST_TEST(d.verdict == G::open);
  BOOST_TEST(d.rule == Rule::peers_acked_waited);
}

BOOST_AUTO_TEST_CASE(direct_evidence_opens_even_after_the_timeout) {
  auto in = base();
  in.now = t0 + 500s;
  in.operator_fenced_old_primary = true;
  BOOST_TEST(promotion_gate(in).verdict == G::open);
}

BOOST_AUTO_TEST_CASE(s2_safe_policy_waits_for_unreachable_old_primary) {
  auto in = base();
  in.old_primary_unreachable = true;
  in.policy = gate_policy::safe;
  auto d = promotion_gate(in);
  BOOST_TEST(d.verdict == G::wait);
  BOOST_TEST(d.missing_acks == names({"b", "c", "d"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(fast_policy_opens_at_once_for_unreachable_old_primary_accepting_s1_risk) {
  auto in = base();
  in.old_primary_unreachable = true;
  in.policy = gate_policy::fast;
  auto d = promotion_gate(in);
  BOOST_TEST(d.verdict == G::open);
  BOOST_TEST(d.rule == Rule::fast_unreachable);
  BOOST_TEST(d.reason.find("dual-writable") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(fast_policy_with_reachable_old_primary_follows_the_rules) {
  auto in = base();
  in.policy = gate_policy::fast;
  in.old_primary_unreachable = false;
  BOOST_TEST(promotion_gate(in).verdict == G::wait);
  in.operator_fenced_old_primary = true;
  BOOST_TEST(promotion_gate(in).rule == Rule::operator_fenced);
}

BOOST_AUTO_TEST_CASE(s2_empty_other_sites_never_opens_by_rule3) {
  auto in = base();
  in.other_sites = {};
  in.now = t0 + 119s;
  BOOST_TEST(promotion_gate(in).verdict == G::wait);
  in.now = t0 + 120s;
  BOOST_TEST(promotion_gate(in).verdict == G::timed_out);
}

BOOST_AUTO_TEST_CASE(two_site_group_needs_only_the_candidates_ack) {
  auto in = base();
  in.other_sites = {"b"};
  in.peer_acks = {{"b", t0 + 2s}};
  in.now = t0 + 2s + wait35;
  BOOST_TEST(promotion_gate(in).verdict == G::open);
}

BOOST_AUTO_TEST_CASE(s2_huge_durations_never_open_rule3) {
  // Durations near the top of int64 nanoseconds: a wrapping sum would be negative and open the
  // gate at the first evaluation after the acks. Saturated, the wait is "forever": rule 3 stays
  // closed and only the gate timeout (or direct evidence) ends the wait.
  const caf::timespan huge = caf::timespan::max();
  BOOST_TEST(rule3_wait(huge, huge, huge, huge).count() == huge.count());
  BOOST_TEST(rule3_wait(huge, 5s, 5s, 5s).count() == huge.count());
  BOOST_TEST(rule3_wait(huge / 2, huge / 2, 1s, 1s).count() == huge.count());
  BOOST_TEST(rule3_wait(huge / 11 * 10, 0s, 0s, 0s).count() == (huge / 11 * 11).count());
  struct row {
    const char* name;
    caf::timespan lease, peer, fence, request, gate;
    G verdict;
  };
  const std::vector<row> rows = {
      {"huge lease, gate 120s", huge, 5s, 5s, 5s, 120s, G::timed_out},
      {"every term huge, gate 120s", huge, huge, huge, huge, 120s, G::timed_out},
      {"terms whose plain sum wraps to a small positive", huge, huge, 2s, 2s, 120s, G::timed_out},
      {"huge lease and huge gate timeout", huge, 5s, 5s, 5s, huge, G::wait},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto in = base();
      in.lease_timeout = r.lease;
      in.peer_check_interval = r.peer;
      in.fence_timeout = r.fence;
      in.request_timeout = r.request;
      in.gate_timeout = r.gate;
      in.peer_acks = {{"b", t0 + 1s}, {"c", t0 + 1s}, {"d", t0 + 1s}};
      for (auto later : {caf::timespan{2s}, caf::timespan{121s}, caf::timespan{100000h}}) {
        in.now = t0 + later;
        auto d = promotion_gate(in);
        BOOST_TEST(d.verdict != G::open, "opened " << br::config::format_duration(later) << " in");
        if (in.now >= t0 + 120s) BOOST_TEST(d.verdict == r.verdict);
        if (d.verdict == G::wait) BOOST_TEST((d.until > in.now), "a wait that ends in the past");
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
