// step() under semi-synchronous replication (decide/step_semisync.cpp, docs/safety.md): the in-step
// judgement on polls (probe order and uptime window), the facts a failover plan carries, and the
// old primary of a rule-4 failover recloned, not blocked, for transactions nobody acknowledged.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/semisync_gate.hpp"
#include "tests/unit/group_step_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using namespace group_step_test;

namespace {

const std::string UUID_A = "aaaaaaaa-0000-0000-0000-000000000001";

site_semisync confirmed_source() {
  site_semisync s;
  s.source_loaded = s.source_enabled = s.source_on = s.wait_no_replica = true;
  s.wait_point = "AFTER_SYNC";
  s.wait_count = 1;
  s.timeout_ms = semisync_timeout_max_ms;
  s.clients = 2;
  return s;
}

/// a active at epoch 2 with semi-sync on; b, c replicating from it. Probe instants: the
/// primary's probe at [0, 10 ms]; each replica's sent `replica_after` later, answered 10 ms after.
struct semisync_fixture : group_fixture {
  mono_time t0{};
  semisync_fixture() { rules.semisync_k = 1; }

  site_report primary(const std::string& gtid_set) {
    auto r = rep("a", site_state::writable, gtid_set);
    r.probe.server_uuid = UUID_A;
    r.probe.semisync = confirmed_source();
    r.probe_sent = t0;
    r.probe_done = t0 + 10ms;
    return r;
  }
  site_report replica(const std::string& site, const std::string& received,
                      caf::timespan replica_after = 100ms, uint64_t uptime = 600,
                      const std::string& source_uuid = UUID_A) {
    auto r = rep(site, site_state::read_only, gtid(U1, 1, 5), true);
    r.probe.received_gtid = received;
    r.probe.source_uuid = source_uuid;
    r.probe.uptime_s = uptime;
    r.probe.started_at = 1000;
    r.probe_sent = t0 + replica_after;
    r.probe_done = r.probe_sent + 10ms;
    return r;
  }
  void start() {
    durable_state d;
    d.view = {2, "a", "", 1, {}};
    load(d);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(group_step_semisync, semisync_fixture)

BOOST_AUTO_TEST_CASE(in_step_judgement_table) {
  struct row {
    const char* name;
    std::string received;
    caf::timespan after;
    uint64_t uptime;
    std::string source_uuid;
    bool expect;
  };
  std::vector<row> rows = {
      {"holds the primary's set, read after it", gtid(U1, 1, 9), 100ms, 600, UUID_A, true},
      {"behind the primary's set", gtid(U1, 1, 8), 100ms, 600, UUID_A, false},
      {"probe sent before the primary's answered", gtid(U1, 1, 9), 5ms, 600, UUID_A, false},
      {"a slow read (window 2 s): uptime 5 s is still longer", gtid(U1, 1, 9), 1500ms, 5, UUID_A,
       true},
      {"uptime not longer than the window (6 s): may have restarted after the primary read",
       gtid(U1, 1, 9), 5500ms, 5, UUID_A, false},
      {"receiving from another source", gtid(U1, 1, 9), 100ms, 600,
       "bbbbbbbb-0000-0000-0000-000000000002", false},
  };
  for (const auto& r : rows) {
    semisync_fixture f;
    f.start();
    f.report(f.primary(gtid(U1, 1, 9)));
    f.report(f.replica("b", r.received, r.after, r.uptime, r.source_uuid));
    BOOST_TEST(f.st.semisync_in_step["b"].in_step == r.expect, r.name);
  }
}

BOOST_AUTO_TEST_CASE(a_failover_plan_carries_the_semisync_facts) {
  start();
  report(primary(gtid(U1, 1, 9)));
  report(replica("b", gtid(U1, 1, 9)));
  report(replica("c", gtid(U1, 1, 9)));
  BOOST_TEST(st.semisync_in_step["b"].in_step);
  BOOST_TEST(st.semisync_in_step["c"].in_step);
  report(rep("a", site_state::unreachable));
  auto next = persisted_next();
  BOOST_TEST_REQUIRE(next.plan_active);
  BOOST_TEST(next.plan.kind == plan_kind::failover);
  BOOST_TEST(next.plan.semisync_k == 1u);
  BOOST_TEST(next.plan.semisync_confirmed);
  BOOST_TEST(next.plan.semisync_in_step.size() == 2u);
  BOOST_TEST(next.plan.semisync_in_step["b"] == 1000);
  // The plan resets the judgement of every site it repoints or resets.
  BOOST_TEST(st.semisync_in_step.empty());
}

BOOST_AUTO_TEST_CASE(a_primary_that_fell_back_is_not_confirmed) {
  start();
  auto p = primary(gtid(U1, 1, 9));
  p.probe.semisync.source_on = false;  // fallen back right now
  report(p);
  report(replica("b", gtid(U1, 1, 9)));
  report(replica("c", gtid(U1, 1, 9)));
  report(rep("a", site_state::unreachable));
  auto next = persisted_next();
  BOOST_TEST(next.plan.semisync_k == 1u);
  BOOST_TEST(!next.plan.semisync_confirmed);
}

BOOST_AUTO_TEST_CASE(without_semisync_plans_carry_nothing) {
  rules.semisync_k = 0;
  start();
  report(primary(gtid(U1, 1, 9)));
  report(replica("b", gtid(U1, 1, 9)));
  report(replica("c", gtid(U1, 1, 9)));
  BOOST_TEST(st.semisync_in_step.empty());
  report(rep("a", site_state::unreachable));
  auto next = persisted_next();
  BOOST_TEST(next.plan.semisync_k == 0u);
  BOOST_TEST(next.plan.semisync_in_step.empty());
}

BOOST_AUTO_TEST_CASE(a_rule4_result_names_the_old_primary_as_unacknowledged) {
  start();
  report(primary(gtid(U1, 1, 9)));
  report(replica("b", gtid(U1, 1, 9)));
  report(replica("c", gtid(U1, 1, 9)));
  report(rep("a", site_state::unreachable));
  store_ok();
  plan_result r;
  r.id = st.durable.plan.id;
  r.ok = true;
  r.reached = plan_phase::done;
  r.promotion_gtid = gtid(U1, 1, 9);
  r.semisync_no_loss = true;
  run(input::plan_done{r});
  auto next = persisted_next();
  BOOST_TEST(next.semisync_unacked_site == "a");
  // Another failover without rule 4 clears it.
  durable_state d = next;
  r.semisync_no_loss = false;
  BOOST_TEST(apply_change(d, change_plan_done{d.plan, r, 5, false, true}).semisync_unacked_site ==
             "");
}

BOOST_AUTO_TEST_CASE(divergent_old_primary_of_a_rule4_failover_is_recloned_not_blocked) {
  for (bool no_loss : {true, false}) {
    semisync_fixture f;
    durable_state d;
    d.view = {3, "b", "", 1, {}};
    d.last_failover_target = "b";
    d.last_failover_ms = 1;
    if (no_loss) d.semisync_unacked_site = "a";
    f.load(d);
    f.report(rep("b", site_state::writable, gtid(U1, 1, 9)));
    f.report(rep("c", site_state::read_only, gtid(U1, 1, 9), true));
    f.report(rep("a", site_state::read_only, gtid(U1, 1, 7), false));
    f.run(input::fenced{"a", true});
    mysql_outcome oa;
    oa.ok = true;
    oa.value = gtid(U1, 1, 7) + "," + gtid(U2, 1, 2);  // two commits a wrote, nobody acknowledged
    f.run(input::gtid_read{"a", oa});
    mysql_outcome ob;
    ob.ok = true;
    ob.value = gtid(U1, 1, 9);
    f.run(input::gtid_read{"b", ob});
    auto next = f.persisted_next();
    if (no_loss) {
      BOOST_TEST(next.plan_active);
      BOOST_TEST(next.plan.kind == plan_kind::reclone);
      BOOST_TEST(next.plan.candidate == "a");
      BOOST_TEST(next.plan.discard_gtid == gtid(U2, 1, 2));
      BOOST_TEST(f.has_event("UnacknowledgedTransactionsDiscarded"));
      BOOST_TEST(next.recovery["a"].state != "RecoveryBlocked");
    } else {
      BOOST_TEST(!next.plan_active);
      BOOST_TEST(next.recovery["a"].state == "RecoveryBlocked");
      BOOST_TEST(!f.has_event("UnacknowledgedTransactionsDiscarded"));
    }
  }
}

BOOST_AUTO_TEST_CASE(commits_released_before_it_became_primary_do_not_count) {
  // A demoted server's released commits count in Rpl_semi_sync_source_no_tx until it restarts;
  // judged on the change since its first probe as the active primary.
  start();
  auto p = primary(gtid(U1, 1, 9));
  p.probe.semisync.no_tx = 3;
  report(p);  // the baseline of this epoch
  report(replica("b", gtid(U1, 1, 9)));
  report(replica("c", gtid(U1, 1, 9)));
  report(rep("a", site_state::unreachable));
  BOOST_TEST(persisted_next().plan.semisync_confirmed);
}

BOOST_AUTO_TEST_CASE(a_fallback_after_the_baseline_is_seen) {
  start();
  auto p = primary(gtid(U1, 1, 9));
  p.probe.semisync.no_tx = 3;
  report(p);
  p.probe.semisync.no_tx = 4;  // one commit answered without acknowledgements since
  report(p);
  report(replica("b", gtid(U1, 1, 9)));
  report(replica("c", gtid(U1, 1, 9)));
  report(rep("a", site_state::unreachable));
  BOOST_TEST(!persisted_next().plan.semisync_confirmed);
}

BOOST_AUTO_TEST_CASE(an_active_primary_without_its_source_side_is_switched_on) {
  start();
  auto p = primary(gtid(U1, 1, 9));
  report(p);  // configured as expected: nothing to do
  BOOST_TEST(count<effect::semisync_source>() == 0u);
  p.probe.semisync.source_enabled = false;  // adopted writable, never promoted by the operator
  p.probe.semisync.source_on = false;
  report(p);
  BOOST_REQUIRE_EQUAL(count<effect::semisync_source>(), 1u);
  BOOST_TEST(all<effect::semisync_source>().front().site == "a");
  BOOST_TEST(all<effect::semisync_source>().front().k == 1u);
  BOOST_TEST(has_event("SemiSyncSourceOff"));
  report(p);  // within the poll interval: not sent again
  BOOST_TEST(count<effect::semisync_source>() == 0u);
}

// A semi-sync failover rolled back (no no-loss candidate): the old primary is named again under a
// new epoch and re-asserted, and its no_tx baseline follows it, so a retry while it is still dead
// stays confirmed (review V6 M3: the raw count held commits released before it became primary).
BOOST_AUTO_TEST_CASE(a_rolled_back_failover_keeps_the_old_primary_and_its_baseline) {
  start();
  auto p = primary(gtid(U1, 1, 9));
  p.probe.semisync.no_tx = 3;
  report(p);
  report(replica("b", gtid(U1, 1, 9)));
  report(replica("c", gtid(U1, 1, 9)));
  report(rep("a", site_state::unreachable));
  store_ok();
  const auto epoch = st.durable.view.epoch;
  plan_result r;
  r.id = st.durable.plan.id;
  r.ok = false;
  r.reached = plan_phase::gating;
  r.error = "gating: promotion gate timed out";
  r.source_kept = true;
  run(input::plan_done{r});
  store_ok();
  BOOST_TEST(st.durable.view.active_site == "a");
  BOOST_TEST(st.durable.view.epoch > epoch);
  BOOST_TEST_REQUIRE(st.semisync_no_tx_base.has_value());
  BOOST_TEST(st.semisync_no_tx_base->epoch == st.durable.view.epoch);
  BOOST_TEST(st.semisync_no_tx_base->no_tx == 3u);
}

BOOST_AUTO_TEST_SUITE_END()
