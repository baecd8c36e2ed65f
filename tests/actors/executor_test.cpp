// The failover executor in virtual time against a simulated fleet: exact command sequences,
// deadlines, the promotion gate (Safe/Fast), resume without a second promotion (S6), confirm
// before steer (S9), divergent followers (S4), recover and reclone.
#include "tests/actors/executor_fixture.hpp"


BOOST_FIXTURE_TEST_SUITE(failover_executor, exec_fixture)

BOOST_AUTO_TEST_CASE(failover_runs_the_exact_sequence) {
  const opmetrics::group_labels gl{deps().namespace_name, "orders"};
  const double flips0 = opmetrics::dns_flips(gl, "b").Value();
  const double taint_a0 = opmetrics::taint_operations(gl, "a", "taint").Value();
  const double untaint_b0 = opmetrics::taint_operations(gl, "b", "untaint").Value();
  start(failover());
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(r.reached == plan_phase::done);
  BOOST_TEST(r.fence_outcome == "fenced");
  // The drain waited for what b had RECEIVED; that is then the promotion GTID.
  BOOST_TEST(r.promotion_gtid == U1 + ":1-100");
  BOOST_TEST(join(fl->log) == join(cmds({
                                  "fence a",
                                  "kill_sessions a",  // fencing, killing
                                  "probe b",
                                  "wait_executed b",  // draining
                                  "stop_replica b",
                                  "probe b",  // stopping: what the relay log still holds
                                  "reset_replica_all b",
                                  "read_gtid b",  // recording_gtid
                                  "promote_switch b",    //
                                  "probe b",      // confirming
                                  "read_gtid b",  // repointing: primary set
                                  "read_gtid c",
                                  "stop_replica c",
                                  "change_source c",
                                  "start_replica c",  //
                                  "read_gtid r",
                                  "stop_replica r",
                                  "change_source r",
                                  "start_replica r",
                              })));
  // The drain target and the followers' new source (b's address, replication account).
  auto wait = std::find_if(fl->commands.begin(), fl->commands.end(),
                           [](auto& c) { return c.op == mysql_op::wait_executed; });
  BOOST_REQUIRE(wait != fl->commands.end());
  BOOST_TEST(wait->gtid == U1 + ":1-100");
  BOOST_TEST(wait->timeout.count() == caf::timespan(30s).count());
  for (auto& c : fl->commands)
    if (c.op == mysql_op::change_source) {
      BOOST_TEST(c.source.host == deps().targets["b"].host);
      BOOST_TEST(c.source.port == deps().targets["b"].port);
      BOOST_TEST(c.source.user == "repl");
      BOOST_TEST(c.source.password == "replpw");
    }
  // Every step persisted in order, the promotion GTID from recording_gtid on.
  BOOST_TEST(join(coord->phase_list()) ==
             join(std::vector<plan_phase>{
                 plan_phase::fencing_old, plan_phase::killing_sessions, plan_phase::gating,
                 plan_phase::draining, plan_phase::stopping_replica, plan_phase::resetting_replica,
                 plan_phase::recording_gtid, plan_phase::promoting, plan_phase::confirming,
                 plan_phase::steering, plan_phase::repointing}));
  for (auto& [ph, g] : coord->phases)
    BOOST_TEST((g == (ph >= plan_phase::recording_gtid ? U1 + ":1-100" : std::string())),
               to_string(ph) << " carried '" << g << "'");
  BOOST_TEST(join(routes()) == join(cmds({"orders b <- c r"})));
  BOOST_TEST(join(dns()) == join(cmds({"orders b 192.0.2.2"})));
  // Readers are never tainted; the old primary and the dr-only site are.
  BOOST_TEST(join(taints()) == join(cmds({"a=taint", "b=untaint", "c=taint"})));
  // Metrics of the steering: one DNS flip, one taint/untaint per site written.
  BOOST_TEST(opmetrics::dns_flips(gl, "b").Value() == flips0 + 1);
  BOOST_TEST(opmetrics::taint_operations(gl, "a", "taint").Value() == taint_a0 + 1);
  BOOST_TEST(opmetrics::taint_operations(gl, "b", "untaint").Value() == untaint_b0 + 1);
  BOOST_TEST(fl->servers["b"].writable);
  BOOST_TEST(!fl->servers["a"].writable);
  BOOST_TEST(fl->servers["c"].replicating);
  BOOST_TEST(r.losses.empty());  // b applied everything it had received
}

BOOST_AUTO_TEST_CASE(a_step_that_never_answers_aborts_with_its_name) {
  fl->hang.insert({"b", mysql_op::stop_replica});
  start(failover());
  BOOST_TEST(coord->done.empty());
  advance(10s - 1ms);
  BOOST_TEST(coord->done.empty());
  advance(1ms);
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::stopping_replica);
  BOOST_TEST(r.error == "stopping_replica: deadline exceeded");
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
  BOOST_TEST(platform.rec->dns.empty());
}

BOOST_AUTO_TEST_CASE(an_unanswered_persist_is_a_deadline_too) {
  coord->has_hold = true;
  coord->hold_at = plan_phase::gating;
  start(failover());
  advance(10s);
  const auto& r = only_result();
  BOOST_TEST(r.error == "gating: deadline exceeded");
  BOOST_TEST(fl->count("b", mysql_op::stop_replica) == 0u);
}

BOOST_AUTO_TEST_CASE(a_refused_persist_stops_the_plan) {
  coord->has_refuse = true;
  coord->refuse_at = plan_phase::recording_gtid;
  start(failover());
  const auto& r = only_result();
  BOOST_TEST(r.error == "recording_gtid: progress not persisted");
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
}

// After the promotion nothing can undo it: a refused progress write is offered again instead of
// ending the plan "failed" with a writable candidate no view names.
BOOST_AUTO_TEST_CASE(a_refused_persist_after_the_promotion_is_offered_again) {
  coord->has_refuse = true;
  coord->refuse_at = plan_phase::steering;
  coord->refuse_times = 2;
  start(failover());
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  auto phases = coord->phase_list();
  BOOST_TEST(std::count(phases.begin(), phases.end(), plan_phase::steering) == 3);
  BOOST_TEST(phases.back() == plan_phase::repointing);
}

BOOST_AUTO_TEST_CASE(a_persist_refused_every_time_after_the_promotion_still_ends) {
  coord->has_refuse = true;
  coord->refuse_at = plan_phase::confirming;
  start(failover());
  const auto& r = only_result();
  BOOST_TEST(r.error == "confirming: progress not persisted");
  auto phases = coord->phase_list();
  BOOST_TEST(std::count(phases.begin(), phases.end(), plan_phase::confirming) == 5);
}

BOOST_AUTO_TEST_CASE(the_drain_is_best_effort) {
  fl->hang.insert({"b", mysql_op::wait_executed});
  start(failover());
  BOOST_TEST(fl->count("b", mysql_op::stop_replica) == 0u);
  advance(30s);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 1u);
  // ...but never silent: b had received 1-100 and applied 1-98 when its channel was reset, and
  // the dr-only site c (1-99) now holds a transaction the new primary lacks.
  BOOST_TEST_REQUIRE(r.losses.size() == 2u);
  BOOST_TEST(r.losses[0].site == "b");
  BOOST_TEST(r.losses[0].kind == gtid_loss_discarded);
  BOOST_TEST(r.losses[0].gtid == U1 + ":99-100");
  BOOST_TEST(r.losses[0].count == 2u);
  BOOST_TEST(r.losses[1].site == "c");
  BOOST_TEST(r.losses[1].kind == gtid_loss_stranded);
  BOOST_TEST(r.losses[1].gtid == U1 + ":99");
  BOOST_TEST(fl->count("c", mysql_op::change_source) == 0u);
  // Persisted with the stopping_replica phase, before the reset discards the relay log.
  bool persisted_before_reset = false;
  for (size_t i = 0; i < coord->phases.size(); ++i)
    if (coord->phases[i].first == plan_phase::stopping_replica)
      persisted_before_reset = coord->facts[i].losses.size() == 1u;
  BOOST_TEST(persisted_before_reset);
}

// S3: a candidate whose applier was stopped still applies its relay log before promotion.
BOOST_AUTO_TEST_CASE(drain_starts_a_stopped_applier_first) {
  fl->servers["b"].replicating = false;
  fl->servers["b"].applier_stopped = true;
  start(failover(gate_policy::safe, true));
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  auto b = fl->log_for({"b"});
  auto start_at = std::find(b.begin(), b.end(), "start_replica b");
  auto wait_at = std::find(b.begin(), b.end(), "wait_executed b");
  BOOST_REQUIRE(start_at != b.end());
  BOOST_REQUIRE(wait_at != b.end());
  BOOST_TEST((start_at < wait_at));
  BOOST_TEST(fl->servers["b"].gtid == U1 + ":1-100");  // everything the old primary acked
  BOOST_TEST(r.promotion_gtid == U1 + ":1-100");
}

BOOST_AUTO_TEST_CASE(safe_gate_with_unreachable_old_primary_times_out_without_promoting) {
  fl->servers["a"].down = true;
  start(failover(gate_policy::safe, false));
  BOOST_TEST(coord->done.empty());
  advance(119s);
  BOOST_TEST(coord->done.empty());
  BOOST_TEST(fl->count("b", mysql_op::stop_replica) == 0u);
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::gating);
  BOOST_TEST(r.error == "gating: promotion gate timed out");
  BOOST_TEST(r.fence_outcome == "skipped: unreachable (plan)");
  BOOST_TEST(fl->count("a", mysql_op::fence) == 0u);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
  BOOST_TEST(fl->count("b", mysql_op::reset_replica_all) == 0u);
  BOOST_TEST(platform.rec->dns.empty());
}

BOOST_AUTO_TEST_CASE(safe_gate_after_a_connection_level_fence_failure_also_waits) {
  fl->servers["a"].down = true;  // the plan thought it reachable; the fence is refused
  start(failover(gate_policy::safe, true));
  advance(120s);
  const auto& r = only_result();
  BOOST_TEST(r.fence_outcome == "skipped: refused");
  BOOST_TEST(fl->count("a", mysql_op::fence) == 2u);  // one retry on a fresh connection
  BOOST_TEST(r.error == "gating: promotion gate timed out");
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
}

BOOST_AUTO_TEST_CASE(a_stale_session_does_not_make_a_live_old_primary_look_dead) {
  // site_io answers lost_connection once (a session cached before a restart), then works.
  mysql_outcome lost;
  lost.error_kind = "lost_connection";
  lost.error_code = 2013;
  lost.error = "lost_connection 2013 (HY000): Lost connection to server during query";
  fl->once[{"a", mysql_op::fence}].push_back(lost);
  start(failover(gate_policy::fast, true));
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(r.fence_outcome == "fenced");
  BOOST_TEST(fl->count("a", mysql_op::fence) == 2u);
  BOOST_TEST(fl->count("a", mysql_op::kill_sessions) == 1u);
}

BOOST_AUTO_TEST_CASE(fast_policy_promotes_past_an_unreachable_old_primary) {
  fl->servers["a"].down = true;
  start(failover(gate_policy::fast, false));
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(r.fence_outcome == "skipped: unreachable (plan)");
  BOOST_TEST(fl->count("a", mysql_op::kill_sessions) == 0u);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 1u);
  BOOST_TEST(join(dns()) == join(cmds({"orders b 192.0.2.2"})));
}

BOOST_AUTO_TEST_CASE(a_reachable_old_primary_refusing_the_fence_fails_the_plan) {
  mysql_outcome denied;
  denied.error_kind = "server_error";
  denied.error_code = 1227;
  denied.error = "Access denied";
  fl->forced[{"a", mysql_op::fence}] = denied;
  start(failover(gate_policy::fast, true));
  const auto& r = only_result();
  BOOST_TEST(r.reached == plan_phase::fencing_old);
  BOOST_TEST(r.error.rfind("fencing_old: fence of old primary a failed", 0) == 0u, r.error);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
}

BOOST_AUTO_TEST_CASE(killed_after_promoting_persisted_resumes_without_second_promotion) {
  coord->has_hold = true;
  coord->hold_at = plan_phase::promoting;
  auto first = start(failover());
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 1u);
  BOOST_TEST(coord->phase_list().back() == plan_phase::promoting);
  auto gtid = coord->phases.back().second;
  BOOST_TEST(gtid == U1 + ":1-100");
  // The coordinator persisted `promoting`; the executor dies before it hears so.
  self->send_exit(first, caf::exit_reason::kill);
  run();
  BOOST_TEST(platform.rec->dns.empty());
  coord->has_hold = false;
  auto plan = failover();
  plan.phase = plan_phase::promoting;
  plan.promotion_gtid = gtid;
  start(plan);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(r.promotion_gtid == gtid);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 1u);  // S6: still exactly one
  // The second run did nothing before promotion: no fence, drain, stop, reset or gtid record.
  auto promote_at = std::find(fl->log.begin(), fl->log.end(), "promote_switch b");
  BOOST_TEST_REQUIRE((promote_at != fl->log.end()));
  std::vector<std::string> second(promote_at + 1, fl->log.end());
  BOOST_TEST(join(second) == join(cmds({"probe b", "read_gtid b", "read_gtid c", "stop_replica c",
                                        "change_source c", "start_replica c", "read_gtid r",
                                        "stop_replica r", "change_source r", "start_replica r"})));
  BOOST_TEST(join(routes()) == join(cmds({"orders b <- c r"})));
  BOOST_TEST(join(dns()) == join(cmds({"orders b 192.0.2.2"})));
  BOOST_TEST(join(taints()) == join(cmds({"a=taint", "b=untaint", "c=taint"})));
}

BOOST_AUTO_TEST_CASE(resume_after_confirming_confirms_again_before_steering) {
  fl->servers["b"].writable = false;  // fenced meanwhile (e.g. by its sidecar)
  auto plan = failover();
  plan.phase = plan_phase::confirming;
  start(plan);
  const auto& r = only_result();
  BOOST_TEST(r.reached == plan_phase::confirming);
  BOOST_TEST(r.error.rfind("confirming: ", 0) == 0u, r.error);
  BOOST_TEST(join(fl->log) == join(cmds({"probe b"})));
  BOOST_TEST(platform.rec->routes.empty());
  BOOST_TEST(platform.rec->dns.empty());
  BOOST_TEST(platform.rec->taints.empty());
}

BOOST_AUTO_TEST_CASE(failed_confirmation_steers_nothing) {
  fl->promote_takes_effect = false;
  start(failover());
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::confirming);
  BOOST_TEST(r.error.rfind("confirming: ", 0) == 0u, r.error);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 1u);
  BOOST_TEST(platform.rec->routes.empty());
  BOOST_TEST(platform.rec->dns.empty());
  BOOST_TEST(platform.rec->taints.empty());
  BOOST_TEST(fl->count("c", mysql_op::change_source) == 0u);
}

BOOST_AUTO_TEST_CASE(divergent_follower_is_not_repointed) {
  fl->servers["c"].gtid = U1 + ":1-99," + U2 + ":1-3";
  start(failover());
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST_REQUIRE(r.not_repointed.size() == 1u);
  BOOST_TEST(r.not_repointed[0].rfind("c: divergent: " + U2 + ":1-3 (3 transactions", 0) == 0u,
             r.not_repointed[0]);
  BOOST_TEST(fl->count("c", mysql_op::change_source) == 0u);
  BOOST_TEST(fl->count("c", mysql_op::stop_replica) == 0u);
  BOOST_TEST(fl->count("r", mysql_op::change_source) == 1u);
  // Reported exactly as stranded (the coordinator marks c RecoveryBlocked from this).
  BOOST_TEST_REQUIRE(r.losses.size() == 1u);
  BOOST_TEST(r.losses[0].site == "c");
  BOOST_TEST(r.losses[0].kind == gtid_loss_stranded);
  BOOST_TEST(r.losses[0].gtid == U2 + ":1-3");
  BOOST_TEST(r.losses[0].count == 3u);
}

// -- switchover: nothing acknowledged is lost (S3) ------------------------------------------------

BOOST_AUTO_TEST_CASE(switchover_waits_for_everything_the_fenced_source_has) {
  // b has received only 1-98 of a's 1-100 (its IO thread is behind): the wait must be for a's
  // executed set, read after the fence, not for what b happens to have received.
  fl->servers["b"].received = U1 + ":1-98";
  auto p = failover();
  p.kind = plan_kind::switchover;
  p.max_lag_wait = 45s;
  p.session_drain_timeout = 5s;
  start(p);
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("a", mysql_op::kill_sessions) == 2u);
  auto wait = std::find_if(fl->commands.begin(), fl->commands.end(),
                           [](auto& c) { return c.op == mysql_op::wait_executed; });
  BOOST_REQUIRE(wait != fl->commands.end());
  BOOST_TEST(wait->gtid == U1 + ":1-100");
  BOOST_TEST(wait->timeout.count() == caf::timespan(45s).count());
  BOOST_TEST(r.source_gtid == U1 + ":1-100");
  BOOST_TEST(r.promotion_gtid == U1 + ":1-100");
  BOOST_TEST(!r.source_kept);
  BOOST_TEST(fl->servers["b"].writable);
  BOOST_TEST(r.losses.empty());
  // The source's set is recorded before the wait and persisted with the draining phase.
  for (size_t i = 0; i < coord->phases.size(); ++i)
    if (coord->phases[i].first == plan_phase::draining)
      BOOST_TEST(coord->facts[i].source_gtid == U1 + ":1-100");
}

BOOST_AUTO_TEST_CASE(switchover_does_not_wait_for_clients_that_reconnect_to_the_fenced_source) {
  // Clients come straight back to the fenced source (its router names it until steering): every
  // kill finds sessions. They cannot commit there, so the plan goes on after one round at the
  // fence (decide/session_drain) instead of killing every second for drainTimeout, and kills
  // them once more after steering, when reconnecting reaches the new primary.
  mysql_outcome three;
  three.ok = true;
  three.value = "3";
  fl->forced[{"a", mysql_op::kill_sessions}] = three;
  auto p = failover();
  p.kind = plan_kind::switchover;
  p.session_drain_timeout = 30s;
  start(p);
  advance(500ms);  // the gate's pushes; less than the one-second kill interval before the change
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("a", mysql_op::kill_sessions) == 2u);
  std::vector<std::string> order;
  for (const auto& l : fl->log)
    if (l == "kill_sessions a" || l == "promote_switch b") order.push_back(l);
  BOOST_TEST(join(order) == join(cmds({"kill_sessions a", "promote_switch b", "kill_sessions a"})));
  BOOST_TEST(routes().size() == 1u);
}

BOOST_AUTO_TEST_CASE(switchover_rolls_back_when_the_candidate_cannot_catch_up) {
  fl->servers["b"].lagging = true;
  auto p = failover();
  p.kind = plan_kind::switchover;
  start(p);
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.source_kept);
  BOOST_TEST(r.reached == plan_phase::draining);
  BOOST_TEST(r.error.find("LagTimeout") != std::string::npos, r.error);
  BOOST_TEST(r.error.find("missing 2 transactions") != std::string::npos, r.error);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
  BOOST_TEST(fl->count("b", mysql_op::stop_replica) == 0u);  // b still replicates from a
  BOOST_TEST(platform.rec->dns.empty());
}

BOOST_AUTO_TEST_CASE(switchover_rolls_back_at_max_lag_wait_when_the_wait_never_answers) {
  fl->hang.insert({"b", mysql_op::wait_executed});
  auto p = failover();
  p.kind = plan_kind::switchover;
  p.max_lag_wait = 20s;
  p.session_drain_timeout = 1s;
  start(p);
  advance(20s + 3 * 10s - 1ms);
  BOOST_TEST(coord->done.empty());
  advance(1ms);
  const auto& r = only_result();
  BOOST_TEST(r.source_kept);
  BOOST_TEST(r.error.find("LagTimeout") != std::string::npos, r.error);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
}

BOOST_AUTO_TEST_CASE(a_failover_never_rolls_back_and_a_switchover_past_promotion_does_not_either) {
  // A failover's failure keeps nothing (the old primary is presumed gone).
  fl->hang.insert({"b", mysql_op::stop_replica});
  start(failover());
  advance(10s);
  BOOST_TEST(!only_result().source_kept);
}

BOOST_AUTO_TEST_CASE(a_switchover_failing_at_confirmation_is_not_rolled_back) {
  fl->promote_takes_effect = false;
  auto p = failover();
  p.kind = plan_kind::switchover;
  start(p);
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::confirming);
  BOOST_TEST(!r.source_kept);  // a promotion was attempted: no second writer by a rollback
}

BOOST_AUTO_TEST_CASE(unreachable_follower_is_reported_and_others_repointed) {
  fl->servers["c"].down = true;
  start(failover());
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST_REQUIRE(r.not_repointed.size() == 1u);
  BOOST_TEST(r.not_repointed[0].rfind("c: unreachable", 0) == 0u, r.not_repointed[0]);
  BOOST_TEST(fl->count("r", mysql_op::start_replica) == 1u);
}

BOOST_AUTO_TEST_CASE(recover_rejoins_a_contained_old_primary) {
  fl->servers["a"] = {false, false, U1 + ":1-90", "", false};
  fl->servers["b"] = {true, false, U1 + ":1-120", "", false};
  start(repair(plan_kind::recover));
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(join(fl->log) ==
             join(cmds({"fence a", "stop_replica a", "reset_replica_all a", "read_gtid b",
                        "read_gtid a", "change_source a", "start_replica a", "probe a"})));
  for (auto& c : fl->commands)
    if (c.op == mysql_op::change_source) {
      BOOST_TEST(c.source.port == deps().targets["b"].port);
      BOOST_TEST(c.source.user == "repl");
    }
  BOOST_TEST(join(coord->phase_list()) ==
             join(std::vector<plan_phase>{plan_phase::fencing_old, plan_phase::stopping_replica,
                                          plan_phase::resetting_replica, plan_phase::repointing,
                                          plan_phase::confirming}));
  BOOST_TEST(platform.rec->dns.empty());
}

BOOST_AUTO_TEST_CASE(recover_waits_for_the_threads_within_the_step_timeout) {
  fl->servers["a"] = {false, false, U1 + ":1-90", "", false};
  fl->servers["b"] = {true, false, U1 + ":1-120", "", false};
  fl->replica_comes_up = false;
  start(repair(plan_kind::recover));
  BOOST_TEST(coord->done.empty());
  for (int i = 0; i < 19; ++i) advance(500ms);
  BOOST_TEST(coord->done.empty());
  advance(500ms);
  const auto& r = only_result();
  BOOST_TEST(r.error.rfind("confirming: deadline exceeded (io OFF, sql OFF", 0) == 0u, r.error);
  BOOST_TEST(fl->count("a", mysql_op::probe) == 20u);  // re-probed every 500 ms
}

BOOST_AUTO_TEST_CASE(recover_refuses_a_divergent_site) {
  fl->servers["a"] = {false, false, U1 + ":1-90," + U2 + ":1-2", "", false};
  fl->servers["b"] = {true, false, U1 + ":1-120", "", false};
  start(repair(plan_kind::recover));
  const auto& r = only_result();
  BOOST_TEST(r.reached == plan_phase::repointing);
  BOOST_TEST(r.error.find("divergent: " + U2 + ":1-2 (2 transactions") != std::string::npos,
             r.error);
  BOOST_TEST(fl->count("a", mysql_op::change_source) == 0u);
}

BOOST_AUTO_TEST_CASE(reclone_clones_then_rejoins) {
  fl->servers["a"] = {false, false, U1 + ":1-90," + U2 + ":1-2", "", false};
  fl->servers["b"] = {true, false, U1 + ":1-120", "", false};
  auto plan = repair(plan_kind::reclone);
  plan.discard_gtid = U2 + ":1-2";  // the divergentGtid the request's prefix matched
  start(plan);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(join(fl->log) ==
             join(cmds({"fence a", "read_clone_state a", "read_gtid a", "read_gtid b", "clone a",
                        "read_gtid a", "fence a", "stop_replica a", "reset_replica_all a",
                        "read_gtid b", "read_gtid a", "change_source a", "start_replica a",
                        "probe a"})));
  const auto& clone = fl->commands[4];
  BOOST_TEST(clone.source.port == deps().targets["b"].port);
  BOOST_TEST(clone.source.user == "repl");
  BOOST_TEST(clone.timeout.count() == caf::timespan(600s).count());
  BOOST_TEST(fl->servers["a"].gtid == U1 + ":1-120");
}

BOOST_AUTO_TEST_CASE(reclone_of_the_active_primary_is_refused) {
  auto plan = repair(plan_kind::reclone);
  plan.candidate = "b";
  start(plan);
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::fencing_old);
  BOOST_TEST(r.error == "fencing_old: refusing to reclone the active primary b");
  BOOST_TEST(fl->log.empty());
}

BOOST_AUTO_TEST_SUITE_END()

// -- promotion gate rules 2 and 3 through pushed views (docs/safety.md) --------------------------------

BOOST_FIXTURE_TEST_SUITE(promotion_gate_pushes, exec_fixture)

BOOST_AUTO_TEST_CASE(rule2_old_primary_sidecar_ack_opens_at_once_even_with_mysqld_down) {
  with_sidecars = true;
  fl->servers["a"].down = true;  // mysqld gone; its sidecar answers: S5 boots it fenced
  sidecars->answers["a-sidecar:8080"] = {sidecar_fleet::ack(false)};
  start(failover(gate_policy::safe, false));
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 1u);
  // The pushed view: the plan's epoch, no active site, deposing the old primary, signed by the
  // operator for this group; the request carries no secret (a view is public).
  BOOST_REQUIRE(sidecars->count("a-sidecar:8080") >= 1u);
  const auto& call = sidecars->calls.front();
  BOOST_TEST(call.method == "PUT");
  BOOST_TEST(call.signature.empty());
  auto body = nlohmann::json::parse(call.body);
  BOOST_TEST(body["epoch"] == 3);
  BOOST_TEST(body["activeSite"] == "");
  BOOST_TEST(body["deposing"] == "a");
  BOOST_TEST(auth::nonce_well_formed(body.value("nonce", "")));
  std::set<std::string> fields;
  for (auto it = body.begin(); it != body.end(); ++it) fields.insert(it.key());
  BOOST_TEST((fields == std::set<std::string>{"activeSite", "deposing", "epoch", "nonce",
                                              "observedAt", "signature"}));
  topology_view pushed{3, "", "a", 0, body["signature"].get<std::string>()};
  BOOST_TEST(auth::view_verifies({operator_key.pub}, sidecars->group, pushed));
  // Safe promotes only onto an armed switch, and says so in the command.
  auto promote = std::find_if(fl->commands.begin(), fl->commands.end(), [](const mysql_command& c) {
    return c.op == mysql_op::promote_switch;
  });
  BOOST_REQUIRE(promote != fl->commands.end());
  BOOST_TEST(promote->require_armed);
  BOOST_TEST(promote->lease == caf::timespan(20s));
}

BOOST_AUTO_TEST_CASE(rule3_opens_exactly_the_wait_after_the_last_ack) {
  with_sidecars = true;
  fl->servers["a"].down = true;  // old primary and its sidecar unreachable
  // c acks only at its third push (t = 2 s); b and r at once.
  sidecars->answers["b-sidecar:8080"] = {sidecar_fleet::ack()};
  sidecars->answers["c-sidecar:8080"] = {sidecar_fleet::refuse(503, "probe failed"),
                                         sidecar_fleet::refuse(503, "probe failed"),
                                         sidecar_fleet::ack()};
  sidecars->answers["r-sidecar:8080"] = {sidecar_fleet::ack()};
  start(failover(gate_policy::safe, false));
  auto wait = rule3_wait(20s, 5s, 20s, 2s);  // ceil(1.1 x 47 s)
  BOOST_TEST(wait > caf::timespan(51s));
  advance(1s);
  advance(1s);  // c's ack arrives now (t = 2 s)
  BOOST_TEST(sidecars->count("c-sidecar:8080") == 3u);
  // The unreachable old primary's sidecar is retried every push_retry while gating.
  BOOST_TEST(sidecars->count("a-sidecar:8080") == 3u);
  advance(wait - 1ms);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
  BOOST_TEST(coord->done.empty());
  advance(1ms);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 1u);
}

BOOST_AUTO_TEST_CASE(rule3_needs_every_other_site_and_ignores_stale_answers) {
  with_sidecars = true;
  fl->servers["a"].down = true;
  sidecars->answers["b-sidecar:8080"] = {sidecar_fleet::ack()};
  sidecars->answers["c-sidecar:8080"] = {sidecar_fleet::refuse(409, "pushed epoch 3 is older")};
  sidecars->answers["r-sidecar:8080"] = {sidecar_fleet::ack()};
  start(failover(gate_policy::safe, false));
  advance(119s);
  BOOST_TEST(coord->done.empty());
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.error == "gating: promotion gate timed out");
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
}

BOOST_AUTO_TEST_CASE(an_impostor_behind_the_old_primarys_address_does_not_open_rule2) {
  // A pod carrying the site's labels answers the push for a's sidecar: {"ack":true} signed with
  // its own key, then unsigned. Neither counts; the real old primary may still be writable, so
  // only rule 3 (every other site, then the full wait) can open the gate.
  with_sidecars = true;
  sidecars->impostors.insert("a-sidecar:8080");
  sidecars->answers["a-sidecar:8080"] = {sidecar_fleet::ack(false)};
  start(failover(gate_policy::safe, false));
  advance(5s);
  BOOST_TEST(sidecars->count("a-sidecar:8080") >= 2u);  // pushed, not acknowledged: retried
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
  BOOST_TEST(coord->done.empty());
  sidecars->impostors.clear();
  sidecars->unsigned_answers.insert("a-sidecar:8080");
  advance(114s);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.error == "gating: promotion gate timed out");
}

BOOST_AUTO_TEST_CASE(an_ack_signed_for_another_push_or_site_does_not_count) {
  // b's real sidecar key signs an answer that names site a (a relayed or replayed ack): the
  // operator checks the signing key against the site it pushed to and the nonce it sent.
  with_sidecars = true;
  sidecars->sign_as["a-sidecar:8080"] = "b";
  sidecars->answers["a-sidecar:8080"] = {sidecar_fleet::ack(false)};
  start(failover(gate_policy::safe, false));
  advance(10s);
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
  BOOST_TEST(coord->done.empty());
}

BOOST_AUTO_TEST_CASE(safe_refuses_to_promote_onto_an_unarmed_switch) {
  with_sidecars = true;
  fl->switch_arming = "scheduler_off";
  sidecars->answers["a-sidecar:8080"] = {sidecar_fleet::ack()};
  start(failover(gate_policy::safe, true));  // rule 1: the operator fences a itself
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::promoting);
  BOOST_TEST(r.error.find("switch_not_armed") != std::string::npos, r.error);
  BOOST_TEST(!fl->servers["b"].writable);
}

BOOST_AUTO_TEST_CASE(fast_promotes_onto_an_unarmed_switch) {
  fl->switch_arming = "scheduler_off";
  fl->servers["a"].down = true;
  start(failover(gate_policy::fast, false));
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->servers["b"].writable);
}

BOOST_AUTO_TEST_SUITE_END()
