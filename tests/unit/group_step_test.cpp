// Table tests of step() (actors/operator/decide/group_step.hpp): every rule the coordinator used to
// apply inline, driven with values only. Each case names the rule it pins down; removing that rule
// from step() makes the case fail.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/topology.hpp"
#include "tests/unit/group_step_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using namespace group_step_test;

BOOST_FIXTURE_TEST_SUITE(group_step, group_fixture)

// -- loading, adopting, persist before publish (S6) ----------------------------------------------

BOOST_AUTO_TEST_CASE(nothing_is_decided_before_the_state_is_loaded) {
  report(rep("a", site_state::writable));
  report(rep("b", site_state::read_only));
  report(rep("c", site_state::read_only));
  BOOST_TEST(count<effect::persist>() == 0u);
  BOOST_TEST(busy(st));
}

BOOST_AUTO_TEST_CASE(adopts_the_single_writable_candidate_and_publishes_only_after_the_write) {
  load();
  report(rep("b", site_state::read_only));
  report(rep("c", site_state::read_only));
  BOOST_TEST(count<effect::persist>() == 0u);
  report(rep("a", site_state::writable));
  auto next = persisted_next();
  BOOST_TEST(next.view.epoch == 1u);
  BOOST_TEST(next.view.active_site == "a");
  BOOST_TEST(st.view.active_site.empty());  // not published before the store confirmed
  BOOST_TEST(count<effect::publish>() == 0u);
  store_ok();
  BOOST_REQUIRE_EQUAL(count<effect::publish>(), 1u);
  BOOST_TEST(all<effect::publish>().front().view.active_site == "a");
  BOOST_TEST(st.view.epoch == 1u);
}

BOOST_AUTO_TEST_CASE(a_refused_write_publishes_nothing) {
  load();
  for (auto s : {"b", "c"}) report(rep(s, site_state::read_only));
  report(rep("a", site_state::writable));
  BOOST_REQUIRE_EQUAL(count<effect::persist>(), 1u);
  run(input::persisted{false, "store down"});
  BOOST_TEST(count<effect::publish>() == 0u);
  BOOST_TEST(st.view.active_site.empty());
  BOOST_TEST(st.durable.view.epoch == 0u);
  BOOST_TEST(has_log("state persist failed"));
}

BOOST_AUTO_TEST_CASE(adoption_table) {
  struct row {
    const char* name;
    site_role role_a;
    std::string last_failover_target;
    bool adopts;
  };
  std::vector<row> rows = {
      {"candidate, no history", site_role::primary_candidate, "", true},
      {"candidate named by history", site_role::primary_candidate, "a", true},
      {"history names another site", site_role::primary_candidate, "b", false},
      {"dr-only is fenced, never adopted", site_role::dr_only, "", false},
  };
  for (const auto& r : rows) {
    group_fixture f;
    f.rules.roles["a"] = r.role_a;
    durable_state d;
    d.last_failover_target = r.last_failover_target;
    f.load(d);
    for (auto s : {"b", "c"}) f.report(rep(s, site_state::read_only));
    f.report(rep("a", site_state::writable));
    bool adopted = false;
    for (auto& p : f.all<effect::persist>()) adopted = adopted || p.next.view.active_site == "a";
    BOOST_TEST(adopted == r.adopts, r.name);
  }
}

BOOST_AUTO_TEST_CASE(writes_run_one_at_a_time_and_the_epoch_never_goes_back) {
  load();
  st.durable.view = {10, "a", "", 1, {}};
  st.view = st.durable.view;
  // One write in flight (its result: epoch 11), a queued plan whose deposing view says epoch 3.
  st.persisting = change_adopt{"a", 1};
  st.persisting_next = st.durable;
  st.persisting_next.view.epoch = 11;
  failover_plan stale;
  stale.id = 1;
  stale.epoch = 3;
  stale.candidate = "b";
  stale.old_primary = "a";
  st.persist_queue.push_back(change_start_plan{stale, true, 1});
  store_ok();
  auto next = persisted_next();  // exactly one write asked, the queued one
  BOOST_TEST(next.view.epoch == 11u);  // clamped: never below the persisted epoch (S6)
  BOOST_TEST(next.plan_active);
}

// -- fencing and failover guards -----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(writable_non_candidate_is_fenced_once_while_in_flight) {
  rules.roles["c"] = site_role::dr_only;
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  report(rep("c", site_state::writable));
  BOOST_TEST(fenced() == std::vector<std::string>{"c"});
  advance(2s);
  report(rep("c", site_state::writable));
  BOOST_TEST(fenced().empty());  // the first fence is still in flight
  run(input::fenced{"c", true});
  advance(2s);
  report(rep("c", site_state::writable));
  BOOST_TEST(fenced() == std::vector<std::string>{"c"});
}

namespace {
/// A settled group whose primary `a` just became unreachable; b and c read-only with the sets given.
void lose_primary(group_fixture& f, const std::string& b_gtid, const std::string& c_gtid) {
  f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  f.report(rep("b", site_state::read_only, b_gtid, true));
  f.report(rep("c", site_state::read_only, c_gtid, true));
  f.report(rep("a", site_state::unreachable));
}
}  // namespace

BOOST_AUTO_TEST_CASE(failover_promotes_the_freshest_candidate_under_a_new_epoch) {
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  auto next = persisted_next();
  BOOST_TEST(next.plan_active);
  BOOST_TEST(next.plan.kind == plan_kind::failover);
  BOOST_TEST(next.plan.candidate == "c");  // more transactions wins over declared order
  BOOST_TEST(next.plan.old_primary == "a");
  BOOST_TEST(!next.plan.old_primary_reachable);
  BOOST_TEST(next.plan.epoch == 2u);
  BOOST_TEST(next.view.active_site.empty());  // the deposing view
  BOOST_TEST(next.view.deposing == "a");
  BOOST_TEST((next.plan.followers == std::vector<std::string>{"b"}));
  BOOST_TEST(count<effect::start_executor>() == 0u);  // not before the plan is durable
  store_ok();
  BOOST_REQUIRE_EQUAL(count<effect::start_executor>(), 1u);
  BOOST_TEST(has_event("FailoverStarted"));
  BOOST_TEST(st.executor_running);
}

BOOST_AUTO_TEST_CASE(candidates_are_ranked_by_what_they_can_reach_once_drained) {
  // b applied more (1-7) but c received more (1-9, applied 1-5): c's relay log holds
  // transactions the old primary acknowledged, so c must win (its drain applies them).
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  report(rep("b", site_state::read_only, gtid(U1, 1, 7), true));
  auto c = rep("c", site_state::read_only, gtid(U1, 1, 5), true);
  c.probe.received_gtid = gtid(U1, 1, 9);
  report(c);
  report(rep("a", site_state::unreachable));
  BOOST_TEST(persisted_next().plan.candidate == "c");
}

BOOST_AUTO_TEST_CASE(failover_guards_table) {
  struct row {
    const char* name;
    std::function<void(group_fixture&)> arrange;
    std::string c_gtid;
    std::string event;  ///< expected Event reason ("" = none)
  };
  std::vector<row> rows = {
      {"unknown gtid_executed blocks", {}, "", "FailoverBlocked"},
      {"incomparable sets block", {}, gtid(U2, 1, 3), "FailoverBlocked"},
      {"cooldown blocks",
       [](group_fixture& f) {
         f.st.durable.last_failover_ms =
             std::chrono::duration_cast<std::chrono::milliseconds>(
                 (f.clock.wall - 1min).time_since_epoch())
                 .count();
         f.st.durable.last_failover_target = "a";
       },
       gtid(U1, 1, 7), ""},
      {"a recent failed plan blocks (retry delay)",
       [](group_fixture& f) { f.st.last_plan_failure = f.clock.now - 10s; }, gtid(U1, 1, 7), ""},
  };
  for (const auto& r : rows) {
    group_fixture f;
    f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
    if (r.arrange) r.arrange(f);
    f.report(rep("b", site_state::read_only, gtid(U1, 1, 5), true));
    auto c = rep("c", site_state::read_only, r.c_gtid, true);
    if (r.c_gtid.empty()) c.probe_ok = false;  // no good probe: its set is unknown
    f.st.good_probes.erase("c");
    f.report(c);
    f.report(rep("a", site_state::unreachable));
    BOOST_TEST(f.count<effect::persist>() == 0u, r.name);
    BOOST_TEST(!f.st.durable.plan_active, r.name);
    if (!r.event.empty()) BOOST_TEST(f.has_event(r.event), r.name);
  }
}

BOOST_AUTO_TEST_CASE(the_retry_delay_and_the_cooldown_expire) {
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  store_ok();
  run(input::plan_done{[&] {
    plan_result r;
    r.id = st.durable.plan.id;
    r.error = "draining: deadline exceeded";
    r.reached = plan_phase::draining;
    return r;
  }()});
  store_ok();
  BOOST_TEST(has_event("FailoverFailed"));
  BOOST_TEST(has_metric(metric_kind::failover_failure));
  advance(10s);
  report(rep("a", site_state::unreachable));
  BOOST_TEST(count<effect::persist>() == 0u);  // inside the retry delay
  advance(30s);
  report(rep("a", site_state::unreachable));
  BOOST_TEST(persisted_next().plan.kind == plan_kind::failover);
}

// The kubelet e2e run of 2026-11-26: the API timed out, so the failover's phase was refused (the
// executor failed the plan: "progress not persisted") and the failed result was refused too. The
// group stayed plan_active (busy) with no executor and never tried again.
BOOST_AUTO_TEST_CASE(a_result_the_store_refused_is_recorded_again_then_the_failover_retried) {
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  store_ok();
  auto id = st.durable.plan.id;
  run(input::phase{id, plan_phase::killing_sessions, {}, 7});
  run(input::persisted{false, "Timeout"});
  BOOST_REQUIRE_EQUAL(count<effect::reply>(), 1u);
  BOOST_TEST(!all<effect::reply>().front().ok);
  plan_result r;
  r.id = id;
  r.error = "killing_sessions: progress not persisted";
  r.reached = plan_phase::killing_sessions;
  run(input::plan_done{r});
  BOOST_TEST(persisted_next().plan_active == false);
  run(input::persisted{false, ""});  // the failed result is refused as well
  BOOST_TEST(has_event("FailoverFailed"));
  BOOST_TEST(st.durable.plan_active);  // the store still holds the running plan
  BOOST_TEST(!st.executor_running);
  // Polls go on while the API does not answer: the result is offered again, once per poll.
  advance(2s);
  report(rep("a", site_state::unreachable));
  BOOST_TEST(!persisted_next().plan_active);
  run(input::persisted{false, "Timeout"});
  report(rep("b", site_state::read_only, gtid(U1, 1, 6), true));  // a change: evaluated at once
  BOOST_TEST(count<effect::persist>() == 0u);  // but not offered twice within one poll interval
  // The API answers again: the failure is recorded, without a second FailoverFailed.
  advance(2s);
  report(rep("a", site_state::unreachable));
  auto next = persisted_next();
  BOOST_TEST(!next.plan_active);
  BOOST_TEST(next.plan.id == id);
  BOOST_TEST(next.plan.phase == plan_phase::failed);
  BOOST_TEST(next.view.epoch == 2u);  // still the deposing view of the failed plan
  BOOST_TEST(next.view.deposing == "a");
  store_ok();
  BOOST_TEST(!has_event("FailoverFailed"));
  BOOST_TEST(!has_metric(metric_kind::failover_failure));
  BOOST_TEST(!st.durable.plan_active);
  // Nothing before plan_retry_delay has passed since the failure ...
  advance(20s);
  report(rep("a", site_state::unreachable));
  BOOST_TEST(count<effect::persist>() == 0u);
  // ... then a new failover under a new epoch.
  advance(10s);
  report(rep("a", site_state::unreachable));
  next = persisted_next();
  BOOST_TEST(next.plan_active);
  BOOST_TEST(next.plan.kind == plan_kind::failover);
  BOOST_TEST(next.plan.id == id + 1);
  BOOST_TEST(next.plan.epoch == 3u);
  BOOST_TEST(next.plan.candidate == "c");
}

// A promotion that succeeded but whose result the store refused: the same record is offered
// again (a restart would resume the plan and record it too); the view names the new primary only
// once it is durable.
BOOST_AUTO_TEST_CASE(a_successful_result_the_store_refused_is_published_once_recorded) {
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  store_ok();
  plan_result r;
  r.id = st.durable.plan.id;
  r.ok = true;
  r.reached = plan_phase::done;
  r.promotion_gtid = gtid(U1, 1, 7);
  run(input::plan_done{r});
  run(input::persisted{false, "Timeout"});
  BOOST_TEST(count<effect::publish>() == 0u);
  BOOST_TEST(!has_event("FailoverExecuted"));
  BOOST_TEST(st.view.active_site.empty());
  advance(2s);
  report(rep("a", site_state::unreachable));
  auto next = persisted_next();
  BOOST_TEST(next.view.active_site == "c");
  BOOST_TEST(next.view.epoch == 3u);
  BOOST_TEST(count<effect::start_executor>() == 0u);
  store_ok();
  BOOST_REQUIRE_EQUAL(count<effect::publish>(), 1u);
  BOOST_TEST(all<effect::publish>().front().view.active_site == "c");
  BOOST_TEST(has_event("FailoverExecuted"));
  BOOST_TEST(!st.durable.plan_active);
}

// -- split brain ---------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(split_brain_tiers_table) {
  struct row {
    const char* name;
    std::string last_failover_target;
    std::vector<std::string> priorities;
    std::vector<std::string> fenced;
    bool plan;
  };
  std::vector<row> rows = {
      {"tier 1: history keeps the last failover target", "b", {}, {"a"}, false},
      {"tier 2: sitePriorities picks the winner, normal promotion", "", {"b"}, {"a"}, true},
      {"tier 3: no history, no priorities: alert only", "", {}, {}, false},
  };
  for (const auto& r : rows) {
    group_fixture f;
    f.rules.site_priorities = r.priorities;
    durable_state d;
    d.view = {1, "a", "", 1, {}};
    d.last_failover_target = r.last_failover_target;
    f.load(d);
    f.report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
    f.report(rep("a", site_state::writable, gtid(U1, 1, 5)));
    f.report(rep("b", site_state::writable, gtid(U1, 1, 6)));
    BOOST_TEST(f.has_event("SplitBrainDetected"), r.name);
    BOOST_TEST(f.fenced() == r.fenced, r.name);
    if (r.fenced.empty()) {
      BOOST_TEST(f.count<effect::persist>() == 0u, r.name);
      continue;
    }
    // The losers are marked RecoveryPending first (durably), before anything else.
    auto next = f.persisted_next();
    BOOST_TEST(next.recovery["a"].state == "RecoveryPending", r.name);
    f.store_ok();
    bool planned = false;
    for (auto& p : f.all<effect::persist>())
      planned = planned || (p.next.plan_active && p.next.plan.candidate == "b");
    BOOST_TEST(planned == r.plan, r.name);
  }
}

// -- returning old primary (S4) ------------------------------------------------------------------

namespace {
/// b was promoted (last failover target); a comes back read-only without a channel.
/// `before_a` runs just before a's report.
void returning(group_fixture& f, const std::string& a_gtid,
               const std::function<void(group_fixture&)>& before_a = {}) {
  durable_state d;
  d.view = {3, "b", "", 1, {}};
  d.last_failover_target = "b";
  d.last_failover_ms = 1;
  f.load(d);
  f.report(rep("b", site_state::writable, gtid(U1, 1, 9)));
  f.report(rep("c", site_state::read_only, gtid(U1, 1, 9), true));
  if (before_a) before_a(f);
  f.report(rep("a", site_state::read_only, a_gtid, false));
}
}  // namespace

BOOST_AUTO_TEST_CASE(returning_primary_is_fenced_then_read_then_classified) {
  struct row {
    const char* name;
    std::string a_after_fence;
    std::string b_read_after;  ///< the active primary's set, read after a's (b polled U1:1-9)
    bool recover;
  };
  std::vector<row> rows = {
      {"contained: a recover plan", gtid(U1, 1, 7), gtid(U1, 1, 9), true},
      {"divergent: RecoveryBlocked, DataLossDetected", gtid(U1, 1, 7) + "," + gtid(U2, 1, 2),
       gtid(U1, 1, 9), false},
      // a, repointed to b, already replicated b's newest transactions (U3) that b's last poll
      // predates: compared with the set read after a's, nothing is divergent.
      {"replicated past the active's last poll: contained", gtid(U1, 1, 9) + "," + gtid(U3, 1, 2),
       gtid(U1, 1, 9) + "," + gtid(U3, 1, 3), true},
      {"still divergent against the fresh set", gtid(U1, 1, 9) + "," + gtid(U2, 1, 1),
       gtid(U1, 1, 9) + "," + gtid(U3, 1, 3), false},
  };
  for (const auto& r : rows) {
    group_fixture f;
    returning(f, gtid(U1, 1, 7));
    BOOST_TEST(f.fenced() == std::vector<std::string>{"a"}, r.name);
    BOOST_TEST(f.count<effect::read_gtid>() == 0u, r.name);  // not before the fence held
    f.run(input::fenced{"a", true});
    BOOST_REQUIRE_EQUAL(f.count<effect::read_gtid>(), 1u);
    BOOST_TEST(f.all<effect::read_gtid>().front().site == "a", r.name);
    mysql_outcome o;
    o.ok = true;
    o.value = r.a_after_fence;
    f.run(input::gtid_read{"a", o});
    // Not classified against b's polled set: b's set is read now, after a's.
    BOOST_TEST(f.count<effect::persist>() == 0u, r.name);
    BOOST_REQUIRE_EQUAL(f.count<effect::read_gtid>(), 1u);
    BOOST_TEST(f.all<effect::read_gtid>().front().site == "b", r.name);
    mysql_outcome ob;
    ob.ok = true;
    ob.value = r.b_read_after;
    f.run(input::gtid_read{"b", ob});
    auto next = f.persisted_next();
    if (r.recover) {
      BOOST_TEST(next.plan_active, r.name);
      BOOST_TEST(next.plan.kind == plan_kind::recover, r.name);
      BOOST_TEST(next.plan.source == "b", r.name);
      BOOST_TEST(next.recovery["a"].state == "RecoveryInProgress", r.name);
    } else {
      BOOST_TEST(next.recovery["a"].state == "RecoveryBlocked", r.name);
      BOOST_TEST(next.recovery["a"].divergent_count >= 1u, r.name);
      BOOST_TEST(!f.has_event("DataLossDetected"), r.name);  // only once it is durable
      f.store_ok();
      BOOST_TEST(f.has_event("DataLossDetected"), r.name);
      BOOST_TEST(f.has_metric(metric_kind::divergent), r.name);
      BOOST_TEST(f.st.recovering.empty(), r.name);
    }
  }
}

BOOST_AUTO_TEST_CASE(returning_check_is_dropped_when_the_active_set_cannot_be_read) {
  returning(*this, gtid(U1, 1, 7));
  run(input::fenced{"a", true});
  mysql_outcome o;
  o.ok = true;
  o.value = gtid(U1, 1, 7);
  run(input::gtid_read{"a", o});
  mysql_outcome failed;
  failed.ok = false;
  run(input::gtid_read{"b", failed});
  BOOST_TEST(count<effect::persist>() == 0u);
  BOOST_TEST(st.recovering.empty());  // checked again on a later poll
  BOOST_TEST(st.returning_sets.empty());
}

BOOST_AUTO_TEST_CASE(returning_check_is_dropped_when_the_fence_fails) {
  returning(*this, gtid(U1, 1, 7));
  run(input::fenced{"a", false});
  BOOST_TEST(count<effect::read_gtid>() == 0u);
  BOOST_TEST(st.recovering.empty());  // checked again on a later poll
}

BOOST_AUTO_TEST_CASE(returning_check_joins_a_fence_already_in_flight) {
  // Another rule's fence of a is still running when a is seen returning.
  returning(*this, gtid(U1, 1, 7), [](group_fixture& f) { f.st.fencing["a"] = false; });
  BOOST_TEST(fenced().empty());
  BOOST_TEST(st.recovering.count("a") == 1u);
  run(input::fenced{"a", true});
  BOOST_TEST(count<effect::read_gtid>() == 1u);  // the check goes on once that fence held
}

// -- re-assert and the dead man's switch ----------------------------------------------------------

BOOST_AUTO_TEST_CASE(reassert_clears_the_fence_of_the_recorded_target) {
  durable_state d;
  d.view = {4, "b", "", 1, {}};
  d.last_failover_target = "b";
  d.promotion_gtid = gtid(U1, 1, 5);
  d.last_failover_ms = 1;
  load(d);
  report(rep("a", site_state::read_only, gtid(U1, 1, 5), true));
  report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
  report(rep("b", site_state::read_only, gtid(U1, 1, 6)));
  BOOST_REQUIRE_EQUAL(count<effect::reassert>(), 1u);
  BOOST_TEST(all<effect::reassert>().front().site == "b");
  BOOST_TEST(has_event("NoPrimaryDetected"));
  mysql_outcome ok;
  ok.ok = true;
  run(input::reassert_done{"b", ok});
  BOOST_TEST(has_metric(metric_kind::reassert));
}

BOOST_AUTO_TEST_CASE(reassert_is_refused_when_a_peer_holds_more) {
  durable_state d;
  d.view = {4, "b", "", 1, {}};
  d.last_failover_target = "b";
  d.promotion_gtid = gtid(U1, 1, 5);
  load(d);
  report(rep("a", site_state::read_only, gtid(U1, 1, 8), true));
  report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
  report(rep("b", site_state::read_only, gtid(U1, 1, 6)));
  BOOST_TEST(count<effect::reassert>() == 0u);
  BOOST_TEST(has_log("primary re-assert refused"));
}

BOOST_AUTO_TEST_CASE(heartbeat_of_the_active_site_with_a_switch_check_per_interval) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  // The first writable report of a checked the switch (ensure); answer it "armed".
  mysql_outcome armed;
  armed.ok = true;
  armed.value = "armed";
  run(input::heartbeat_done{"a", true, armed});
  advance(2s);
  report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  auto hb = all<effect::heartbeat>();
  BOOST_REQUIRE_EQUAL(hb.size(), 1u);
  BOOST_TEST(!hb.front().ensure);
  advance(2s);
  report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  BOOST_TEST(count<effect::heartbeat>() == 0u);  // the previous one is still in flight
  run(input::heartbeat_done{"a", false, armed});
  advance(61s);
  report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  BOOST_REQUIRE_EQUAL(count<effect::heartbeat>(), 1u);
  BOOST_TEST(all<effect::heartbeat>().front().ensure);
  mysql_outcome not_armed;
  not_armed.ok = true;
  not_armed.value = "missing";
  run(input::heartbeat_done{"a", true, not_armed});
  BOOST_TEST(has_event("DeadMansSwitchNotArmed"));
}

BOOST_AUTO_TEST_CASE(no_heartbeat_for_a_site_not_held_active_or_while_busy) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::heartbeat_done{"a", true, std::nullopt});
  report(rep("b", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST(count<effect::heartbeat>() == 0u);
  st.durable.plan_active = true;
  advance(2s);
  report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  BOOST_TEST(count<effect::heartbeat>() == 0u);
}

// -- plans ---------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(phases_are_answered_after_they_are_durable) {
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  store_ok();
  auto id = st.durable.plan.id;
  run(input::phase{id + 7, plan_phase::gating, {}, 41});
  BOOST_REQUIRE_EQUAL(count<effect::reply>(), 1u);
  BOOST_TEST(!all<effect::reply>().front().ok);  // not the running plan
  run(input::phase{id, plan_phase::gating, {}, 42});
  BOOST_TEST(count<effect::reply>() == 0u);
  BOOST_TEST(persisted_next().plan.phase == plan_phase::gating);
  store_ok();
  BOOST_REQUIRE_EQUAL(count<effect::reply>(), 1u);
  BOOST_TEST(all<effect::reply>().front().id == 42u);
  BOOST_TEST(all<effect::reply>().front().ok);
}

BOOST_AUTO_TEST_CASE(a_successful_failover_publishes_the_new_primary_and_records_it) {
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  store_ok();
  plan_result r;
  r.id = st.durable.plan.id;
  r.ok = true;
  r.reached = plan_phase::done;
  r.promotion_gtid = gtid(U1, 1, 7);
  run(input::plan_done{r});
  BOOST_TEST(!st.executor_running);
  auto next = persisted_next();
  BOOST_TEST(next.view.epoch == 3u);
  BOOST_TEST(next.view.active_site == "c");
  BOOST_TEST(next.last_failover_target == "c");
  BOOST_TEST(next.promotion_gtid == gtid(U1, 1, 7));
  BOOST_TEST(next.last_failover_ms > 0);
  BOOST_TEST(!has_event("FailoverExecuted"));
  store_ok();
  BOOST_TEST(has_event("FailoverExecuted"));
  BOOST_TEST(has_metric(metric_kind::failover));
  BOOST_TEST(st.view.active_site == "c");
}

BOOST_AUTO_TEST_CASE(results_of_unknown_plans_are_ignored) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  plan_result r;
  r.id = 99;
  r.ok = true;
  run(input::plan_done{r});
  BOOST_TEST(count<effect::persist>() == 0u);
  BOOST_TEST(has_log("result of an unknown plan ignored"));
}

BOOST_AUTO_TEST_CASE(a_failed_rejoin_is_pending_again) {
  returning(*this, gtid(U1, 1, 7));
  run(input::fenced{"a", true});
  mysql_outcome o;
  o.ok = true;
  o.value = gtid(U1, 1, 7);
  run(input::gtid_read{"a", o});
  o.value = gtid(U1, 1, 9);
  run(input::gtid_read{"b", o});  // the active primary's set, read after a's
  store_ok();
  plan_result r;
  r.id = st.durable.plan.id;
  r.error = "repointing: refused";
  run(input::plan_done{r});
  BOOST_TEST(persisted_next().recovery["a"].state == "RecoveryPending");
  store_ok();
  BOOST_TEST(has_event("RecoveryFailed"));
}

BOOST_AUTO_TEST_CASE(a_dead_executor_is_resumed_then_given_up) {
  rules.max_executor_respawns = 2;
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  store_ok();
  for (int i = 0; i < 2; ++i) {
    run(input::executor_down{"crash"});
    BOOST_REQUIRE_EQUAL(count<effect::start_executor>(), 1u);
    BOOST_TEST(all<effect::start_executor>().front().plan.id == st.durable.plan.id);
  }
  run(input::executor_down{"crash"});
  BOOST_TEST(count<effect::start_executor>() == 0u);
  auto next = persisted_next();
  BOOST_TEST(!next.plan_active);
  BOOST_TEST(next.plan.phase == plan_phase::failed);
  run(input::executor_down{"late"});  // no executor runs: nothing happens
  BOOST_TEST(effects.empty());
}

BOOST_AUTO_TEST_CASE(a_persisted_plan_resumes_on_load) {
  durable_state d;
  d.view = {2, "", "a", 1, {}};
  d.plan_active = true;
  d.plan.id = 4;
  d.plan.candidate = "b";
  d.plan.phase = plan_phase::draining;
  load(d);
  BOOST_REQUIRE_EQUAL(count<effect::start_executor>(), 1u);
  BOOST_TEST(all<effect::start_executor>().front().plan.phase == plan_phase::draining);
  BOOST_TEST(st.view.deposing == "a");  // the persisted view is published as it is
}

// -- requests ------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(reclone_requests_table) {
  struct row {
    const char* name;
    std::string key, value;
    bool busy;
    std::string answer_prefix;
    bool loaded = true;
    bool rejected_event = false;  // a RecloneRejected Event tells the requester
  };
  std::vector<row> rows = {
      {"unknown annotation", "x/y", "a:confirm=g", false, "rejected: unknown annotation"},
      {"another plan runs", reclone_annotation, "a:confirm=g", true, "rejected: another plan",
       true, true},
      {"state not loaded yet: try again", reclone_annotation, "a:confirm=g", false, "busy:", false},
      {"the active primary", reclone_annotation, "b:confirm=g", false, "rejected:", true, true},
      {"cold confirm of a follower", reclone_annotation, "a:confirm=g", false, "accepted:"},
  };
  for (const auto& r : rows) {
    group_fixture f;
    returning(f, gtid(U1, 1, 7));
    f.run(input::fenced{"a", false});
    f.st.durable.plan_active = r.busy;
    f.st.loaded = r.loaded;
    f.run(input::annotate{r.key, r.value});
    BOOST_REQUIRE(f.answer.has_value());
    BOOST_TEST(f.answer->rfind(r.answer_prefix, 0) == 0u, r.name << ": " << *f.answer);
    bool rejected_event = false;
    for (const auto& e : f.all<effect::emit>())
      rejected_event = rejected_event || e.event.reason == "RecloneRejected";
    BOOST_TEST(rejected_event == r.rejected_event, r.name);
    bool planned = f.count<effect::persist>() == 1u;
    BOOST_TEST(planned == (r.answer_prefix == "accepted:"), r.name);
  }
}

BOOST_AUTO_TEST_CASE(switchover_starts_a_plan_under_a_new_epoch) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::switchover{"b"});
  BOOST_REQUIRE(answer.has_value());
  BOOST_TEST(answer->rfind("accepted:", 0) == 0u);
  auto next = persisted_next();
  BOOST_TEST(next.plan.kind == plan_kind::switchover);
  BOOST_TEST(next.plan.candidate == "b");
  BOOST_TEST(next.plan.old_primary == "a");
  BOOST_TEST(next.view.deposing == "a");
  BOOST_TEST(next.view.epoch == 2u);
  run(input::switchover{"c"});  // a plan is being written: busy (transient, asked again)
  BOOST_TEST(answer->rfind("busy:", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(a_switchover_rolled_back_makes_the_source_active_again_then_unfences_it) {
  // S3: a switchover whose candidate did not catch up promotes nothing; the source is published
  // as the active site under a new epoch, and only once that is durable is it unfenced (through
  // the dead man's switch, armed required under Safe).
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  rules.max_lag_wait = 7s;
  rules.session_drain_timeout = 3s;
  run(input::switchover{"b"});
  auto started = persisted_next();
  BOOST_TEST(started.plan.max_lag_wait == caf::timespan{7s});
  BOOST_TEST(started.plan.session_drain_timeout == caf::timespan{3s});
  store_ok();
  plan_result r;
  r.id = st.durable.plan.id;
  r.reached = plan_phase::draining;
  r.error = "draining: LagTimeout";
  r.source_kept = true;
  r.source_gtid = gtid(U1, 1, 9);
  run(input::plan_done{r});
  auto next = persisted_next();
  BOOST_TEST(next.view.active_site == "a");
  BOOST_TEST(next.view.deposing == "");
  BOOST_TEST(next.view.epoch == 3u);  // above the plan's deposing view (2)
  BOOST_TEST(next.last_failover_target == "");  // nothing failed over
  BOOST_TEST(count<effect::reassert>() == 0u);   // not before the view is durable
  store_ok();
  BOOST_REQUIRE_EQUAL(count<effect::reassert>(), 1u);
  BOOST_TEST(all<effect::reassert>().front().site == "a");
  BOOST_TEST(all<effect::reassert>().front().require_armed);
  BOOST_TEST(has_event("SwitchoverRolledBack"));
  BOOST_TEST(!has_event("FailoverFailed"));
  BOOST_TEST(st.view.active_site == "a");
}

BOOST_AUTO_TEST_CASE(a_failed_switchover_without_rollback_stays_deposed) {
  // Failed after promotion was attempted (source_kept false): nothing is unfenced.
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  run(input::switchover{"b"});
  store_ok();
  plan_result r;
  r.id = st.durable.plan.id;
  r.reached = plan_phase::confirming;
  r.error = "confirming: not writable";
  run(input::plan_done{r});
  auto next = persisted_next();
  BOOST_TEST(next.view.active_site == "");
  BOOST_TEST(next.view.deposing == "a");
  store_ok();
  BOOST_TEST(count<effect::reassert>() == 0u);
  BOOST_TEST(has_event("FailoverFailed"));
}

BOOST_AUTO_TEST_CASE(losses_of_a_promotion_are_recorded_reported_and_block_stranded_sites) {
  // S3/S4: what the executor found it could not carry over is reported exactly: status (the
  // durable record), an Event and a metric per loss; a stranded follower is RecoveryBlocked.
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  store_ok();
  plan_result r;
  r.id = st.durable.plan.id;
  r.ok = true;
  r.reached = plan_phase::done;
  r.promotion_gtid = gtid(U1, 1, 7);
  r.losses = {{"c", gtid_loss_discarded, gtid(U1, 8, 9), 2},
              {"b", gtid_loss_stranded, gtid(U2, 1, 3), 3}};
  run(input::plan_done{r});
  auto next = persisted_next();
  BOOST_REQUIRE_EQUAL(next.last_failover_losses.size(), 2u);
  BOOST_TEST(next.last_failover_losses[0].gtid == gtid(U1, 8, 9));
  BOOST_TEST(next.recovery["b"].state == "RecoveryBlocked");
  BOOST_TEST(next.recovery["b"].divergent_gtid == gtid(U2, 1, 3));
  BOOST_TEST(next.recovery["b"].divergent_count == 3u);
  BOOST_TEST(next.recovery.count("c") == 0u);  // the new primary is not blocked
  BOOST_TEST(!has_event("TransactionsLost"));  // said once durable
  store_ok();
  BOOST_TEST(has_event("TransactionsLost"));
  BOOST_TEST(has_event("TransactionsStranded"));
  auto ms = all<effect::metric>();
  double lost = 0;
  for (const auto& m : ms)
    if (m.kind == metric_kind::transactions_lost) lost += m.value;
  BOOST_TEST(lost == 5.0);
}

// Semi-sync (issue 25, decide/semisync_waiting.hpp): the active primary blocked waiting for
// acknowledgements two polls in a row raises SemiSyncWaiting once per episode; a follower never.
BOOST_AUTO_TEST_CASE(a_primary_blocked_waiting_for_acks_raises_one_event_per_episode) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  auto a = rep("a", site_state::writable, gtid(U1, 1, 5));
  a.probe.semisync.source_loaded = a.probe.semisync.source_enabled = a.probe.semisync.source_on = true;
  a.probe.semisync.wait_count = 1;
  a.probe.semisync.clients = 1;
  auto waiting = a;
  waiting.probe.semisync.wait_sessions = 2;
  const std::vector<std::pair<site_report, bool>> polls = {
      {a, false}, {waiting, false}, {waiting, true}, {waiting, false}, {a, false},
      {waiting, false}, {waiting, true}};
  for (std::size_t i = 0; i < polls.size(); ++i) {
    BOOST_TEST_CONTEXT("poll " << i) {
      advance(2s);
      report(polls[i].first);
      BOOST_TEST(has_event("SemiSyncWaiting") == polls[i].second);
    }
  }
  auto b = rep("b", site_state::read_only, gtid(U1, 1, 5), true);
  b.probe.semisync = waiting.probe.semisync;
  for (int i = 0; i < 3; ++i) {
    advance(2s);
    report(b);
    BOOST_TEST(!has_event("SemiSyncWaiting"));
  }
}

BOOST_AUTO_TEST_CASE(a_follower_whose_receiver_stopped_for_good_is_restarted_once_per_interval) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  auto b = rep("b", site_state::read_only, gtid(U1, 1, 5), true);
  b.probe.io_state = "OFF";
  b.probe.last_io_errno = 2003;
  advance(3s);
  report(b);
  BOOST_REQUIRE_EQUAL(count<effect::start_receiver>(), 1u);
  BOOST_TEST(all<effect::start_receiver>().front().site == "b");
  mysql_outcome ok;
  ok.ok = true;
  run(input::receiver_started{"b", ok});
  BOOST_TEST(has_event("ReplicationRestarted"));
  advance(3s);
  report(b);  // still OFF on the next poll: not again before the interval
  BOOST_TEST(count<effect::start_receiver>() == 0u);
  advance(30s);
  report(b);
  BOOST_TEST(count<effect::start_receiver>() == 1u);
}

// -- alerts and evaluation cadence ----------------------------------------------------------------

BOOST_AUTO_TEST_CASE(alerts_are_raised_once_per_situation_and_cleared_when_healthy) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  // The followers first (the primary still serves: degraded), then the primary: total loss.
  for (auto s : {"b", "c", "a"}) report(rep(s, site_state::unreachable));
  BOOST_TEST(has_event("TotalLossDetected"));
  advance(2s);
  report(rep("a", site_state::unreachable));
  BOOST_TEST(!has_event("TotalLossDetected"));  // once per situation
  report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  report(rep("b", site_state::read_only, gtid(U1, 1, 5), true));
  report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST(st.evaluation.verdict == group_verdict::healthy);
  for (auto s : {"b", "c", "a"}) report(rep(s, site_state::unreachable));
  BOOST_TEST(has_event("TotalLossDetected"));  // a new situation after healthy
}

BOOST_AUTO_TEST_CASE(unchanged_reports_are_evaluated_once_per_poll_interval) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  auto evaluated_at = st.last_evaluation;
  advance(500ms);
  report(rep("b", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST((st.last_evaluation == evaluated_at));
  BOOST_TEST(count<effect::status>() == 1u);  // the status still moves (coalesced)
  advance(2s);
  report(rep("b", site_state::read_only, gtid(U1, 1, 5), true));
  BOOST_TEST((st.last_evaluation == clock.now));
}

BOOST_AUTO_TEST_CASE(reports_of_unknown_sites_are_ignored) {
  settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  report(rep("zz", site_state::writable));
  BOOST_TEST(effects.empty());
  BOOST_TEST(!st.reports.count("zz"));
}

// -- the topology seam ---------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(async_replication_is_a_topology_of_its_own) {
  const auto& t = async_replication_topology();
  BOOST_TEST(t.name == "async-replication");
  BOOST_TEST((t.probe == mysql_op::probe));
  for (auto k : {plan_kind::failover, plan_kind::switchover, plan_kind::recover, plan_kind::reclone})
    BOOST_TEST(t.has_plan(k), to_string(k));
  // Its step is the one these cases drive: the same input gives the same decision through it.
  lose_primary(*this, gtid(U1, 1, 5), gtid(U1, 1, 7));
  auto through_seam = t.step(rules, st, input::persisted{true, ""}, clock);
  auto direct = step(rules, st, input::persisted{true, ""}, clock);
  BOOST_TEST(through_seam.effects.size() == direct.effects.size());
  BOOST_TEST(through_seam.state.executor_running == direct.state.executor_running);
}

BOOST_AUTO_TEST_SUITE_END()
