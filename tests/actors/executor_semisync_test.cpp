// The failover executor under semi-synchronous replication (docs/safety.md gate rule 4): a hung or
// partitioned old primary is failed over as soon as the other sites' receivers are stopped and
// probed, with no lease wait, onto the no-loss candidate only, drained to what it held at its stop.
// Without any rule opening, the gate here can only time out (no sidecars: no rule 2 or 3).
#include "tests/actors/executor_fixture.hpp"

namespace {

/// a (old primary) unreachable; b, c, r in step (started_at as the simulated probes report).
failover_plan semisync(failover_plan p, uint32_t k = 1) {
  p.semisync_k = k;
  p.semisync_confirmed = true;
  p.semisync_in_step = {{"b", 1000}, {"c", 1000}, {"r", 1000}};
  return p;
}

size_t position(const std::vector<std::string>& log, const std::string& entry) {
  return static_cast<size_t>(std::find(log.begin(), log.end(), entry) - log.begin());
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(failover_executor_semisync, exec_fixture)

BOOST_AUTO_TEST_CASE(rule4_fails_over_a_hung_primary_without_waiting) {
  fl->servers["a"].down = true;
  start(semisync(failover(gate_policy::safe, false)));
  // No virtual time passed: no lease, no rule-3 wait.
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  for (auto s : {"b", "c", "r"}) BOOST_TEST(fl->count(s, mysql_op::stop_io_thread) == 1u, s);
  BOOST_TEST(fl->servers["b"].writable);
  // The source side on before the candidate is made writable, with K.
  auto& log = fl->log;
  BOOST_TEST(position(log, "semisync_source b") < position(log, "promote_switch b"));
  for (auto& c : fl->commands)
    if (c.op == mysql_op::semisync_source) BOOST_TEST(c.semisync_k == 1u);
  BOOST_TEST(fl->servers["b"].semisync_k == 1u);
  // Followers acknowledge only: source side off, receiver on, before their new channel.
  for (auto s : {"c", "r"}) {
    BOOST_TEST(position(log, std::string("semisync_replica ") + s) <
               position(log, std::string("change_source ") + s));
    // ... and before its set is read for the containment check (a commit still waiting for
    // acknowledgements is not in gtid_executed yet; its session is killed by that command).
    BOOST_TEST(position(log, std::string("semisync_replica ") + s) <
               position(log, std::string("read_gtid ") + s));
    BOOST_TEST(fl->servers[s].semisync_replica, s);
  }
  // Drained to b's received set as seen at its stop.
  auto wait = std::find_if(fl->commands.begin(), fl->commands.end(),
                           [](auto& c) { return c.op == mysql_op::wait_executed; });
  BOOST_REQUIRE(wait != fl->commands.end());
  BOOST_TEST(wait->gtid == U1 + ":1-100");
}

BOOST_AUTO_TEST_CASE(one_site_unreached_is_one_too_few) {
  fl->servers["a"].down = true;
  fl->servers["r"].down = true;  // K = 1 of N = 3: all three must be stopped
  start(semisync(failover(gate_policy::safe, false)));
  advance(119s);
  BOOST_TEST(coord->done.empty());
  BOOST_TEST(fl->count("b", mysql_op::promote_switch) == 0u);
  BOOST_TEST(fl->count("r", mysql_op::stop_io_thread) > 1u);  // retried while gating
  advance(1s);
  BOOST_TEST(only_result().error == "gating: promotion gate timed out");
  // Nothing promoted and no site shown to hold every acknowledged commit: the old primary, which
  // does, stays the active primary (rolled back like a switchover).
  BOOST_TEST(only_result().source_kept);
  BOOST_TEST(!fl->servers["b"].writable);
}

BOOST_AUTO_TEST_CASE(k2_needs_two_of_three) {
  fl->servers["a"].down = true;
  fl->servers["r"].down = true;
  start(semisync(failover(gate_policy::safe, false), 2));
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->servers["b"].writable);
  BOOST_TEST(fl->servers["b"].semisync_k == 2u);
}

BOOST_AUTO_TEST_CASE(a_restarted_site_is_not_in_step) {
  fl->servers["a"].down = true;
  fl->servers["c"].started_at = 1500;  // restarted since the judgement: relay log may be gone
  start(semisync(failover(gate_policy::safe, false)));
  advance(120s);
  BOOST_TEST(only_result().error == "gating: promotion gate timed out");
  BOOST_TEST(!fl->servers["b"].writable);
}

BOOST_AUTO_TEST_CASE(a_candidate_lacking_what_another_received_is_not_promoted) {
  fl->servers["a"].down = true;
  fl->servers["b"].received = U1 + ":1-98";
  fl->servers["c"].received = U1 + ":1-99";  // c received 99; b never did
  start(semisync(failover(gate_policy::safe, false)));
  advance(120s);
  BOOST_TEST(only_result().error == "gating: promotion gate timed out");
  BOOST_TEST(!fl->servers["b"].writable);
}

BOOST_AUTO_TEST_CASE(an_unconfirmed_old_primary_gets_no_rule4) {
  fl->servers["a"].down = true;
  auto p = semisync(failover(gate_policy::safe, false));
  p.semisync_confirmed = false;  // e.g. it fell back to asynchronous once
  start(p);
  advance(120s);
  BOOST_TEST(only_result().error == "gating: promotion gate timed out");
  BOOST_TEST(!only_result().source_kept);  // as in asynchronous mode
  BOOST_TEST(!fl->servers["b"].writable);
}

BOOST_AUTO_TEST_CASE(the_no_loss_drain_is_not_best_effort) {
  fl->servers["a"].down = true;
  fl->servers["b"].lagging = true;  // never applies its relay log in time
  start(semisync(failover(gate_policy::safe, false)));
  advance(31s);
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::draining);
  BOOST_TEST(r.error.find("no-loss candidate b did not apply") != std::string::npos, r.error);
  BOOST_TEST(r.source_kept);  // failed at draining: the candidate's channel untouched
  BOOST_TEST(fl->count("b", mysql_op::reset_replica_all) == 0u);
  BOOST_TEST(!fl->servers["b"].writable);
}

BOOST_AUTO_TEST_CASE(without_semisync_nothing_is_stopped) {
  fl->servers["a"].down = true;
  start(failover(gate_policy::safe, false));
  advance(120s);
  for (auto s : {"b", "c", "r"}) BOOST_TEST(fl->count(s, mysql_op::stop_io_thread) == 0u, s);
  BOOST_TEST(fl->count("b", mysql_op::semisync_source) == 0u);
}

BOOST_AUTO_TEST_CASE(a_repaired_site_is_switched_before_its_containment_check) {
  fl->servers["a"] = {false, false, U1 + ":1-90", "", false};
  fl->servers["b"] = {true, false, U1 + ":1-120", "", false};
  auto p = repair(plan_kind::recover);
  p.semisync_k = 1;
  start(p);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  auto& log = fl->log;
  BOOST_TEST(position(log, "semisync_replica a") < position(log, "read_gtid a"));
  BOOST_TEST(position(log, "read_gtid a") < position(log, "change_source a"));
  BOOST_TEST(fl->servers["a"].semisync_replica);
}

BOOST_AUTO_TEST_CASE(rule1_does_not_promote_a_candidate_lacking_what_another_received) {
  // a reachable: the operator fences it (rule 1 opens at once), but b lacks what c received.
  fl->servers["b"].received = U1 + ":1-98";
  fl->servers["c"].received = U1 + ":1-99";
  start(semisync(failover(gate_policy::safe, true)));
  BOOST_TEST(coord->done.empty());
  advance(120s);
  const auto& r = only_result();
  BOOST_TEST(r.error == "gating: promotion gate timed out");
  BOOST_TEST(!fl->servers["b"].writable);
}

BOOST_AUTO_TEST_CASE(rule1_promotes_the_no_loss_candidate) {
  start(semisync(failover(gate_policy::safe, true)));
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(r.semisync_no_loss);
  BOOST_TEST(fl->servers["b"].writable);
}

BOOST_AUTO_TEST_SUITE_END()
