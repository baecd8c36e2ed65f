// Coordinator decisions in virtual time: fencing writable non-candidates, split-brain tiers,
// returning old primary (contained -> recover plan, divergent -> RecoveryBlocked), reclone token.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "config/group_status.hpp"
#include "actors/common/authority.hpp"
#include "tests/actors/operator_fixture.hpp"

using namespace br;
using namespace br::test;

namespace {

struct topo : operator_fixture {
  /// A durable record of an earlier failover to `target` (long before the test starts).
  durable_state history(const std::string& target, uint64_t epoch) {
    durable_state d;
    d.view = {epoch, target, "", 1, {}};
    d.last_failover_ms = 1000;
    d.last_failover_target = target;
    d.promotion_gtid = gtid(U1, 1, 10);
    d.plan.id = 7;
    return d;
  }

  nlohmann::json status() {
    nlohmann::json s;
    self->send(coord(), status_atom::value);
    run();
    self->receive([&](config::group_status& x) { s = x; },
                  caf::after(std::chrono::seconds(0)) >> [] {});
    return s;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(writable_dr_only_site_is_fenced_without_promotion, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  add_site("c", site_role::dr_only);
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10), true);
  io_rec->probe["c"] = writable_probe(gtid(U1, 1, 10));
  start();
  polls(3);
  BOOST_TEST(io_rec->count("c", mysql_op::fence) >= 1u);
  BOOST_TEST(io_rec->count("c", mysql_op::kill_sessions) >= 1u);
  auto ops = io_rec->ops_for("c");
  BOOST_REQUIRE(!ops.empty());
  BOOST_TEST(ops.front() == mysql_op::fence);  // fence first, then kill sessions
  BOOST_TEST(io_rec->ops_for("a").empty());
  BOOST_TEST(io_rec->ops_for("b").empty());
  BOOST_TEST(exec->plans.empty());
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(split_brain_tier1_history_fences_every_other_writer, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  preset(history("b", 5));
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 12));
  io_rec->probe["b"] = writable_probe(gtid(U1, 1, 10) + "," + gtid(U2, 1, 3));
  start();
  polls(3);
  BOOST_TEST(io_rec->count("a", mysql_op::fence) >= 1u);
  BOOST_TEST(io_rec->count("b", mysql_op::fence) == 0u);
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(view().epoch == 5u);
  BOOST_TEST(platform.rec->count_events("SplitBrainDetected") == 1u);
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(split_brain_tier2_priorities_fence_losers_and_repromote, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  spec.split_brain_policy.site_priorities = {"b", "a"};
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = writable_probe(gtid(U1, 1, 10));
  start();
  polls(3);
  BOOST_TEST(io_rec->count("a", mysql_op::fence) >= 1u);
  BOOST_TEST(io_rec->count("b", mysql_op::fence) == 0u);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  BOOST_TEST(exec->plans[0].candidate == "b");
  BOOST_TEST(exec->plans[0].old_primary == "a");
  BOOST_TEST(view().deposing == "a");
  check_no_unexpected();
}

// The loser of a tier-2 resolution may have taken writes and may still have a (stopped)
// replication channel: it is marked durably and, once it reads read-only, classified like a
// returning old primary, so its extra transactions are reported, never silently replicated over.
BOOST_FIXTURE_TEST_CASE(split_brain_tier2_loser_with_a_stopped_channel_is_classified, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  spec.split_brain_policy.site_priorities = {"b", "a"};
  const auto a_set = gtid(U1, 1, 10) + "," + gtid(U2, 1, 3);  // 3 writes a took while split
  io_rec->probe["a"] = writable_probe(a_set);
  io_rec->probe["b"] = writable_probe(gtid(U1, 1, 10));
  start();
  polls(3);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  BOOST_TEST(platform.rec->disk.recovery["a"].state == "RecoveryPending");
  self->send(coord(), plan_done_atom::value, result_of(exec->plans[0].id, true, gtid(U1, 1, 10)));
  run();
  BOOST_TEST(view().active_site == "b");
  // a now reads read-only with its channel configured but stopped (STOP REPLICA, not RESET).
  auto ro = read_only_probe(a_set, true);
  ro.probe.io_state = "OFF";
  ro.probe.sql_state = "OFF";
  io_rec->probe["a"] = ro;
  polls(4);
  auto rec = platform.rec->disk.recovery["a"];
  BOOST_TEST(rec.state == "RecoveryBlocked");
  BOOST_TEST(rec.divergent_gtid == U2 + ":1-3");
  BOOST_TEST(rec.divergent_count == 3u);
  BOOST_TEST(platform.rec->count_events("DataLossDetected") == 1u);
  BOOST_TEST(io_rec->count("a", mysql_op::change_source) == 0u);
  BOOST_TEST(io_rec->count("a", mysql_op::start_replica) == 0u);
  BOOST_TEST(exec->plans.size() == 1u);  // no recover plan for a divergent loser
}

BOOST_FIXTURE_TEST_CASE(split_brain_tier2_loser_without_extra_writes_rejoins, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  spec.split_brain_policy.site_priorities = {"b", "a"};
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = writable_probe(gtid(U1, 1, 10));
  start();
  polls(3);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  self->send(coord(), plan_done_atom::value, result_of(exec->plans[0].id, true, gtid(U1, 1, 10)));
  run();
  auto ro = read_only_probe(gtid(U1, 1, 10), true);
  ro.probe.io_state = "OFF";
  ro.probe.sql_state = "OFF";
  io_rec->probe["a"] = ro;
  polls(3);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 2u);
  BOOST_TEST(exec->plans[1].kind == plan_kind::recover);
  BOOST_TEST(exec->plans[1].candidate == "a");
  BOOST_TEST(platform.rec->disk.recovery["a"].state == "RecoveryInProgress");
  // A failed rejoin leaves it pending (tried again later), never forgotten.
  self->send(coord(), plan_done_atom::value, result_of(exec->plans[1].id, false, "", "start_replica failed"));
  run();
  BOOST_TEST(platform.rec->disk.recovery["a"].state == "RecoveryPending");
}

BOOST_FIXTURE_TEST_CASE(split_brain_tier3_alerts_only, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = writable_probe(gtid(U1, 1, 10));
  start();
  polls(5);
  BOOST_TEST(io_rec->commands.empty());
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(platform.rec->count_events("SplitBrainDetected") == 1u);
  BOOST_TEST(platform.rec->last_event("SplitBrainDetected")->type == "Warning");
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(contained_returning_primary_gets_a_recover_plan, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  preset(history("b", 3));
  io_rec->probe["a"] = read_only_probe(gtid(U1, 1, 10), false);  // RESET REPLICA ALL signature
  io_rec->probe["b"] = writable_probe(gtid(U1, 1, 10) + "," + gtid(U2, 1, 4));
  start();
  polls(3);
  auto ops = io_rec->ops_for("a");
  BOOST_REQUIRE(ops.size() >= 3u);
  BOOST_TEST(ops[0] == mysql_op::fence);  // defensively fenced before anything else
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  BOOST_TEST(exec->plans[0].kind == plan_kind::recover);
  BOOST_TEST(exec->plans[0].candidate == "a");
  BOOST_TEST(view().epoch == 3u);  // recovery does not change authority
  BOOST_TEST(platform.rec->disk.recovery["a"].state == "RecoveryInProgress");
  // Done: the recovery state is cleared and RecoveryComplete raised.
  self->send(coord(), plan_done_atom::value,
             result_of(exec->plans[0].id, true));
  run();
  BOOST_TEST(platform.rec->disk.recovery.count("a") == 0u);
  BOOST_TEST(platform.rec->count_events("RecoveryComplete") == 1u);
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(divergent_returning_primary_is_blocked_and_never_repointed, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  preset(history("b", 3));
  io_rec->probe["a"] = read_only_probe(gtid(U1, 1, 12), false);
  io_rec->probe["b"] = writable_probe(gtid(U1, 1, 10) + "," + gtid(U2, 1, 4));
  start();
  polls(6);
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(io_rec->count("a", mysql_op::fence) >= 1u);
  BOOST_TEST(io_rec->count("a", mysql_op::change_source) == 0u);
  BOOST_TEST(io_rec->count("a", mysql_op::start_replica) == 0u);
  auto rec = platform.rec->disk.recovery["a"];
  BOOST_TEST(rec.state == "RecoveryBlocked");
  BOOST_TEST(rec.divergent_gtid == U1 + ":11-12");
  BOOST_TEST(rec.divergent_count == 2u);
  BOOST_TEST(platform.rec->count_events("DataLossDetected") == 1u);
  BOOST_TEST(platform.rec->last_event("DataLossDetected")->type == "Warning");
  auto st = status();
  BOOST_TEST(st["sites"][0]["name"] == "a");
  BOOST_TEST(st["sites"][0]["recoveryState"] == "RecoveryBlocked");
  BOOST_TEST(st["sites"][0]["divergentTransactionCount"] == 2);
  BOOST_TEST(st["activeSite"] == "b");
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(reclone_token_valid_starts_a_plan_invalid_changes_nothing, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  auto d = history("b", 3);
  d.recovery["a"] = {"RecoveryBlocked", U1 + ":11-12", 2};
  preset(d);
  io_rec->probe["a"] = read_only_probe(gtid(U1, 1, 12), false);
  io_rec->probe["b"] = writable_probe(gtid(U1, 1, 10));
  start();
  polls(2);
  auto persisted = platform.rec->persisted.size();
  auto bad = annotate(reclone_annotation, "a:deadbeef");
  BOOST_TEST(bad.rfind("rejected: ", 0) == 0u);
  BOOST_TEST(platform.rec->count_events("RecloneRejected") == 1u);
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(platform.rec->persisted.size() == persisted);
  BOOST_TEST(platform.rec->disk.recovery["a"].state == "RecoveryBlocked");
  auto bad2 = annotate(reclone_annotation, "b:confirm=g");  // the active primary
  BOOST_TEST(bad2.rfind("rejected: ", 0) == 0u);
  BOOST_TEST(exec->plans.empty());
  auto good = annotate(reclone_annotation, "a:" + U1.substr(0, 8));
  BOOST_TEST(good.rfind("accepted: ", 0) == 0u);
  BOOST_TEST(platform.rec->count_events("RecloneRequested") == 1u);
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  BOOST_TEST(exec->plans[0].kind == plan_kind::reclone);
  BOOST_TEST(exec->plans[0].candidate == "a");
  BOOST_TEST(annotate("other/key", "x").rfind("rejected: ", 0) == 0u);
  check_no_unexpected();
}

// docs/safety.md rule 7, operator side: every good poll of the active, writable site refreshes its
// heartbeat (after a first ensure_switch); never a site that is not active, never while deposing.
BOOST_FIXTURE_TEST_CASE(operator_heartbeats_only_the_active_site, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  preset(history("a", 4));
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10), true);
  start();
  polls(4);
  BOOST_REQUIRE(io_rec->switch_ops.size() >= 3u);
  BOOST_TEST((io_rec->switch_ops.front() == mysql_op::ensure_switch));
  for (size_t i = 1; i < io_rec->switch_ops.size(); ++i)
    BOOST_TEST((io_rec->switch_ops[i] == mysql_op::heartbeat));
  for (const auto& s : io_rec->switch_sites) BOOST_TEST(s == "a");
  BOOST_TEST(platform.rec->count_events("DeadMansSwitchNotArmed") == 0u);
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(no_operator_heartbeat_while_deposing, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  auto d = history("a", 4);
  d.view = {5, "", "a", 2, {}};  // a failover away from "a" is in progress
  preset(d);
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10), true);
  start();
  polls(4);
  BOOST_TEST(io_rec->switch_ops.empty());
}

BOOST_FIXTURE_TEST_CASE(unarmed_switch_raises_one_event, topo) {
  add_site("a", site_role::primary_candidate);
  add_site("b", site_role::primary_candidate);
  preset(history("a", 4));
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10), true);
  mysql_outcome off;
  off.ok = true;
  off.value = "scheduler_off";
  io_rec->answers[{"a", mysql_op::ensure_switch}] = off;
  start();
  polls(4);
  BOOST_TEST(platform.rec->count_events("DeadMansSwitchNotArmed") == 1u);
  BOOST_TEST(platform.rec->last_event("DeadMansSwitchNotArmed")->site == "a");
}

// -- epoch recovery (docs/safety.md S6) ------------------------------------------------------------

namespace {

/// Sidecars answering GET /peer/active-site with the view each holds (signed by `view_key`) in an
/// answer signed by the site's own key, as bloodraven-sidecar does; PUT /view gets a 503.
struct held_views {
  std::string group = "test/g";
  std::map<std::string, std::pair<topology_view, crypto::signing_key>> by_address;
  std::map<std::string, crypto::signing_key> site_keys;
  std::vector<http_call> calls;
};

http_worker_actor spawn_held_view_sidecars(caf::actor_system& sys, std::shared_ptr<held_views> h) {
  return sys.spawn([h]() -> http_worker_actor::behavior_type {
    return {[h](http_call_atom, const http_call& c) {
      h->calls.push_back(c);
      http_reply r;
      r.status = 503;
      auto q = c.url.find("/peer/active-site?nonce=");
      if (c.method != "GET" || q == std::string::npos) return r;
      auto addr = c.url.substr(7, q - 7);
      auto it = h->by_address.find(addr);
      if (it == h->by_address.end()) {
        r.status = 204;
        return r;
      }
      auto site = addr.substr(0, addr.find('-'));
      auto v = auth::sign_view(it->second.second, h->group, it->second.first);
      nlohmann::json view = {{"epoch", v.epoch},           {"activeSite", v.active_site},
                             {"deposing", v.deposing},     {"observedAt", "2026-01-01T00:00:00Z"},
                             {"signature", v.signature}};
      r.status = 200;
      r.body = nlohmann::json{{"site", site},
                              {"group", h->group},
                              {"nonce", c.url.substr(q + 24)},
                              {"view", view}}
                   .dump();
      r.signature = auth::sign_body(h->site_keys[site], auth::purpose::peer_answer, h->group, r.body);
      return r;
    }};
  });
}

/// Sites a and b with sidecars answering as `spawn_held_view_sidecars` does, and the operator's
/// keys `op` (sites keyed by their own seeds). The test fills `by_address` before start().
struct held_topo : topo {
  crypto::signing_key op = *crypto::key_from_seed(std::string(32, 'O'));
  std::shared_ptr<held_views> h = std::make_shared<held_views>();

  held_topo() {
    add_site("a", site_role::primary_candidate);
    add_site("b", site_role::primary_candidate);
    spec.sites[0].sidecar_address = "a-sidecar:8080";
    spec.sites[1].sidecar_address = "b-sidecar:8080";
    auto ring = std::make_shared<auth::key_ring>();
    ring->signer = op;
    ring->operator_keys = {op.pub};
    for (const char* site : {"a", "b"}) {
      h->site_keys[site] = *crypto::key_from_seed(std::string(32, site[0]));
      ring->site_keys[site] = {h->site_keys[site].pub};
    }
    keys = ring;
    auto* sysp = &sys;
    auto held = h;
    http_worker = [held, sysp] { return spawn_held_view_sidecars(*sysp, held); };
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(an_empty_store_resumes_from_the_highest_view_the_sidecars_hold, held_topo) {
  // The operator lost its state (empty state dir). Site a's sidecar holds the view it issued at
  // epoch 7 naming a; site b's answer carries a forged view (epoch 50, naming b) signed by a key
  // the operator never had. The operator must resume at epoch 7 with a active (not adopt a at
  // epoch 1, which every sidecar would refuse as stale), and ignore the forgery.
  auto forger = *crypto::key_from_seed(std::string(32, 'F'));
  h->by_address["a-sidecar:8080"] = {topology_view{7, "a", "", 1, {}}, op};
  h->by_address["b-sidecar:8080"] = {topology_view{50, "b", "", 1, {}}, forger};
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10), true);
  start();
  polls(4);
  auto v = view();
  BOOST_TEST(v.epoch == 7u);
  BOOST_TEST(v.active_site == "a");
  BOOST_TEST(exec->plans.empty());
  // Every view it publishes from here on is at or above the recovered epoch and signed by it.
  size_t pushes = 0;
  for (const auto& c : h->calls) {
    if (c.method != "PUT") continue;
    ++pushes;
    auto body = nlohmann::json::parse(c.body);
    BOOST_TEST(body["epoch"].get<uint64_t>() >= 7u);
    topology_view pushed{body["epoch"].get<uint64_t>(), body["activeSite"], body["deposing"], 0,
                         body["signature"]};
    BOOST_TEST(auth::view_verifies({op.pub}, h->group, pushed));
  }
  BOOST_TEST(pushes >= 1u);
  check_no_unexpected();
}

BOOST_FIXTURE_TEST_CASE(a_stored_state_above_the_held_views_is_kept, held_topo) {
  h->by_address["a-sidecar:8080"] = {topology_view{3, "a", "", 1, {}}, op};
  preset(history("a", 9));
  io_rec->probe["a"] = writable_probe(gtid(U1, 1, 10));
  io_rec->probe["b"] = read_only_probe(gtid(U1, 1, 10), true);
  start();
  polls(4);
  auto v = view();
  BOOST_TEST(v.epoch == 9u);
  BOOST_TEST(v.active_site == "a");
}
