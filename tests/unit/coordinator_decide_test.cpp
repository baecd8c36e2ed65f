// Table tests of the coordinator's pure helpers: observations, fact changes, old primary,
// followers, candidate sets and the group status built from them.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/planned_failover.hpp"

#include <nlohmann/json.hpp>

#include "actors/operator/decide/coordinator_decide.hpp"
#include "actors/operator/group/durable_state_json.hpp"
#include "config/group_status.hpp"

using namespace br;

namespace {

const std::string U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

site_report report(const std::string& site, site_state state, bool ok, bool writable = false,
                   bool channel = false, bool transitioned = false) {
  site_report r;
  r.site = site;
  r.step.next.state = state;
  r.step.transitioned = transitioned;
  r.probe_ok = ok;
  r.probe.read_only = !writable;
  r.probe.super_read_only = !writable;
  r.probe.channel_configured = channel;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(observations_follow_declared_order_and_default_to_unknown) {
  std::map<std::string, site_report> reports;
  reports["b"] = report("b", site_state::writable, true, true);
  auto obs = build_observations({"a", "b", "c"},
                                {{"a", site_role::primary_candidate}, {"c", site_role::dr_only}},
                                reports);
  BOOST_REQUIRE_EQUAL(obs.size(), 3u);
  BOOST_TEST(obs[0].name == "a");
  BOOST_TEST((obs[0].state == site_state::unknown));
  BOOST_TEST((obs[1].state == site_state::writable));
  BOOST_TEST((obs[1].role == site_role::primary_candidate));  // missing role -> candidate
  BOOST_TEST((obs[2].role == site_role::dr_only));
}

BOOST_AUTO_TEST_CASE(fact_changes_table) {
  struct row {
    const char* name;
    bool has_prev;
    site_report prev, next;
    bool expected;
  };
  auto ro = report("a", site_state::read_only, true);
  auto ro_chan = report("a", site_state::read_only, true, false, true);
  auto fail_ro = report("a", site_state::read_only, false);
  auto fail_ro2 = fail_ro;
  auto unreach = report("a", site_state::unreachable, false, false, false, true);
  auto wr_probe_ro_state = report("a", site_state::read_only, true, true);
  std::vector<row> rows = {
      {"first report", false, {}, ro, true},
      {"same read-only report", true, ro, ro, false},
      {"channel appears", true, ro, ro_chan, true},
      {"probe starts failing", true, ro, fail_ro, true},
      {"still failing, same state", true, fail_ro, fail_ro2, false},
      {"transition to unreachable", true, fail_ro, unreach, true},
      {"probe writable, state not yet", true, ro, wr_probe_ro_state, true},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST(report_changes_facts(r.has_prev ? &r.prev : nullptr, r.next) == r.expected);
    }
  }
}

BOOST_AUTO_TEST_CASE(old_primary_choice_table) {
  std::vector<site_observation> obs = {{"a", site_role::primary_candidate, site_state::read_only},
                                       {"c", site_role::dr_only, site_state::unreachable},
                                       {"b", site_role::primary_candidate, site_state::unreachable}};
  BOOST_TEST(choose_old_primary({3, "a", "", 0, {}}, obs) == "a");
  BOOST_TEST(choose_old_primary({4, "", "b", 0, {}}, obs) == "b");
  BOOST_TEST(choose_old_primary({0, "", "", 0, {}}, obs) == "b");  // dr-only c is never a primary
  obs[2].state = site_state::read_only;
  BOOST_TEST(choose_old_primary({0, "", "", 0, {}}, obs) == "");
}

BOOST_AUTO_TEST_CASE(followers_exclude_candidate_and_deposed_site) {
  auto f = plan_followers({"a", "b", "c", "d"}, "b", "a");
  BOOST_TEST(f == (std::vector<std::string>{"c", "d"}));
  auto g = plan_followers({"a", "b", "c"}, "c", "");
  BOOST_TEST(g == (std::vector<std::string>{"a", "b"}));
}

BOOST_AUTO_TEST_CASE(candidate_sets_report_missing_and_unparsable) {
  std::map<std::string, site_probe> probes;
  probes["a"].gtid_executed = U1 + ":1-5";
  probes["b"].gtid_executed = "not a gtid";
  std::vector<std::string> missing;
  auto sets = candidate_sets({"c", "b", "a"}, {"a", "b", "c"}, probes, missing);
  BOOST_REQUIRE_EQUAL(sets.size(), 1u);
  BOOST_TEST(sets[0].name == "a");
  BOOST_TEST(sets[0].executed.count() == 5u);
  BOOST_TEST(missing == (std::vector<std::string>{"c", "b"}));  // declared order
}

BOOST_AUTO_TEST_CASE(group_status_reflects_view_sites_recovery_and_conditions) {
  status_inputs in;
  in.sites = {"a", "b"};
  in.roles = {{"a", site_role::primary_candidate}, {"b", site_role::primary_candidate}};
  in.reports["a"] = report("a", site_state::read_only, true);
  in.reports["b"] = report("b", site_state::writable, true, true);
  in.good_probes["a"] = in.reports["a"].probe;
  in.good_probes["a"].gtid_executed = U1 + ":1-12";
  in.good_probes["b"] = in.reports["b"].probe;
  in.last_seen_ms["b"] = 1700000000999;
  in.durable.last_failover_ms = 1700000000000;
  in.durable.last_failover_target = "b";
  in.durable.promotion_gtid = U1 + ":1-10";
  in.durable.recovery["a"] = {"RecoveryBlocked", U1 + ":11-12", 2};
  in.view = {9, "b", "", 0, {}};
  in.evaluated = true;
  in.evaluation.verdict = group_verdict::healthy;
  in.evaluation.reason = "Healthy";
  nlohmann::json j = build_group_status(in);
  BOOST_TEST(j["activeSite"] == "b");
  BOOST_TEST(j["epoch"] == 9);
  BOOST_TEST(j["lastFailoverTarget"] == "b");
  BOOST_TEST(j["lastFailover"] == "2023-11-14T22:13:20Z");
  BOOST_TEST(j["promotionGtidExecuted"] == U1 + ":1-10");
  BOOST_TEST(j["sites"][0]["recoveryState"] == "RecoveryBlocked");
  BOOST_TEST(j["sites"][0]["divergentGtid"] == U1 + ":11-12");
  BOOST_TEST(j["sites"][0]["divergentTransactionCount"] == 2);
  BOOST_TEST(j["sites"][0]["gtidExecuted"] == U1 + ":1-12");
  BOOST_TEST(j["sites"][1]["state"] == "writable");
  BOOST_TEST(j["sites"][1]["lastSeen"] == "2023-11-14T22:13:20Z");  // whole seconds
  bool ready = false, pending = false;
  for (auto& c : j["conditions"]) {
    if (c["type"] == "Ready") ready = c["status"] == "True";
    if (c["type"] == "RecoveryPending")
      pending = c["status"] == "True" && c["reason"] == "DivergentTransactions";
  }
  BOOST_TEST(ready);
  BOOST_TEST(pending);
}

BOOST_AUTO_TEST_CASE(durable_state_json_rejects_unknown_enums) {
  durable_state s;
  auto j = durable_state_to_json(s);
  BOOST_TEST(static_cast<bool>(durable_state_from_json(j)));
  j["plan"]["phase"] = "exploding";
  BOOST_TEST(!durable_state_from_json(j));
  j = durable_state_to_json(s);
  j["plan"]["kind"] = "teleport";
  BOOST_TEST(!durable_state_from_json(j));
}

// spec.restoreInPlace: the used token and the freeze survive an operator restart (the store's
// JSON); a state without one keeps its old shape and reads back without one.
BOOST_AUTO_TEST_CASE(durable_state_json_keeps_the_restore_freeze) {
  durable_state s;
  BOOST_TEST(!durable_state_to_json(s).contains("restoreFreeze"));
  s.restore_freeze = {"2026-11-26T15:00:00Z", true, "a", {}, {}};
  auto back = durable_state_from_json(durable_state_to_json(s));
  BOOST_REQUIRE(static_cast<bool>(back));
  BOOST_TEST(back->restore_freeze.token == "2026-11-26T15:00:00Z");
  BOOST_TEST(back->restore_freeze.frozen);
  BOOST_TEST(back->restore_freeze.site == "a");
  s.restore_freeze.frozen = false;  // lifted: the used token stays
  back = durable_state_from_json(durable_state_to_json(s));
  BOOST_REQUIRE(static_cast<bool>(back));
  BOOST_TEST(!back->restore_freeze.frozen);
  BOOST_TEST(back->restore_freeze.token == "2026-11-26T15:00:00Z");
  s.restore_freeze.recloned = {"b", "c"};  // the sites recloned on the restore's word
  s.restore_freeze.pending = {"c"};         // not recloned yet (issue 21 H1)
  back = durable_state_from_json(durable_state_to_json(s));
  BOOST_REQUIRE(static_cast<bool>(back));
  BOOST_TEST(back->restore_freeze.pending == std::vector<std::string>{"c"}, boost::test_tools::per_element());
  BOOST_TEST_REQUIRE(static_cast<bool>(back));
  BOOST_TEST((back->restore_freeze == s.restore_freeze));
}

// Guarded quorum recovery (issue 23): the taken request survives an operator restart, so it is
// never acted on twice; a GR record without one keeps its old shape.
BOOST_AUTO_TEST_CASE(durable_state_json_keeps_the_gr_recovery_record) {
  durable_state s;
  s.gr.group_name = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  s.gr.bootstrapped = true;
  s.gr.observed_view_max = 3;
  BOOST_TEST(!durable_state_to_json(s)["groupReplication"].contains("recovery"));
  s.gr.recovery_request = "req-1";
  s.gr.recovery_kind = "forceMembers";
  s.gr.recovery_site = "a";
  s.gr.recovery_open = true;
  auto back = durable_state_from_json(durable_state_to_json(s));
  BOOST_TEST_REQUIRE(static_cast<bool>(back));
  BOOST_TEST((back->gr == s.gr));
}

// Scale-down (issue 23): a leave recorded before its STOP survives an operator restart.
BOOST_AUTO_TEST_CASE(durable_state_json_keeps_the_gr_leave_records) {
  durable_state s;
  s.gr.group_name = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
  s.gr.bootstrapped = true;
  BOOST_TEST(!durable_state_to_json(s)["groupReplication"].contains("leaving"));
  s.gr.leaving = {{"c", "u-c", "Stopping"}, {"d", "", "Stopped"}};
  auto back = durable_state_from_json(durable_state_to_json(s));
  BOOST_TEST_REQUIRE(static_cast<bool>(back));
  BOOST_TEST((back->gr == s.gr));
}

BOOST_AUTO_TEST_CASE(candidate_sets_are_what_each_candidate_can_reach) {
  std::map<std::string, site_probe> probes;
  probes["a"].gtid_executed = U1 + ":1-5";
  probes["a"].received_gtid = U1 + ":1-9";  // relay log holds 6-9
  probes["b"].gtid_executed = U1 + ":1-7";
  probes["c"].gtid_executed = U1 + ":1-7";
  probes["c"].received_gtid = "garbage";
  std::vector<std::string> missing;
  auto sets = candidate_sets({"a", "b", "c"}, {"a", "b", "c"}, probes, missing);
  BOOST_REQUIRE_EQUAL(sets.size(), 2u);
  BOOST_TEST(sets[0].executed.count() == 9u);  // executed united with received
  BOOST_TEST(sets[1].executed.count() == 7u);
  BOOST_TEST(missing == (std::vector<std::string>{"c"}));  // an unparsable received set is unknown
}

BOOST_AUTO_TEST_CASE(group_status_lists_the_last_failover_losses) {
  status_inputs in;
  in.sites = {"a"};
  in.view = {3, "a", "", 0, {}};
  in.durable.last_failover_losses = {{"a", gtid_loss_discarded, U1 + ":8-9", 2},
                                     {"b", gtid_loss_stranded, U1 + ":10", 1}};
  nlohmann::json j = build_group_status(in);
  BOOST_REQUIRE(j.contains("lastFailoverLosses"));
  BOOST_TEST(j["lastFailoverLosses"].size() == 2u);
  BOOST_TEST(j["lastFailoverLosses"][0]["kind"] == "discarded");
  BOOST_TEST(j["lastFailoverLosses"][0]["gtidSet"] == U1 + ":8-9");
  BOOST_TEST(j["lastFailoverLosses"][0]["count"] == 2);
  BOOST_TEST(j["lastFailoverLosses"][1]["site"] == "b");
  // And back: the lenient reader keeps them.
  auto back = j.get<config::group_status>();
  BOOST_TEST(back.last_failover_losses.size() == 2u);
}

// The freeze shows as RestoreInPlaceFrozen True (the reconciler labels no pod primary then);
// lifted, the condition is gone.
BOOST_AUTO_TEST_CASE(group_status_shows_the_restore_freeze) {
  status_inputs in;
  in.sites = {"a"};
  in.view = {3, "a", "", 0, {}};
  in.durable.restore_freeze = {"2026-11-26T15:00:00Z", true, "a", {}, {}};
  auto frozen = [](const nlohmann::json& j) -> nlohmann::json {
    for (const auto& c : j.value("conditions", nlohmann::json::array()))
      if (c.value("type", "") == "RestoreInPlaceFrozen") return c;
    return nullptr;
  };
  nlohmann::json j = build_group_status(in);
  BOOST_TEST_REQUIRE(frozen(j).is_object(), j.dump());
  BOOST_TEST(frozen(j)["status"] == "True");
  BOOST_TEST(frozen(j)["message"].get<std::string>().find("2026-11-26T15:00:00Z") != std::string::npos);
  in.durable.restore_freeze.frozen = false;
  BOOST_TEST(frozen(build_group_status(in)).is_null());
  // Restore-pending sites (H1): shown per site and in a condition naming them.
  in.sites = {"a", "b"};
  in.durable.restore_freeze.pending = {"b"};
  j = build_group_status(in);
  BOOST_TEST(j["sites"][1]["restorePending"] == true, j.dump());
  BOOST_TEST(!j["sites"][0].contains("restorePending"));
  bool named = false;
  for (const auto& c : j["conditions"])
    if (c.value("type", "") == "RestorePending") named = c.value("message", "").find(": b") != std::string::npos;
  BOOST_TEST(named, j.dump());
}

// status.sites[].semiSync (issue 25): from each site's latest good probe; absent without plugins.
BOOST_AUTO_TEST_CASE(group_status_shows_each_sites_semi_sync_state) {
  status_inputs in;
  in.sites = {"a", "b", "c"};
  in.view = {3, "a", "", 0, {}};
  site_probe primary, replica, plain;
  primary.semisync = {true, true, true, "AFTER_SYNC", 2, semisync_timeout_max_ms, true, 1,
                      true, false, false, 0, 3};
  replica.semisync = {true, false, false, "AFTER_SYNC", 2, semisync_timeout_max_ms, true, 0,
                      true, true, true, 0, 0};
  in.good_probes = {{"a", primary}, {"b", replica}, {"c", plain}};
  nlohmann::json j = build_group_status(in);
  BOOST_TEST(j["sites"][0]["semiSync"] == (nlohmann::json{{"role", "source"},
                                                           {"sourceOn", true},
                                                           {"clients", 1},
                                                           {"waitCount", 2},
                                                           {"waitingSessions", 3},
                                                           {"replicaOn", false}}),
             j.dump());
  BOOST_TEST(j["sites"][1]["semiSync"]["role"] == "replica");
  BOOST_TEST(j["sites"][1]["semiSync"]["replicaOn"] == true);
  BOOST_TEST(!j["sites"][2].contains("semiSync"), j.dump());
  // Read back (the status the operator finds on its object) to the same value.
  br::config::field_errors errs;
  br::config::group_status back;
  br::config::read(j, "status", back, errs);
  BOOST_TEST(errs.empty());
  BOOST_TEST_REQUIRE(back.sites.size() == 3u);
  BOOST_TEST((back.sites[0].semi_sync == build_group_status(in).sites[0].semi_sync));
  BOOST_TEST(back.sites[0].semi_sync->waiting_sessions == 3u);
}

BOOST_AUTO_TEST_CASE(durable_state_json_keeps_switchover_facts_and_losses) {
  durable_state s;
  s.plan.kind = plan_kind::switchover;
  s.plan.max_lag_wait = std::chrono::seconds(42);
  s.plan.session_drain_timeout = std::chrono::seconds(7);
  s.plan.source_gtid = U1 + ":1-9";
  s.plan.losses = {{"b", gtid_loss_stranded, U1 + ":10", 1}};
  s.last_failover_losses = {{"c", gtid_loss_discarded, U1 + ":8-9", 2}};
  s.planned = planned_deferred("b", "a", 4, 30'000, 9'000, 1'000, "deferred: cooldown");
  s.planned.source_gtid_at_fence = U1 + ":1-9";
  s.planned.plan_id = 3;
  s.planned.drain_started_ms = 2;
  s.planned.lag_wait_started_ms = 3;
  s.planned.promote_started_ms = 4;
  s.planned.resume_started_ms = 5;
  s.planned.finished_ms = 6;
  auto back = durable_state_from_json(durable_state_to_json(s));
  BOOST_REQUIRE(static_cast<bool>(back));
  BOOST_TEST((back->planned == s.planned));  // status.plannedFailover survives a restart
  BOOST_TEST(back->plan.max_lag_wait == s.plan.max_lag_wait);
  BOOST_TEST(back->plan.session_drain_timeout == s.plan.session_drain_timeout);
  BOOST_TEST(back->plan.source_gtid == s.plan.source_gtid);
  BOOST_TEST((back->plan.losses == s.plan.losses));
  BOOST_TEST((back->last_failover_losses == s.last_failover_losses));
  // A state file written before these members existed still loads, with the defaults.
  auto j = durable_state_to_json(durable_state{});
  j["plan"].erase("maxLagWaitMs");
  j["plan"].erase("losses");
  j.erase("lastFailoverLosses");
  j.erase("plannedFailover");
  auto old = durable_state_from_json(j);
  BOOST_REQUIRE(static_cast<bool>(old));
  BOOST_TEST(old->plan.max_lag_wait == caf::timespan(std::chrono::minutes(5)));
}

BOOST_AUTO_TEST_CASE(stores_refuse_a_write_that_lowers_the_epoch) {
  durable_state stored;
  stored.view.epoch = 7;
  auto text = durable_state_to_json(stored).dump();
  durable_state next;
  next.view.epoch = 6;
  BOOST_TEST(!epoch_regression(text, next).empty());
  next.view.epoch = 7;
  BOOST_TEST(epoch_regression(text, next).empty());
  next.view.epoch = 8;
  BOOST_TEST(epoch_regression(text, next).empty());
  next.view.epoch = 0;
  BOOST_TEST(epoch_regression("", next).empty());           // fresh store
  BOOST_TEST(epoch_regression("not json", next).empty());   // repaired by hand: not ours to judge
}
