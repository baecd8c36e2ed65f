// step() rows of the planned failover (issue 20): the request, the record through the switchover
// plan's phases, how it ends, and what a refused request leaves unchanged.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/planned_failover.hpp"
#include "tests/unit/group_step_fixture.hpp"

using namespace group_step_test;

namespace {

struct planned_fixture : group_fixture {
  void request(const std::string& value) {
    run(input::annotate{planned_failover_annotation, value});
  }
  void phase_done(plan_phase p, plan_facts facts = {}) {
    run(input::phase{st.durable.plan.id, p, std::move(facts), 1});
    store_ok();
  }
  std::vector<effect::metric> metrics(metric_kind k) const {
    std::vector<effect::metric> out;
    for (auto& m : all<effect::metric>())
      if (m.kind == k) out.push_back(m);
    return out;
  }
  plan_result result(bool ok) const {
    plan_result r;
    r.id = st.durable.plan.id;
    r.ok = ok;
    return r;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(planned_failover_rows, planned_fixture)

BOOST_AUTO_TEST_CASE(an_annotation_runs_the_switchover_plan_and_records_every_phase) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  request("b:maxLagWait=30s");
  BOOST_REQUIRE(answer.has_value());
  BOOST_TEST(answer->rfind("accepted:", 0) == 0u);
  auto next = persisted_next();
  BOOST_TEST(next.plan.kind == plan_kind::switchover);
  BOOST_TEST(next.plan.candidate == "b");
  BOOST_TEST(next.plan.max_lag_wait == caf::timespan{30s});
  store_ok();
  BOOST_TEST(has_event("PlannedFailoverStarted"));
  BOOST_TEST(has_event("PlannedFailoverDraining"));
  BOOST_TEST(st.planned.phase == "Draining");
  BOOST_TEST(st.planned.source == "a");
  phase_done(plan_phase::fencing_old);
  phase_done(plan_phase::killing_sessions);
  BOOST_TEST(st.planned.phase == "Draining");
  phase_done(plan_phase::gating);
  BOOST_TEST(st.planned.phase == "WaitingForLag");
  advance(2s);
  plan_facts facts;
  facts.source_gtid = gtid(U1, 1, 9);
  phase_done(plan_phase::draining, facts);
  BOOST_TEST(st.planned.phase == "Promoting");
  BOOST_TEST(st.planned.source_gtid_at_fence == gtid(U1, 1, 9));
  BOOST_TEST(has_event("PlannedFailoverLagOK"));
  BOOST_REQUIRE_EQUAL(metrics(metric_kind::planned_lag_wait).size(), 1u);
  BOOST_TEST(metrics(metric_kind::planned_lag_wait).front().value == 2.0);
  phase_done(plan_phase::confirming);
  BOOST_TEST(st.planned.phase == "Resuming");
  run(input::plan_done{result(true)});
  store_ok();
  BOOST_TEST(st.planned.phase == "Succeeded");
  BOOST_TEST(has_event("PlannedFailoverCompleted"));
  auto m = metrics(metric_kind::planned_failover);
  BOOST_REQUIRE_EQUAL(m.size(), 1u);
  BOOST_TEST(m.front().detail == "success");
  BOOST_TEST(m.front().value == 2.0);
  BOOST_TEST(st.view.active_site == "b");
}

BOOST_AUTO_TEST_CASE(a_lag_timeout_rolls_back_and_says_why) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  request("b");
  store_ok();
  auto r = result(false);
  r.reached = plan_phase::draining;
  r.error = "draining: LagTimeout: b did not catch up";
  r.source_kept = true;
  r.source_gtid = gtid(U1, 1, 9);
  run(input::plan_done{r});
  store_ok();
  BOOST_TEST(st.view.active_site == "a");
  BOOST_TEST(st.planned.phase == "Failed");
  BOOST_TEST(st.planned.reason == "LagTimeout");
  BOOST_TEST(st.planned.source_gtid_at_fence == gtid(U1, 1, 9));
  BOOST_TEST(has_event("PlannedFailoverFailed"));
  BOOST_TEST(metrics(metric_kind::planned_failover).front().detail == "failed_timeout");
  BOOST_TEST(count<effect::reassert>() == 1u);  // the source is unfenced
}

BOOST_AUTO_TEST_CASE(a_source_that_dies_mid_plan_hands_over_to_the_emergency_failover) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  request("b");
  store_ok();
  report(rep("a", site_state::unreachable));
  auto r = result(false);
  r.reached = plan_phase::draining;
  r.error = "draining: the source a could not be fenced";
  r.source_kept = true;
  run(input::plan_done{r});
  BOOST_TEST(st.last_plan_failure.has_value());  // until the result is durable
  store_ok();
  BOOST_TEST(st.planned.reason == "SourceCrashed");
  BOOST_TEST(!st.last_plan_failure.has_value());  // no retry delay before the emergency failover
}

BOOST_AUTO_TEST_CASE(refused_requests_change_nothing_and_say_why) {
  struct row {
    std::string name;
    std::string value;
    std::function<void(planned_fixture&)> before;
    std::string reason;
  };
  std::vector<row> rows = {
      {"bad annotation", "b:maxLagWait=soon", [](planned_fixture&) {}, "InvalidAnnotation"},
      {"unknown site", "x", [](planned_fixture&) {}, "UnknownSite"},
      {"target not replicating", "b",
       [](planned_fixture& f) { f.report(rep("b", site_state::read_only, gtid(U1, 1, 5), false)); },
       "TargetUnhealthy"},
      {"cooldown", "b",
       [](planned_fixture& f) {
         f.st.durable.last_failover_ms =
             std::chrono::duration_cast<std::chrono::milliseconds>(f.clock.wall.time_since_epoch())
                 .count() - 1000;
       },
       "CooldownActive"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      planned_fixture f;
      f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
      r.before(f);
      auto durable = f.st.durable;
      f.request(r.value);
      BOOST_REQUIRE(f.answer.has_value());
      BOOST_TEST(f.answer->rfind("rejected: " + r.reason, 0) == 0u, *f.answer);
      BOOST_TEST(f.count<effect::persist>() == 0u);
      BOOST_TEST(f.count<effect::fence>() == 0u);
      BOOST_TEST(f.st.durable.view.epoch == durable.view.epoch);
      BOOST_TEST(!f.st.durable.plan_active);
      BOOST_TEST(f.st.planned.phase == "Failed");
      BOOST_TEST(f.st.planned.reason == r.reason);
      BOOST_TEST(f.has_event("PlannedFailoverRejected"));
      BOOST_TEST(f.metrics(metric_kind::planned_failover).front().detail == "rejected");
    }
  }
}

BOOST_AUTO_TEST_CASE(a_second_request_while_one_runs_is_a_concurrent_operation) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  request("b");
  store_ok();
  request("c");
  BOOST_TEST(answer->rfind("rejected: ConcurrentOperation", 0) == 0u);
  BOOST_TEST(count<effect::persist>() == 0u);
}

BOOST_AUTO_TEST_CASE(the_active_site_as_target_is_skipped) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  request("a");
  BOOST_TEST(answer->rfind("accepted: nothing to do", 0) == 0u);
  BOOST_TEST(has_event("PlannedFailoverSkipped"));
  BOOST_TEST(count<effect::persist>() == 0u);
}

BOOST_AUTO_TEST_CASE(automatic_actions_wait_for_a_running_planned_failover_and_say_so_once) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  request("b");
  store_ok();
  advance(3s);
  report(rep("c", site_state::unreachable));
  BOOST_TEST(has_log("cross-site action deferred: planned failover in progress"));
  advance(3s);
  report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST(!has_log("cross-site action deferred: planned failover in progress"));
}

BOOST_AUTO_TEST_SUITE_END()
