// Chaos scenarios on real MySQL 9.7 in network namespaces, judged by the invariant checker.
// `@smoke` cases run in CI (ctest chaos_smoke); the whole set runs with tools/chaos.sh.
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "tests/chaos/scenario.hpp"

namespace bt = boost::unit_test;
using br::chaos::cluster_params;
using br::chaos::expectations;
using br::chaos::run_scenario;
using br::chaos::scenario;
using br::chaos::scenario_context;

namespace {

/// The policy for failover scenarios: BR_CHAOS_POLICY, default Safe (the product's default; Fast
/// is the reference behaviour, whose documented dual-writable windows are reported as exempt).
cluster_params base() {
  cluster_params p;
  if (const char* v = std::getenv("BR_CHAOS_POLICY"); v && *v) p.policy = v;
  if (const char* v = std::getenv("BR_CHAOS_KEYS_DIR"); v && *v) p.keys_dir = v;
  return p;
}

bool fast(const cluster_params& p) { return p.policy == "Fast"; }

void check(const br::chaos::scenario_result& r) { BOOST_TEST(r.pass, r.line); }

}  // namespace

BOOST_AUTO_TEST_SUITE(chaos)

BOOST_AUTO_TEST_CASE(clean_primary_kill, *bt::label("smoke")) {
  scenario s{"clean_primary_kill", base(), {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;  // an unreplicated tail on s1 is reported, not silently rejoined
  s.fault = [](scenario_context& x) {
    x.c.kill9_mysqld(0);
    if (!x.wait_active("s2", 60)) x.notes.push_back("no failover to s2 within 60 s");
  };
  s.restore = [](scenario_context& x) { x.c.start_mysqld(0); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(replica_partition_no_failover, *bt::label("smoke")) {
  scenario s{"replica_partition_no_failover", base(), {}, {}, {}, {}};
  s.expect.final_active = "s1";
  s.fault = [](scenario_context& x) {
    x.c.partition(1);
    x.sleep_s(10);  // > failureThreshold x pollInterval and > the sidecar lease
    // the cut is real: s2's receiver lost its source
    auto st = x.c.sql(1).scalar("SELECT SERVICE_STATE FROM performance_schema.replication_connection_status "
                                "WHERE CHANNEL_NAME=''");
    x.notes.push_back("s2 receiver during the partition: " + st.value_or("?"));
  };
  s.restore = [](scenario_context& x) { x.c.heal(1); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(sidecar_crash_no_failover, *bt::label("smoke")) {
  scenario s{"sidecar_crash_no_failover", base(), {}, {}, {}, {}};
  s.expect.final_active = "s1";
  s.fault = [](scenario_context& x) {
    x.c.kill_sidecar(0);
    x.sleep_s(10);  // several leases: nothing may fence or depose the healthy primary
  };
  s.restore = [](scenario_context& x) { x.c.start_sidecar(0); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(operator_kill_and_restart_while_healthy) {
  scenario s{"operator_kill_and_restart_while_healthy", base(), {}, {}, {}, {}};
  s.expect.final_active = "s1";
  s.fault = [](scenario_context& x) {
    x.c.kill_operator();
    x.sleep_s(8);  // > the sidecar lease: peers anchor the primary, writes continue
    x.c.start_operator();
    x.sleep_s(5);
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(isolated_primary_self_fences) {
  // The default 20 s lease: longer than the operator's detection of a blackholed primary, so
  // only the promotion gate (Safe) keeps S1; under Fast the checker reports the window.
  auto p = base();
  p.lease_timeout = "20s";
  p.promotion_gate_timeout = "60s";
  scenario s{"isolated_primary_self_fences", p, {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;
  if (fast(p)) {
    s.expect.s1_exempt = true;
    s.expect.s1_exempt_why = "policy Fast promotes an unreachable primary before its lease ends";
  }
  s.fault = [](scenario_context& x) {
    x.c.partition(0);
    if (!x.wait_active("s2", 90)) x.notes.push_back("no failover to s2 within 90 s");
    // the isolated primary must fence itself (sidecar lease) while still cut off
    int64_t t0 = br::chaos::now_ms();
    bool fenced = x.wait_until([&] { return x.c.sql(0).scalar("SELECT @@global.read_only") == "1"; }, 40);
    if (!fenced) x.failures.push_back("isolated s1 still writable 40 s after the failover");
    else x.notes.push_back("isolated s1 fenced itself " + std::to_string(br::chaos::now_ms() - t0) +
                           " ms after the operator named s2");
  };
  s.restore = [](scenario_context& x) { x.c.heal(0); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(mysqld_shutdown) {
  scenario s{"mysqld_shutdown", base(), {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;
  s.fault = [](scenario_context& x) {
    x.c.shutdown_mysqld(0);
    if (!x.wait_active("s2", 60)) x.notes.push_back("no failover to s2 within 60 s");
  };
  s.restore = [](scenario_context& x) { x.c.start_mysqld(0); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(stale_primary_returns_after_failover) {
  // A long lease so the cut-off primary is still writable when it comes back: its sidecar must
  // learn the newer epoch (from the operator or the reachable peer) and fence it.
  auto p = base();
  p.lease_timeout = "20s";
  p.promotion_gate_timeout = "60s";
  scenario s{"stale_primary_returns_after_failover", p, {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;
  if (fast(p)) {
    s.expect.s1_exempt = true;
    s.expect.s1_exempt_why = "policy Fast promotes while the old primary's lease still runs";
  }
  s.fault = [](scenario_context& x) {
    x.c.partition(0);
    if (!x.wait_active("s2", 90)) x.notes.push_back("no failover to s2 within 90 s");
    x.c.heal(0);  // back while its lease still holds
    int64_t t0 = br::chaos::now_ms();
    bool fenced = x.wait_until([&] { return x.c.sql(0).scalar("SELECT @@global.read_only") == "1"; }, 30);
    x.notes.push_back(fenced ? "returned s1 fenced " + std::to_string(br::chaos::now_ms() - t0) + " ms after the heal"
                             : std::string("returned s1 still writable 30 s after the heal"));
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(old_primary_rejoins_without_divergence) {
  scenario s{"old_primary_rejoins_without_divergence", base(), {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.strict_s3 = true;  // nothing may be lost, reported or not
  s.fault = [](scenario_context& x) {
    x.w.pause(true);
    if (!x.wait_replicas_caught_up(0, 20)) x.notes.push_back("replicas not caught up before the kill");
    x.c.kill9_mysqld(0);
    x.w.pause(false);
    if (!x.wait_active("s2", 60)) x.notes.push_back("no failover to s2 within 60 s");
  };
  s.restore = [](scenario_context& x) { x.c.start_mysqld(0); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(divergence_detected_and_blocked) {
  scenario s{"divergence_detected_and_blocked", base(), {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.must_block = {"s1"};
  s.fault = [](scenario_context& x) {
    x.w.pause(true);
    x.wait_replicas_caught_up(0, 20);
    // An errant transaction only s1 has: s1 is cut off from the replicas (not from the operator)
    // while it commits, and until the failover is done. Stopping the replicas' receivers instead
    // is undone by the operator, which restarts a stopped receiver whose source is healthy: in one
    // run it did so between the STOP and the kill, the replicas fetched the transaction, and
    // nothing was errant. The cut is healed only after the failover, so data still in s1's
    // socket buffers cannot reach a replica late.
    x.c.partition_from(0, {x.c.site_addr(1), x.c.site_addr(2)});
    if (!x.c.sql(0).exec("INSERT INTO appdb.chaos_writes VALUES (-1, 'errant', 0)"))
      x.notes.push_back("errant insert failed: " + x.c.sql(0).error());
    x.c.kill9_mysqld(0);
    x.w.pause(false);
    if (!x.wait_active("s2", 60)) x.notes.push_back("no failover to s2 within 60 s");
    x.c.heal(0);
  };
  s.restore = [](scenario_context& x) { x.c.start_mysqld(0); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(failover_with_replication_lag_recovers_every_transaction) {
  scenario s{"failover_with_replication_lag_recovers_every_transaction", base(), {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.strict_s3 = true;
  s.fault = [](scenario_context& x) {
    x.c.sql(1).exec("STOP REPLICA SQL_THREAD");  // s2 receives but does not apply
    x.sleep_s(3);
    x.w.pause(true);
    // every acked write must have reached s2's relay log before the kill (receiver caught up)
    x.wait_until([&] { return x.not_received(0, 1) == uint64_t{0}; }, 20);
    auto lag = x.c.sql(1).scalar("SELECT COUNT(*) FROM appdb.chaos_writes");
    x.notes.push_back("rows applied on s2 before the kill: " + lag.value_or("?"));
    x.c.kill9_mysqld(0);
    x.w.pause(false);
    if (!x.wait_active("s2", 90)) x.notes.push_back("no failover to s2 within 90 s");
  };
  s.restore = [](scenario_context& x) { x.c.start_mysqld(0); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(anti_flap_cooldown) {
  scenario s{"anti_flap_cooldown", base(), {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;
  s.fault = [](scenario_context& x) {
    x.c.kill9_mysqld(0);
    if (!x.wait_active("s2", 60)) x.notes.push_back("no failover to s2 within 60 s");
    x.c.start_mysqld(0);
    x.sleep_s(10);  // s1 rejoins (or is blocked) under s2
    auto v = x.c.active_view();
    int64_t epoch = v.is_object() ? v.value("epoch", int64_t{0}) : -1;
    x.c.kill9_mysqld(1);  // inside the 5 min cooldown: no second failover
    x.sleep_s(10);
    auto v2 = x.c.active_view();
    std::string active = v2.is_object() ? v2.value("activeSite", "") : "?";
    int64_t epoch2 = v2.is_object() ? v2.value("epoch", int64_t{0}) : -1;
    bool s1_writable = x.c.sql(0).scalar("SELECT @@global.read_only") == "0";
    x.notes.push_back("during cooldown: active '" + active + "' epoch " + std::to_string(epoch) + "->" +
                      std::to_string(epoch2) + ", s1 " + (s1_writable ? "WRITABLE" : "fenced"));
    if (s1_writable || active == "s1") x.failures.push_back("FLAP: a second failover inside the cooldown");
  };
  s.restore = [](scenario_context& x) { x.c.start_mysqld(1); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(split_brain_resolved_by_prefer_site) {
  // Two writable candidates that only the operator can resolve: s2's sidecar is down (else its
  // mismatch rule fences s2 within a tick and the operator never sees the split).
  auto p = base();
  p.prefer_site = "s1";
  scenario s{"split_brain_resolved_by_prefer_site", p, {}, {}, {}, {}};
  s.expect.final_active = "s1";
  s.expect.epoch_may_change = true;  // resolving a split brain bumps the epoch (docs/safety.md)
  s.expect.allow_blocked = true;  // writes s2 took while writable make it divergent (reported)
  s.expect.s1_exempt = true;
  s.expect.s1_exempt_why = "the scenario itself makes s2 writable; the window is the resolution time";
  s.fault = [](scenario_context& x) {
    x.c.kill_sidecar(1);
    x.c.sql(1).exec("STOP REPLICA");
    x.c.sql(1).exec("SET GLOBAL super_read_only=OFF");
    x.c.sql(1).exec("SET GLOBAL read_only=OFF");
    int64_t t0 = br::chaos::now_ms();
    bool fenced = x.wait_until([&] { return x.c.sql(1).scalar("SELECT @@global.read_only") == "1"; }, 60);
    x.notes.push_back(fenced ? "split brain resolved (s2 fenced by the operator) after " +
                                   std::to_string(br::chaos::now_ms() - t0) + " ms"
                             : std::string("s2 still writable after 60 s"));
  };
  s.restore = [](scenario_context& x) { x.c.start_sidecar(1); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(total_loss_alerts_only) {
  scenario s{"total_loss_alerts_only", base(), {}, {}, {}, {}};
  s.expect.failover = false;
  s.expect.epoch_may_change = true;  // s1 boots fenced (S5): re-establishing it bumps the epoch
  s.expect.final_active = "s1";
  s.expect.allow_blocked = true;
  s.fault = [](scenario_context& x) {
    x.w.pause(true);
    x.wait_replicas_caught_up(0, 20);
    x.w.pause(false);
    x.c.kill9_mysqld_together({0, 1});
    x.sleep_s(10);  // only the read-only s3 is left: it must never be promoted
    bool s3_writable = x.c.sql(2).scalar("SELECT @@global.read_only") == "0";
    if (s3_writable) x.failures.push_back("the read-only s3 became writable during the total loss");
    auto ev = x.c.events();
    bool alerted = false;
    if (ev.is_array())
      for (const auto& e : ev)
        alerted = alerted || (e.value("type", "") == "Warning" && e.value("reason", "") == "TotalLossDetected");
    if (!alerted) x.failures.push_back("no Warning event TotalLossDetected");
    x.notes.push_back(std::string("s3 ") + (s3_writable ? "PROMOTED (wrong)" : "stayed read-only") +
                      "; operator events: " + (ev.is_array() ? ev.dump().substr(0, 800) : std::string("unavailable")));
  };
  // s1 first, alone: "read-only + unreachable" is a failover to the only candidate left (s1, with
  // every acked row), whichever way the fault went (no plan, or a plan to s2 that failed when s2
  // died too). Both back at once would read "read-only + read-only": no primary, alert only (seed
  // 004), a human decision, which is not what this scenario is about.
  s.restore = [](scenario_context& x) {
    x.c.start_mysqld(0);
    if (!x.wait_until([&] { return x.c.sql(0).scalar("SELECT @@global.read_only") == "0"; }, 90))
      x.notes.push_back("s1 not re-established within 90 s of its restart");
    x.c.start_mysqld(1);
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(operator_kill_during_failover) {
  scenario s{"operator_kill_during_failover", base(), {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;
  s.fault = [](scenario_context& x) {
    auto v = x.c.active_view();
    int64_t epoch = v.is_object() ? v.value("epoch", int64_t{0}) : 0;
    x.c.kill9_mysqld(0);
    // kill the operator as soon as the failover has started (epoch bumped), before it completes
    bool started = x.wait_until([&] {
      auto w = x.c.active_view();
      return w.is_object() && w.value("epoch", int64_t{0}) > epoch;
    }, 60);
    auto mid = x.c.active_view();
    x.c.kill_operator();
    x.notes.push_back(std::string("operator killed ") + (started ? "mid-failover at view " : "without seeing a failover start; view ") + mid.dump());
    x.sleep_s(3);
    x.c.start_operator();
    if (!x.wait_active("s2", 90)) x.notes.push_back("no failover to s2 within 90 s after the restart");
  };
  s.restore = [](scenario_context& x) { x.c.start_mysqld(0); };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(dead_sidecar_and_partitioned_primary_fenced_by_its_switch) {
  // docs/safety.md rule 7: with its sidecar dead nothing fences the primary but the in-database dead
  // man's switch. Cut from the operator (and the writer, which shares the host), it still sees its
  // replicas, so only the switch can stop it; under Safe the gate's rule 3 waits long enough that
  // the switch has fired before the candidate is promoted.
  scenario s{"dead_sidecar_and_partitioned_primary_fenced_by_its_switch", base(), {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;
  if (fast(s.params)) {
    s.expect.s1_exempt = true;
    s.expect.s1_exempt_why = "policy Fast does not wait for the switch";
  }
  s.fault = [](scenario_context& x) {
    x.c.kill_sidecar(0);
    x.c.partition_from(0, {x.c.host_addr()});
    int64_t t0 = br::chaos::now_ms(), fenced_at = 0, promoted_at = 0;
    x.wait_until([&] {
      if (!fenced_at && x.c.sql(0).scalar("SELECT @@global.super_read_only") == "1")
        fenced_at = br::chaos::now_ms();
      if (!promoted_at) {
        auto v = x.c.active_view();
        if (v.is_object() && v.value("activeSite", "") == "s2") promoted_at = br::chaos::now_ms();
      }
      return fenced_at && promoted_at;
    }, 120);
    auto at = [&](int64_t t) { return t ? std::to_string(t - t0) + " ms" : std::string("never"); };
    x.notes.push_back("s1 fenced by its switch at " + at(fenced_at) + ", s2 promoted at " +
                      at(promoted_at) + " after the cut");
    if (!fenced_at) x.failures.push_back("s1 never fenced itself (dead man's switch)");
    if (!fast(x.c.params()) && fenced_at && promoted_at && promoted_at < fenced_at)
      x.failures.push_back("s2 promoted before s1's switch fenced it");
  };
  s.restore = [](scenario_context& x) {
    x.c.heal(0);
    x.c.start_sidecar(0);
  };
  check(run_scenario(s));
}


// -- issue 18: no acknowledged write lost in a switchover, no loss unreported in a failover ------

BOOST_AUTO_TEST_CASE(switchover_under_load_with_a_delayed_candidate_loses_nothing) {
  // s2's link to s1 is cut while the load runs, so its receiver falls behind; the switchover is
  // requested then, and the link comes back 5 s later, while the executor is at its wait (the
  // source's sessions are killed once at the fence: decide/session_drain); a switchover that then only
  // drained what s2 had received promoted it without the rest and s1 came back divergent
  // (`tools/chaos.sh --mutant-no-catch-up`); it must wait for s1's fenced set.
  auto p = base();
  p.max_lag_wait = "60s";
  p.drain_timeout = "2s";
  scenario s{"switchover_under_load_with_a_delayed_candidate_loses_nothing", p, {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.strict_s3 = true;  // nothing lost, reported or not; s1 must rejoin (not blocked)
  s.fault = [](scenario_context& x) {
    x.c.partition_from(1, {x.c.site_addr(0)});
    x.sleep_s(2);
    auto lacked = x.not_received(0, 1);
    x.notes.push_back("s2 lacked " + (lacked ? std::to_string(*lacked) : std::string("?")) +
                      " of s1's transactions when the switchover was requested");
    auto [code, out] = x.c.request_switchover("s2");
    if (code != 0) x.failures.push_back("switchover not accepted: " + out);
    x.sleep_s(5);
    x.c.heal(1);
    if (!x.wait_active("s2", 90)) x.failures.push_back("no switchover to s2 within 90 s");
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(failover_with_an_incomplete_drain_reports_the_loss_exactly) {
  // s2 receives every acknowledged write but its applier stops at a conflicting row (an id the
  // workload is about to write, inserted on s2 alone), so the relay drain (4 s) cannot complete
  // and the failover promotes s2 without the rest. What it discards must be reported exactly --
  // status, Event -- and match what the checker finds missing; s1, when it returns with them, is
  // blocked as divergent.
  auto p = base();
  p.relay_drain_timeout = "4s";
  scenario s{"failover_with_an_incomplete_drain_reports_the_loss_exactly", p, {}, {}, {}, {}};
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.must_block = {"s1"};
  s.expect.allow_blocked = true;
  s.fault = [](scenario_context& x) {
    x.w.pause(true);
    x.wait_replicas_caught_up(0, 20);
    auto max_id = x.c.sql(0).scalar("SELECT COALESCE(MAX(id), 0) FROM appdb.chaos_writes");
    int64_t conflict = (max_id ? std::stoll(*max_id) : 0) + 10;
    auto& s2 = x.c.sql(1);
    // 20 ids from there: the workload spends ids on refused writes too (the probers of the
    // read-only sites), so one planted id is written on s1 only about half the time.
    std::string rows;
    for (int64_t i = 0; i < 20; ++i)
      rows += (i ? ", (" : "(") + std::to_string(conflict + i) + ", 'conflict', 0)";
    // Not logged (no GTID), written past super_read_only (root keeps read_only's exemption).
    if (!s2.exec("SET SESSION sql_log_bin = 0") || !s2.exec("SET GLOBAL super_read_only = OFF") ||
        !s2.exec("INSERT INTO appdb.chaos_writes VALUES " + rows) ||
        !s2.exec("SET GLOBAL super_read_only = ON") || !s2.exec("SET SESSION sql_log_bin = 1"))
      x.failures.push_back("could not plant the conflicting row on s2: " + s2.error());
    x.w.pause(false);
    x.sleep_s(3);  // the workload passes the conflicting id: s2's applier stops there
    x.w.pause(true);
    // every acknowledged write reached s2's relay log (the checker's missing writes are then
    // exactly what the drain could not apply)
    bool received = x.wait_until([&] { return x.not_received(0, 1) == uint64_t{0}; }, 20);
    if (!received) x.notes.push_back("s2 had not received every write before the kill");
    x.c.kill9_mysqld(0);
    x.w.pause(false);
    if (!x.wait_active("s2", 90)) x.failures.push_back("no failover to s2 within 90 s");
    // The planted rows are not s1's writes of those ids: removed, so the checker sees the loss.
    x.wait_until([&] {
      return x.c.sql(1).exec("DELETE FROM appdb.chaos_writes WHERE id >= " + std::to_string(conflict) +
                             " AND site = 'conflict'");
    }, 20);
  };
  s.restore = [](scenario_context& x) { x.c.start_mysqld(0); };
  s.verify = [](scenario_context& x, const br::chaos::final_report& r) {
    std::string gtid;
    int64_t count = -1;
    if (r.status.is_object() && r.status.contains("lastFailoverLosses"))
      for (const auto& l : r.status["lastFailoverLosses"])
        if (l.value("kind", "") == "discarded" && l.value("site", "") == "s2") {
          gtid = l.value("gtidSet", "");
          count = l.value("count", int64_t{-1});
        }
    x.notes.push_back("reported discarded on s2: " + std::to_string(count) + " [" + gtid + "]");
    x.notes.push_back("checker: " + std::to_string(r.lost_reported) + " acked writes missing (reported), " +
                      std::to_string(r.lost_unreported) + " unreported");
    if (count <= 0) x.failures.push_back("no discarded transactions reported in status.lastFailoverLosses");
    if (count != r.lost_reported + r.lost_unreported)
      x.failures.push_back("reported " + std::to_string(count) + " discarded, the checker finds " +
                           std::to_string(r.lost_reported + r.lost_unreported) + " acked writes missing");
    bool event = false;
    if (r.events.is_array())
      for (const auto& e : r.events)
        event = event || (e.value("reason", "") == "TransactionsLost" &&
                          e.value("message", "").find(gtid) != std::string::npos);
    if (!event) x.failures.push_back("no TransactionsLost event naming the set");
    // s1 came back holding exactly what was discarded (nothing else was acknowledged).
    std::string s1_divergent;
    if (r.status.is_object() && r.status.contains("sites"))
      for (const auto& site : r.status["sites"])
        if (site.value("name", "") == "s1") s1_divergent = site.value("divergentGtid", "");
    x.notes.push_back("s1 divergentGtid: " + s1_divergent);
    if (s1_divergent != gtid)
      x.failures.push_back("s1's divergent set [" + s1_divergent + "] is not the reported loss [" + gtid + "]");
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_SUITE_END()
