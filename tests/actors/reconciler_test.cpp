// The reconciler's front in virtual time: a scripted worker (reports, rolls), a mock coordinator
// (view, status, switchover) and recording platform actors. OrderedUpdate end to end at the actor
// level: roll the replica, wait until it is polled caught up after its roll, request the handoff,
// roll the old primary last; steering is healed only from a settled view.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "actors/operator/kube/reconcile/reconciler.hpp"
#include "tests/support/det_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

/// What the mocks answer and what they saw.
struct script {
  json report;
  json status;
  topology_view view;
  std::vector<std::string> rolls, switchovers, routes, dns, taints, events;
  std::vector<json> status_parts;
  caf::timestamp wall = caf::make_timestamp();  ///< the reconciler's wall clock (GR case)
};

json workload_report(const std::string& name, bool drifted) {
  return {{"name", name},
          {"exists", true},
          {"ready", true},
          {"drift", drifted ? json::array({"config"}) : json::array()}};
}

json site_status(const std::string& name, const std::string& state, const std::string& last_seen) {
  json s = {{"name", name}, {"state", state}, {"lastSeen", last_seen}};
  s["replicating"] = state == "read-only";
  if (state == "read-only") s["secondsBehindSource"] = 0;
  return s;
}

// Polls dated long before / long after any roll the reconciler records (it uses the wall clock).
const std::string before_roll = "2000-01-01T00:00:00Z";
const std::string after_roll = "2100-01-01T00:00:00Z";

struct reconciler_fixture : test::det_fixture {
  std::shared_ptr<script> s = std::make_shared<script>();
  reconciler_actor rec;

  explicit reconciler_fixture(std::vector<std::string> sites = {"a", "b"},
                              std::function<void(reconciler_options&)> tweak = {}) {
    config::failover_group g;
    g.metadata.name = "orders";
    g.metadata.namespace_name = "default";
    for (const auto& name : sites) {
      const char* n = name.c_str();
      config::site_spec site;
      site.name = n;
      site.lb_ip = std::string("10.0.0.") + (n[0] == 'a' ? "1" : "2");
      site.taint_node_selector = {{"shipstream.io/site.orders", n}};
      g.spec.sites.push_back(site);
    }
    reconciler_options o;
    o.platform.ns = "default";
    o.platform.group = "orders";
    o.platform.context = std::make_shared<kube_group_context>(g);
    o.path = "test/reconciler";
    o.interval = 10s;
    o.busy_interval = 1s;
    auto sc = s;
    o.make_worker = [sc](caf::local_actor* front) {
      return front->spawn([sc]() -> reconcile_worker_actor::behavior_type {
        return {
            [sc](reconcile_atom) { return sc->report.dump(); },
            [sc](roll_atom, int, const std::string& site) {
              sc->rolls.push_back(site);
              return std::string{};
            },
        };
      });
    };
    auto coord = sys.spawn([sc]() -> caf::behavior {
      return {
          [sc](view_atom) { return sc->view; },
          [sc](status_atom) { return sc->status.get<config::group_status>(); },
          [sc](switchover_atom, const std::string& target) {
            sc->switchovers.push_back(target);
            return std::string("accepted: switchover to ") + target;
          },
      };
    });
    // A stand-in group supervisor: the reconciler asks it for (child, "coordinator").
    o.supervisor = sys.spawn([coord](caf::event_based_actor*) -> caf::behavior {
      return {[coord](child_atom, const std::string& name) -> caf::result<caf::actor> {
        if (name == "coordinator") return coord;
        return caf::make_error(caf::sec::invalid_argument, "no such child");
      }};
    });
    o.router = sys.spawn([sc]() -> router_actor::behavior_type {
      return {[sc](route_atom, const std::string&, const std::string& primary,
                   const std::vector<std::string>&) {
        sc->routes.push_back(primary);
        return true;
      }};
    });
    o.dns = sys.spawn([sc]() -> dns_actor::behavior_type {
      return {[sc](dns_atom, const std::string&, const std::string& site, const std::string&) {
        sc->dns.push_back(site);
        return true;
      }};
    });
    o.taints = sys.spawn([sc]() -> taint_actor::behavior_type {
      return {[sc](taint_atom, const std::string&, const std::string& site, bool on) {
        sc->taints.push_back(site + (on ? "+" : "-"));
        return true;
      }};
    });
    o.status = sys.spawn([sc]() -> kube_status_writer_actor::behavior_type {
      return {[](status_atom, const std::string&, const config::group_status&) {},
              [](spec_atom, const std::string&) {},
              [sc](reconcile_atom, const std::string& part) {
                sc->status_parts.push_back(json::parse(part));
              },
              [](dragonfly_atom, const std::string&) {},
              [](retry_later_atom) {}};
    });
    // Both sites' my.cnf changed; a is the primary, b a caught-up replica polled before any roll.
    s->report = {{"state", "ok"},
                 {"errors", json::array()},
                 {"version", 1},
                 {"generation", 2},
                 {"sites", {workload_report("a", true), workload_report("b", true)}}};
    s->status = {{"sites", {site_status("a", "writable", before_roll), site_status("b", "read-only", before_roll)}}};
    s->view.epoch = 1;
    s->view.active_site = "a";
    if (tweak) tweak(o);
    rec = spawn_reconciler(sys, o);
  }

  ~reconciler_fixture() { self->send_exit(rec, caf::exit_reason::user_shutdown); }

  std::string phase() {
    return s->status_parts.empty() ? "" : s->status_parts.back().value("updatePhase", "?");
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(reconciler_actor, reconciler_fixture)

BOOST_AUTO_TEST_CASE(ordered_update_rolls_replica_then_hands_over_then_rolls_the_old_primary) {
  run();  // first pass
  BOOST_TEST(s->rolls == std::vector<std::string>{"b"});
  BOOST_TEST(s->switchovers.empty());
  BOOST_TEST(phase() == "UpdatingReplica");
  // Settled view with a writable: labels, DNS and taints are healed towards a.
  BOOST_TEST(s->routes == std::vector<std::string>{"a"});
  BOOST_TEST(s->dns == std::vector<std::string>{"a"});
  BOOST_TEST((s->taints == std::vector<std::string>{"a-", "b+"}));

  // b rolled and its pod is ready, but no poll saw it since: wait.
  s->report["sites"][1] = workload_report("b", false);
  advance(1s);
  BOOST_TEST(s->rolls.size() == 1u);
  BOOST_TEST(s->switchovers.empty());
  BOOST_TEST(phase() == "WaitingForReplica");

  // Polled caught up after its roll: only the primary is left, so it is handed over first.
  s->status["sites"][1] = site_status("b", "read-only", after_roll);
  advance(1s);
  BOOST_TEST(s->switchovers == std::vector<std::string>{"b"});
  BOOST_TEST(s->rolls == std::vector<std::string>{"b"});  // a (serving) is not rolled
  BOOST_TEST(phase() == "HandingOver");

  // The promotion runs: nothing is steered or rolled during the transition.
  s->view = {2, "", "a", 0, {}};
  auto routes = s->routes.size();
  advance(1s);
  BOOST_TEST(s->routes.size() == routes);
  BOOST_TEST(s->rolls.size() == 1u);
  BOOST_TEST(s->switchovers.size() == 1u);

  // b is the primary now; a, the old primary, rolls last.
  s->view = {3, "b", "", 0, {}};
  s->status = {{"sites", {site_status("a", "read-only", before_roll), site_status("b", "writable", after_roll)}}};
  advance(1s);
  BOOST_TEST((s->rolls == std::vector<std::string>{"b", "a"}));
  BOOST_TEST(s->routes.back() == "b");

  // a back, caught up behind b: the update is over.
  s->report["sites"][0] = workload_report("a", false);
  s->status["sites"][0] = site_status("a", "read-only", after_roll);
  advance(1s);
  BOOST_TEST(phase() == "");
  auto last = s->status_parts.back();
  BOOST_TEST(last["conditions"][0]["type"] == "WorkloadReady");
  BOOST_TEST(last["conditions"][0]["status"] == "True");
  BOOST_TEST(last["reconcileInfo"]["generation"] == 2);
  BOOST_TEST(s->rolls.size() == 2u);
  BOOST_TEST(s->switchovers.size() == 1u);
}

BOOST_AUTO_TEST_CASE(a_failed_pass_is_reported_and_nothing_is_steered_or_rolled) {
  s->report = {{"state", "error"}, {"errors", {"create Service mysql-orders-a: 500"}}};
  run();
  BOOST_TEST(s->rolls.empty());
  BOOST_TEST(s->routes.empty());
  BOOST_REQUIRE(!s->status_parts.empty());
  auto cond = s->status_parts.back()["conditions"][1];
  BOOST_TEST(cond["type"] == "ReconcileSuccess");
  BOOST_TEST(cond["status"] == "False");
  BOOST_TEST(cond["message"] == "create Service mysql-orders-a: 500");
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

json gr_member(const std::string& name, const std::string& state, const std::string& role) {
  return {{"name", name}, {"memberId", "u-" + name}, {"state", state}, {"role", role}, {"reachable", true}};
}

/// Three Group Replication members whose Deployments all drifted; a is the PRIMARY. The
/// reconciler's wall clock is the script's, and a restarted member may take 5 s to come back.
struct gr_reconciler_fixture : reconciler_fixture {
  gr_reconciler_fixture()
      : reconciler_fixture({"a", "b", "c"}, [this](reconciler_options& o) {
          auto sc = s;
          o.wall_clock = [sc] { return sc->wall; };
          o.gr_rejoin_timeout = 5s;
          o.events = sys.spawn([sc]() -> event_actor::behavior_type {
            return {[sc](event_atom, const group_event& e) { sc->events.push_back(e.reason); }};
          });
        }) {}

  /// The coordinator's status: members as given, view `view_id`, every site polled at `seen`.
  void status_of(std::vector<json> members, const std::string& view_id, const std::string& seen) {
    json sites = json::array();
    for (const auto& m : members)
      sites.push_back({{"name", m["name"]}, {"lastSeen", seen}, {"gtidExecuted", ""}});
    s->status = {{"activeSite", "a"},
                 {"sites", sites},
                 {"groupReplication",
                  {{"viewKnown", true},
                   {"hasQuorum", true},
                   {"viewId", view_id},
                   {"phase", "Running"},
                   {"observedViewMax", 3},
                   {"members", members}}}};
  }
  void drifted(const std::string& site, bool d) {
    for (auto& w : s->report["sites"])
      if (w["name"] == site) w = workload_report(site, d);
  }
  size_t count(const std::string& reason) {
    return static_cast<size_t>(std::count(s->events.begin(), s->events.end(), reason));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(reconciler_actor_gr, gr_reconciler_fixture)

BOOST_AUTO_TEST_CASE(gr_rollout_waits_for_each_member_stops_when_one_stays_out_and_hands_over) {
  s->report["sites"] = {workload_report("a", true), workload_report("b", true), workload_report("c", true)};
  status_of({gr_member("a", "ONLINE", "PRIMARY"), gr_member("b", "ONLINE", "SECONDARY"),
             gr_member("c", "ONLINE", "SECONDARY")},
            "v1", before_roll);
  run();
  BOOST_TEST(s->rolls == std::vector<std::string>{"b"});
  BOOST_TEST(phase() == "UpdatingSecondary");

  // b's pod is ready and polled since, but the view is the one it was restarted in: not back.
  drifted("b", false);
  status_of({gr_member("a", "ONLINE", "PRIMARY"), gr_member("b", "ONLINE", "SECONDARY"),
             gr_member("c", "ONLINE", "SECONDARY")},
            "v1", after_roll);
  advance(1s);
  BOOST_TEST(s->rolls.size() == 1u);
  BOOST_TEST(phase() == "WaitingForMember");

  // b stays OFFLINE past the bound: the rollout stops, once, with the reason in the status.
  status_of({gr_member("a", "ONLINE", "PRIMARY"), gr_member("b", "OFFLINE", ""),
             gr_member("c", "ONLINE", "SECONDARY")},
            "v2", after_roll);
  s->wall += 6s;
  advance(1s);
  advance(1s);
  BOOST_TEST(s->rolls.size() == 1u);
  BOOST_TEST(phase() == "Blocked");
  BOOST_TEST(count(reason_rollout_stopped) == 1u);
  const auto msg = s->status_parts.back()["conditions"][0].value("message", "");
  BOOST_TEST(msg.find("update blocked: b did not come back ONLINE within 5 s") != std::string::npos, msg);

  // b ONLINE in a new view: c next, then the switchover to the first rolled secondary.
  status_of({gr_member("a", "ONLINE", "PRIMARY"), gr_member("b", "ONLINE", "SECONDARY"),
             gr_member("c", "ONLINE", "SECONDARY")},
            "v3", after_roll);
  advance(1s);
  BOOST_TEST((s->rolls == std::vector<std::string>{"b", "c"}));
  BOOST_TEST(s->switchovers.empty());
  drifted("c", false);
  status_of({gr_member("a", "ONLINE", "PRIMARY"), gr_member("b", "ONLINE", "SECONDARY"),
             gr_member("c", "ONLINE", "SECONDARY")},
            "v5", after_roll);
  advance(1s);
  BOOST_TEST(s->switchovers == std::vector<std::string>{"b"});
  BOOST_TEST(s->rolls.size() == 2u);  // the PRIMARY is never rolled
  BOOST_TEST(phase() == "HandingOver");

  // The group made b its primary (same view id): a, now a SECONDARY, rolls last.
  status_of({gr_member("a", "ONLINE", "SECONDARY"), gr_member("b", "ONLINE", "PRIMARY"),
             gr_member("c", "ONLINE", "SECONDARY")},
            "v5", after_roll);
  advance(1s);
  BOOST_TEST((s->rolls == std::vector<std::string>{"b", "c", "a"}));
  drifted("a", false);
  status_of({gr_member("a", "ONLINE", "SECONDARY"), gr_member("b", "ONLINE", "PRIMARY"),
             gr_member("c", "ONLINE", "SECONDARY")},
            "v7", after_roll);
  advance(1s);
  BOOST_TEST(phase() == "");
  BOOST_TEST(s->switchovers.size() == 1u);
  BOOST_TEST(count(reason_rollout_stopped) == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
