// Coordinator + pollers in virtual time: failover, persist-before-publish, flapping, cooldown
// across a restart (S6/S7), executor crash resume, incomparable candidates.
#include <boost/test/unit_test.hpp>

#include "tests/actors/operator_fixture.hpp"

using namespace br;
using namespace br::test;

namespace {

// A crash (not exit_reason::kill: CAF 0.17 makes kill fatal to linked actors too, so a killed
// child would take its supervisor down with it).
caf::error crash() {
  return caf::make_error(caf::sec::runtime_error, "injected crash");
}

struct two_sites : operator_fixture {
  two_sites() {
    add_site("a", site_role::primary_candidate);
    add_site("b", site_role::primary_candidate);
    io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
    io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10), true);
  }

  /// Starts and lets `a` become the adopted primary (recoveryThreshold writable polls).
  void start_healthy() {
    start();
    polls(2);
    auto v = view();
    BOOST_REQUIRE_EQUAL(v.active_site, "a");
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(adopts_the_single_writable_candidate_with_an_epoch, two_sites) {
  start();
  BOOST_TEST(view().active_site == "");
  polls(2);
  auto v = view();
  BOOST_TEST(v.active_site == "a");
  BOOST_TEST(v.epoch == 1u);
  BOOST_TEST(platform.rec->disk.view.epoch == 1u);
  BOOST_TEST(exec->plans.empty());
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(unreachable_primary_fails_over_once_and_persists_before_publishing,
                        two_sites) {
  start_healthy();
  auto epoch0 = view().epoch;
  io_rec->probe["a"] = failed_probe();
  platform.rec->hold_persists = true;
  polls(2);  // two failures: below failureThreshold
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(platform.rec->persisted.size() == 1u);  // only the adoption
  polls(1);  // third failure -> unreachable -> failover
  BOOST_REQUIRE_EQUAL(platform.rec->persisted.size(), 2u);
  const auto& pending = platform.rec->persisted.back();
  BOOST_TEST(pending.view.epoch == epoch0 + 1);
  BOOST_TEST(pending.view.active_site == "");
  BOOST_TEST(pending.view.deposing == "a");
  BOOST_TEST(pending.plan_active);
  BOOST_TEST(pending.plan.candidate == "b");
  // Not published and no executor while the persist is outstanding.
  auto before = view();
  BOOST_TEST(before.epoch == epoch0);
  BOOST_TEST(before.active_site == "a");
  BOOST_TEST(exec->plans.empty());
  platform.rec->hold_persists = false;
  self->send(platform.store_raw, release_atom::value);
  run();
  auto during = view();
  BOOST_TEST(during.epoch == epoch0 + 1);
  BOOST_TEST(during.active_site == "");
  BOOST_TEST(during.deposing == "a");
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  const auto& plan = exec->plans.front();
  BOOST_TEST(plan.kind == plan_kind::failover);
  BOOST_TEST(plan.candidate == "b");
  BOOST_TEST(plan.old_primary == "a");
  BOOST_TEST(!plan.old_primary_reachable);
  BOOST_TEST(plan.epoch == epoch0 + 1);
  BOOST_TEST(exec->deps.front().targets.at("b").user == "bloodraven");
  BOOST_TEST(exec->deps.front().replication.user == "repl");
  BOOST_TEST(platform.rec->count_events("FailoverStarted") == 1u);
  polls(5);  // still unreachable: no second plan while one runs
  BOOST_TEST(exec->plans.size() == 1u);
  // The executor reports success: the promotion epoch is published with b active.
  auto res = result_of(plan.id, true, gtid(U1, 1, 10));
  self->send(coord(), plan_done_atom::value, res);
  run();
  auto after = view();
  BOOST_TEST(after.epoch == epoch0 + 2);
  BOOST_TEST(after.active_site == "b");
  BOOST_TEST(after.deposing == "");
  BOOST_TEST(platform.rec->disk.last_failover_target == "b");
  BOOST_TEST(platform.rec->disk.promotion_gtid == gtid(U1, 1, 10));
  BOOST_TEST(!platform.rec->disk.plan_active);
  BOOST_TEST(platform.rec->count_events("FailoverExecuted") == 1u);
  check_no_unexpected();
}

// A hung primary (SIGSTOP, black-holed network) never answers: each tick that finds the probe
// still running counts as a failed poll, so detection takes about failureThreshold x pollInterval
// (2 s here), not failureThreshold x the 5 s probe timeout (which would be after 16.5 s).
BOOST_FIXTURE_TEST_CASE(a_plan_outside_the_topology_is_refused_not_run, two_sites) {
  // A topology whose rules are async replication's but which has no failover plan: the
  // coordinator must fail such a plan rather than start an executor for it.
  static const topology no_failover{"test-no-failover", mysql_op::probe, {plan_kind::recover},
                                    &br::step};
  topo = &no_failover;
  start_healthy();
  io_rec->probe["a"] = failed_probe();
  polls(3);
  run();
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(!platform.rec->disk.plan_active);
  BOOST_TEST(platform.rec->disk.plan.kind == plan_kind::failover);
  BOOST_TEST(platform.rec->disk.plan.phase == plan_phase::failed);
}

BOOST_FIXTURE_TEST_CASE(a_hung_primary_is_detected_within_the_poll_cadence, two_sites) {
  start_healthy();
  io_rec->hung.insert("a");
  const auto probes0 = io_rec->probes["a"];
  polls(3);  // t0: the probe hangs; t0+2 s and t0+4 s: overdue -> two failures
  BOOST_TEST(exec->plans.empty());
  polls(1);  // the third failure by t0+6 s
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  BOOST_TEST(exec->plans[0].candidate == "b");
  BOOST_TEST(exec->plans[0].old_primary == "a");
  // One probe in flight at a time: the hung one, then (after its 5.5 s request timeout) one more.
  BOOST_TEST(io_rec->probes["a"] - probes0 <= 2u);
}

BOOST_FIXTURE_TEST_CASE(a_flapping_primary_does_not_fail_over, two_sites) {
  start_healthy();
  for (int i = 0; i < 10; ++i) {
    io_rec->script["a"].push_back(failed_probe());
    io_rec->script["a"].push_back(failed_probe("timeout"));
    io_rec->script["a"].push_back(writable_probe(gtid(U1, 1, 10)));
  }
  polls(30);
  BOOST_TEST(io_rec->probes["a"] >= 32u);
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(view().active_site == "a");
  BOOST_TEST(platform.rec->count_events("FailoverStarted") == 0u);
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(cooldown_suppresses_a_second_failover_even_across_a_restart, two_sites) {
  start_healthy();
  io_rec->probe["a"] = failed_probe();
  polls(3);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  self->send(coord(), plan_done_atom::value,
             result_of(exec->plans[0].id, true, gtid(U1, 1, 10)));
  run();
  BOOST_REQUIRE_EQUAL(view().active_site, "b");
  auto failed_over_at = wall_now();
  // a comes back as a healthy replica of b; then b dies inside the cooldown.
  io_rec->probe["a"] = read_only_probe(gtid(U1, 1, 10), true);
  io_rec->probe["b"] = failed_probe();
  polls(4);
  BOOST_TEST(exec->plans.size() == 1u);
  // Restart the coordinator: the cooldown record comes back from the store (S7).
  auto old = child("coordinator");
  self->send_exit(old, crash());
  run();
  advance(1s);  // supervisor backoff
  auto fresh = child("coordinator");
  BOOST_REQUIRE(fresh);
  BOOST_TEST((fresh != old));
  BOOST_TEST(platform.rec->loads == 2u);
  BOOST_TEST(view().active_site == "b");
  // Just before the cooldown ends: still suppressed.
  while (wall_now() < failed_over_at + spec.failover_cooldown - 4s) polls(1);
  BOOST_TEST(exec->plans.size() == 1u);
  // After it: the failover proceeds to a.
  polls(4);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 2u);
  BOOST_TEST(exec->plans[1].candidate == "a");
  BOOST_TEST(exec->plans[1].old_primary == "b");
  BOOST_TEST(exec->plans[1].epoch > exec->plans[0].epoch + 1);
  check_no_unexpected();
}

// The kubelet e2e run of 2026-11-26: the store stopped answering during a failover; the phase and
// then the failed result were refused, and no failover was ever tried again. Now the result is
// written again once the store answers, and the failover retried after the plan retry delay.
BOOST_FIXTURE_TEST_CASE(a_failover_failed_by_a_refused_store_is_retried_once_the_store_answers,
                        two_sites) {
  start_healthy();
  io_rec->probe["a"] = failed_probe();
  polls(3);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  const auto first = exec->plans[0];
  platform.rec->refuse_persists = true;
  bool acked = true;
  self->send(coord(), phase_atom::value, first.id, plan_phase::killing_sessions, plan_facts{});
  run();
  self->receive([&](bool ok) { acked = ok; }, caf::after(std::chrono::seconds(0)) >> [] {});
  BOOST_TEST(!acked);
  self->send(coord(), plan_done_atom::value,
             result_of(first.id, false, "", "killing_sessions: progress not persisted"));
  run();
  BOOST_TEST(platform.rec->count_events("FailoverFailed") == 1u);
  auto refused = platform.rec->persisted.size();
  polls(20);  // 40 s: the store still refuses, so the plan stays running in it
  BOOST_TEST(platform.rec->persisted.size() > refused);  // offered again while refused
  BOOST_TEST(platform.rec->disk.plan_active);
  BOOST_TEST(exec->plans.size() == 1u);
  platform.rec->refuse_persists = false;
  polls(1);
  BOOST_TEST(!platform.rec->disk.plan_active);
  BOOST_TEST(platform.rec->disk.plan.phase == plan_phase::failed);
  // The retry delay has passed meanwhile: the failover starts again under a new epoch.
  polls(1);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 2u);
  BOOST_TEST(exec->plans[1].id == first.id + 1);
  BOOST_TEST(exec->plans[1].kind == plan_kind::failover);
  BOOST_TEST(exec->plans[1].candidate == "b");
  BOOST_TEST(exec->plans[1].epoch == first.epoch + 1);
  BOOST_TEST(view().deposing == "a");
  BOOST_TEST(platform.rec->count_events("FailoverFailed") == 1u);  // said once
  BOOST_TEST(platform.rec->count_events("FailoverStarted") == 2u);
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(a_crashed_executor_is_respawned_from_the_persisted_phase, two_sites) {
  start_healthy();
  io_rec->probe["a"] = failed_probe();
  polls(3);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  auto id = exec->plans[0].id;
  bool acked = false;
  self->send(coord(), phase_atom::value, id, plan_phase::promoting, plan_facts{gtid(U1, 1, 10), {}, {}});
  run();
  self->receive([&](bool ok) { acked = ok; }, caf::after(std::chrono::seconds(0)) >> [] {});
  BOOST_TEST(acked);
  BOOST_TEST(platform.rec->disk.plan.phase == plan_phase::promoting);
  self->send_exit(exec->executors[0], caf::exit_reason::kill);
  run();
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 2u);
  BOOST_TEST(exec->plans[1].id == id);
  BOOST_TEST(exec->plans[1].phase == plan_phase::promoting);
  BOOST_TEST(exec->plans[1].promotion_gtid == gtid(U1, 1, 10));
  BOOST_TEST(exec->plans[1].epoch == exec->plans[0].epoch);
  // A restarted coordinator resumes the same plan too.
  self->send_exit(child("coordinator"), crash());
  run();
  advance(1s);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 3u);
  BOOST_TEST(exec->plans[2].id == id);
  BOOST_TEST(exec->plans[2].phase == plan_phase::promoting);
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(incomparable_candidates_alert_and_do_not_promote, operator_fixture) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  add_site("c", site_role::primary_candidate);
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10) + "," + gtid(U2, 1, 1), true);
  io_rec->probe["c"] = read_only_probe(gtid(U1, 1, 10) + "," + gtid(U3, 1, 1), true);
  start();
  polls(2);
  BOOST_REQUIRE_EQUAL(view().active_site, "a");
  io_rec->probe["a"] = failed_probe();
  polls(6);
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(platform.rec->count_events("FailoverBlocked") == 1u);
  auto ev = platform.rec->last_event("FailoverBlocked");
  BOOST_REQUIRE(ev != nullptr);
  BOOST_TEST(ev->type == "Warning");
  BOOST_TEST(ev->message.find("incomparable") != std::string::npos);
  BOOST_TEST(view().active_site == "a");
  // Once c catches up with b's extra transaction (b's set is then a subset), c wins.
  io_rec->probe["c"] = read_only_probe(gtid(U1, 1, 10) + "," + gtid(U2, 1, 1) + "," +
                                           gtid(U3, 1, 1),
                                       true);
  polls(2);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  BOOST_TEST(exec->plans[0].candidate == "c");
  check_no_unexpected();
}
