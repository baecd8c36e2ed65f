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
      const auto& shown = planned_shown(f.st.planned, f.st.planned_refused);
      BOOST_TEST(shown.phase == "Failed");
      BOOST_TEST(shown.reason == r.reason);
      BOOST_TEST(shown.request == 0u);  // never accepted: not stored
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

namespace {

int64_t wall_ms(const planned_fixture& f) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(f.clock.wall.time_since_epoch())
      .count();
}

/// A group whose last failover was `ago` before now, with onCooldown=defer.
void in_cooldown(planned_fixture& f, caf::timespan ago) {
  f.rules.defer_on_cooldown = true;
  f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  f.st.durable.last_failover_ms =
      wall_ms(f) - std::chrono::duration_cast<std::chrono::milliseconds>(ago).count();
}

}  // namespace

BOOST_AUTO_TEST_CASE(on_cooldown_defer_waits_for_the_cooldown_then_runs_the_same_request) {
  in_cooldown(*this, 4min);  // the cooldown (5 min) ends in 1 min
  request("b:maxLagWait=20s");
  BOOST_TEST(answer->rfind("accepted: deferred", 0) == 0u, *answer);
  BOOST_TEST(persisted_next().planned.phase == "Deferred");
  BOOST_TEST(!persisted_next().plan_active);
  store_ok();
  BOOST_TEST(st.durable.planned.phase == "Deferred");
  BOOST_TEST(st.durable.planned.reason == "CooldownActive");
  BOOST_TEST(st.durable.planned.retry_after_ms == wall_ms(*this) + 60'000);
  BOOST_TEST(has_event("PlannedFailoverDeferred"));
  auto request_no = st.durable.planned.request;
  BOOST_TEST(request_no == 1u);
  // Polls inside the cooldown change nothing (no write, no plan).
  advance(30s);
  report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST(count<effect::persist>() == 0u);
  // Once it ended, the next poll validates the request again and starts its plan.
  advance(31s);
  report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
  auto next = persisted_next();
  BOOST_TEST(next.plan_active);
  BOOST_TEST(next.plan.kind == plan_kind::switchover);
  BOOST_TEST(next.plan.candidate == "b");
  BOOST_TEST(next.plan.max_lag_wait == caf::timespan{20s});  // the request's own maxLagWait
  BOOST_TEST(next.planned.phase == "Draining");
  BOOST_TEST(next.planned.request == request_no);  // the same request, not a new one
  BOOST_TEST(next.planned.plan_id == next.plan.id);
  store_ok();
  BOOST_TEST(has_event("PlannedFailoverStarted"));
}

BOOST_AUTO_TEST_CASE(a_deferred_request_can_be_cancelled_a_running_one_cannot) {
  in_cooldown(*this, 4min);
  request("b");
  store_ok();
  request(planned_cancel_value);
  BOOST_TEST(answer->rfind("accepted: the deferred planned failover to b is cancelled", 0) == 0u,
             *answer);
  store_ok();
  BOOST_TEST(st.durable.planned.phase == "Failed");
  BOOST_TEST(st.durable.planned.reason == "Cancelled");
  BOOST_TEST(has_event("PlannedFailoverFailed"));
  BOOST_TEST(metrics(metric_kind::planned_failover).front().detail == "failed_other");
  // Nothing starts once the cooldown is over.
  advance(2min);
  report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST(!st.durable.plan_active);
  BOOST_TEST(count<effect::persist>() == 0u);
  // Cancelling what is not deferred is refused with the reason.
  request(planned_cancel_value);
  BOOST_TEST(answer->rfind("rejected: no planned failover is waiting", 0) == 0u, *answer);
  request("b");
  store_ok();
  request(planned_cancel_value);
  BOOST_TEST(answer->rfind("rejected: the planned failover to b is Draining", 0) == 0u, *answer);
  BOOST_TEST(st.durable.plan_active);
}

BOOST_AUTO_TEST_CASE(a_second_request_while_one_is_deferred_is_concurrent_the_same_one_is_it) {
  in_cooldown(*this, 4min);
  request("b");
  store_ok();
  request("c");
  BOOST_TEST(answer->rfind("rejected: ConcurrentOperation", 0) == 0u, *answer);
  BOOST_TEST(st.durable.planned.phase == "Deferred");  // the deferred one is untouched
  request("b");
  BOOST_TEST(answer->rfind("running: planned failover to b is Deferred", 0) == 0u, *answer);
  BOOST_TEST(count<effect::persist>() == 0u);
}

BOOST_AUTO_TEST_CASE(a_deferred_request_whose_target_went_unhealthy_fails_when_validated_again) {
  in_cooldown(*this, 4min);
  request("b");
  store_ok();
  advance(61s);
  report(rep("b", site_state::unreachable));
  BOOST_TEST(persisted_next().planned.phase == "Failed");
  BOOST_TEST(persisted_next().planned.reason == "TargetUnhealthy");
  BOOST_TEST(!persisted_next().plan_active);
  store_ok();
  BOOST_TEST(st.durable.planned.request == 1u);
}

BOOST_AUTO_TEST_CASE(the_record_survives_an_operator_restart) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  request("b");
  store_ok();
  phase_done(plan_phase::fencing_old);
  phase_done(plan_phase::gating);
  auto stored = st.durable;
  BOOST_TEST(stored.planned.phase == "WaitingForLag");
  planned_fixture restarted;
  restarted.load(stored);
  BOOST_TEST((restarted.st.planned == stored.planned));
  BOOST_TEST(restarted.st.planned.lag_wait_started_ms > 0);  // the timestamps too
  // ... and the plan's end reaches the same record.
  restarted.run(input::plan_done{restarted.result(true)});
  restarted.store_ok();
  BOOST_TEST(restarted.st.planned.phase == "Succeeded");
  BOOST_TEST(restarted.st.durable.planned.phase == "Succeeded");
  BOOST_TEST(restarted.st.planned.started_ms == stored.planned.started_ms);
}

BOOST_AUTO_TEST_SUITE_END()

// Issue 24: the planned failover's Dragonfly phases through step() (decide/planned_dragonfly.hpp).
namespace {

struct dragonfly_fixture : planned_fixture {
  dragonfly_fixture() {
    rules.dragonfly.enabled = true;
    rules.dragonfly.max_sync_wait = 5s;
  }
  dragonfly_handover_report report_of(bool promote, bool ok, uint64_t request = 0) const {
    dragonfly_handover_report r;
    r.promote = promote;
    r.request = request ? request : st.planned.request;
    r.ok = ok;
    r.master = "a";
    r.source_offset = 700;
    r.target_offset = ok ? 700 : 10;
    if (promote && ok) r.method = "REPLICAOF NO ONE";
    if (!ok) r.error = "b did not reach a's offset 700 within maxSyncWait (at 10)";
    return r;
  }
  std::vector<dragonfly_handover_request> asked() const {
    std::vector<dragonfly_handover_request> out;
    for (auto& h : all<effect::dragonfly_handover>()) out.push_back(h.request);
    return out;
  }
  /// The request accepted and its WaitingForDragonflySync record stored.
  void requested_and_stored() {
    settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
    request("b");
    BOOST_REQUIRE(answer.has_value());
    BOOST_TEST(answer->rfind("accepted:", 0) == 0u);
    auto next = persisted_next();
    BOOST_TEST(!next.plan_active);  // MySQL untouched: no plan, no deposing view
    BOOST_TEST(next.planned.phase == "WaitingForDragonflySync");
    BOOST_REQUIRE_EQUAL(asked().size(), 1u);
    BOOST_TEST(!asked().front().promote);
    BOOST_TEST(asked().front().target == "b");
    BOOST_TEST(asked().front().max_wait_ms == 5000);
    BOOST_TEST(all<effect::dragonfly_handover>().front().deadline > caf::timespan{5s});
    BOOST_TEST(fenced().empty());
    BOOST_TEST(count<effect::start_executor>() == 0u);
    store_ok();
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(planned_dragonfly_rows, dragonfly_fixture)

BOOST_AUTO_TEST_CASE(synced_then_switchover_then_the_cache_master_moves) {
  requested_and_stored();
  advance(1s);
  run(input::dragonfly_report{report_of(false, true)});
  auto next = persisted_next();
  BOOST_TEST(next.plan_active);
  BOOST_TEST(next.plan.kind == plan_kind::switchover);
  BOOST_TEST(next.planned.phase == "Draining");
  BOOST_TEST(next.planned.dragonfly.source_offset == 700);
  BOOST_TEST(next.planned.dragonfly.sync_wait_ms == 1000);
  store_ok();
  BOOST_TEST(has_event("PlannedFailoverStarted"));
  phase_done(plan_phase::gating);
  phase_done(plan_phase::draining);
  phase_done(plan_phase::confirming);
  run(input::plan_done{result(true)});
  BOOST_TEST(persisted_next().planned.phase == "PromotingDragonfly");
  store_ok();
  BOOST_TEST(st.view.active_site == "b");  // MySQL moved before the cache
  BOOST_TEST(has_event("DragonflyPromotionStarted"));
  BOOST_TEST(!has_event("PlannedFailoverCompleted"));
  BOOST_REQUIRE_EQUAL(asked().size(), 1u);
  BOOST_TEST(asked().front().promote);
  run(input::dragonfly_report{report_of(true, true)});
  BOOST_TEST(persisted_next().planned.phase == "Succeeded");
  BOOST_TEST(has_event("DragonflyPromotionCompleted"));
  BOOST_TEST(has_event("PlannedFailoverCompleted"));
  store_ok();
  BOOST_TEST(st.durable.planned.dragonfly.sessions_preserved == "true");
  BOOST_TEST(st.durable.planned.dragonfly.promotion_method == "REPLICAOF NO ONE");
}

BOOST_AUTO_TEST_CASE(fail_on_timeout_rolls_back_with_mysql_untouched) {
  rules.dragonfly.fail_on_sync_timeout = true;
  requested_and_stored();
  auto view = st.view;
  run(input::dragonfly_report{report_of(false, false)});
  auto next = persisted_next();
  BOOST_TEST(!next.plan_active);
  BOOST_TEST(next.plan.kind != plan_kind::switchover);  // no plan was ever started
  BOOST_TEST(next.planned.phase == "Failed");
  BOOST_TEST(next.planned.reason == "DragonflySyncTimeout");
  BOOST_TEST(fenced().empty());
  BOOST_TEST(count<effect::start_executor>() == 0u);
  BOOST_TEST(count<effect::publish>() == 0u);
  BOOST_TEST(has_event("DragonflySyncTimeout"));
  BOOST_TEST(has_event("PlannedFailoverFailed"));
  auto m = metrics(metric_kind::planned_failover);
  BOOST_REQUIRE_EQUAL(m.size(), 1u);
  BOOST_TEST(m.front().detail == "failed_timeout");
  store_ok();
  BOOST_TEST(st.view.epoch == view.epoch);
  BOOST_TEST(st.view.active_site == "a");
  BOOST_TEST(!st.durable.plan_active);
  // A new request may follow.
  request("b");
  BOOST_TEST(answer->rfind("accepted:", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(proceed_on_timeout_moves_mysql_and_records_sessions_lost) {
  requested_and_stored();
  run(input::dragonfly_report{report_of(false, false)});
  auto next = persisted_next();
  BOOST_TEST(next.plan_active);
  BOOST_TEST(next.planned.phase == "Draining");
  BOOST_TEST(next.planned.dragonfly.sessions_preserved == "false");
  BOOST_TEST(next.planned.dragonfly.reason == "DragonflySyncTimeout");
  BOOST_TEST(has_event("DragonflySyncTimeout"));
  BOOST_TEST(!has_event("PlannedFailoverFailed"));
}

BOOST_AUTO_TEST_CASE(disabled_starts_the_switchover_at_once) {
  rules.dragonfly.enabled = false;
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  request("b");
  BOOST_TEST(persisted_next().plan_active);
  BOOST_TEST(persisted_next().planned.phase == "Draining");
  BOOST_TEST(asked().empty());
  store_ok();
  phase_done(plan_phase::confirming);
  run(input::plan_done{result(true)});
  store_ok();
  BOOST_TEST(st.planned.phase == "Succeeded");
  BOOST_TEST(asked().empty());
}

BOOST_AUTO_TEST_CASE(stale_reports_and_second_requests_change_nothing) {
  requested_and_stored();
  run(input::dragonfly_report{report_of(false, true, 99)});  // another request's report
  BOOST_TEST(count<effect::persist>() == 0u);
  BOOST_TEST(st.planned.phase == "WaitingForDragonflySync");
  run(input::dragonfly_report{report_of(true, true)});  // a promote report while syncing
  BOOST_TEST(count<effect::persist>() == 0u);
  request("c");
  BOOST_TEST(answer->rfind("rejected:", 0) == 0u);
  BOOST_TEST(st.planned.phase == "WaitingForDragonflySync");
}

BOOST_AUTO_TEST_CASE(a_report_while_a_write_is_in_flight_waits_for_it) {
  requested_and_stored();
  request("b");  // answered "running"; nothing written
  // A write in flight (another record): the sync report is kept, then acted on.
  st.persisting = change_mark_pending{{"c"}};
  run(input::dragonfly_report{report_of(false, true)});
  BOOST_TEST(count<effect::persist>() == 0u);
  BOOST_TEST(st.planned_sync_report.has_value());
  st.persisting.reset();
  advance(3s);
  report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  BOOST_TEST(persisted_next().plan_active);
  BOOST_TEST(!st.planned_sync_report.has_value());
}

BOOST_AUTO_TEST_CASE(a_restart_asks_the_manager_again) {
  requested_and_stored();
  auto stored = st.durable;
  dragonfly_fixture restarted;
  restarted.load(stored);
  BOOST_REQUIRE_EQUAL(restarted.asked().size(), 1u);
  BOOST_TEST(!restarted.asked().front().promote);
  // ... and in PromotingDragonfly, the move.
  stored.planned.phase = "PromotingDragonfly";
  dragonfly_fixture again;
  again.load(stored);
  BOOST_REQUIRE_EQUAL(again.asked().size(), 1u);
  BOOST_TEST(again.asked().front().promote);
}

BOOST_AUTO_TEST_SUITE_END()
