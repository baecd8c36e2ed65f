// The Dragonfly manager's REPLTAKEOVER branch (issue 24 acceptance 2's takeover path), through the
// real manager actor and RESP client against tests/support/dragonfly_sim (a SIMULATION of
// Dragonfly's takeover semantics: real Valkey has no REPLTAKEOVER). A stub coordinator names
// MySQL's active site. Shown: the capability probe; the master moved to MySQL's active site by
// REPLTAKEOVER with every session there (the old master shuts itself down and, restarted empty,
// is attached as a replica); a takeover that times out (the replica paused) leaves the master
// where it was, serving, recorded, never stripped, and succeeds once the replica catches up; and
// with an old master that stays up after handing over, it follows the new one (rejoinable).
// A planned failover's cache steps (the manager's handover requests, issue 24 acceptance 2): the
// target's catch-up to the master's offset (refused while its replication is paused, reached
// once resumed), then the move by REPLTAKEOVER with every session, while the manager's own poll
// is paused by the planned failover in progress.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <mutex>
#include <thread>
#include <string>
#include <vector>

#include "actors/common/supervisor.hpp"
#include "actors/operator/dragonfly/dragonfly_manager.hpp"
#include "io/redis/client.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/dragonfly_sim.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;

namespace {

struct shared_state {
  std::mutex mu;
  std::string active = "a";
  std::string planned_phase;  ///< status.plannedFailover.phase ("" = none)
  std::vector<group_event> events;

  std::string get_active() {
    std::lock_guard<std::mutex> g(mu);
    return active;
  }
  bool has_event(const std::string& reason, const std::string& part) {
    std::lock_guard<std::mutex> g(mu);
    for (const auto& e : events)
      if (e.reason == reason && e.message.find(part) != std::string::npos) return true;
    return false;
  }
  std::string all_events() {
    std::lock_guard<std::mutex> g(mu);
    std::string out;
    for (const auto& e : events) out += e.reason + ": " + e.message + "\n";
    return out;
  }
};

child_spec stub_coordinator(std::shared_ptr<shared_state> s) {
  return {"coordinator", "coordinator", [s](caf::local_actor* sup, const std::string&) -> caf::actor {
            return as_child(sup->spawn([s]() -> coordinator_actor::behavior_type {
              return {
                  [](observe_atom, const site_report&) {},
                  [](view_atom) { return topology_view{}; },
                  [s](status_atom) {
                    config::group_status st;
                    st.active_site = s->get_active();
                    std::lock_guard<std::mutex> g(s->mu);
                    if (!s->planned_phase.empty()) {
                      st.planned_failover.emplace();
                      st.planned_failover->phase = s->planned_phase;
                    }
                    return st;
                  },
                  [](phase_atom, uint64_t, plan_phase, const plan_facts&) { return true; },
                  [](plan_done_atom, const plan_result&) {},
                  [](annotate_atom, const std::string&, const std::string&) { return std::string(); },
                  [](switchover_atom, const std::string&) { return std::string(); },
                  [](flush_atom) {},
              };
            }));
          }};
}

struct fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  std::shared_ptr<shared_state> s = std::make_shared<shared_state>();
  caf::actor sup;

  static caf::actor_system_config& configured(caf::actor_system_config& c) {
    add_message_types(c);
    return c;
  }
  fixture() : sys(configured(cfg)) {}
  ~fixture() {
    if (sup) caf::anon_send_exit(sup, caf::exit_reason::user_shutdown);
  }

  /// The manager's report to one handover request (the coordinator's side of it).
  dragonfly_handover_report handover(bool promote, const std::string& target, int64_t max_wait_ms) {
    caf::scoped_actor self{sys};
    caf::actor child;
    self->request(sup, 5s, child_atom::value, std::string("dragonfly"))
        .receive([&](caf::actor& c) { child = c; }, [&](caf::error& e) { BOOST_FAIL(sys.render(e)); });
    dragonfly_handover_request q;
    q.promote = promote;
    q.request = 1;
    q.source = "a";
    q.target = target;
    q.max_wait_ms = max_wait_ms;
    dragonfly_handover_report out;
    self->request(caf::actor_cast<dragonfly_manager_actor>(child), 30s, handover_atom::value, q)
        .receive([&](dragonfly_handover_report& r) { out = r; }, [&](caf::error& e) { out.error = sys.render(e); });
    return out;
  }

  void start(test::dragonfly_sim& sim, const std::vector<int>& nodes) {
    auto events = sys.spawn([st = s]() -> event_actor::behavior_type {
      return {[st](event_atom, const group_event& e) {
        std::lock_guard<std::mutex> g(st->mu);
        st->events.push_back(e);
      }};
    });
    dragonfly::manager_config mc;
    mc.namespace_name = "test";
    mc.group = "df";
    const char* names[] = {"a", "b", "c"};
    for (size_t i = 0; i < nodes.size(); ++i) mc.sites.push_back({names[i], "127.0.0.1", sim.port(nodes[i])});
    mc.interval = 200ms;
    mc.takeover_timeout = 1s;
    mc.timeouts.io = 1500ms;
    mc.events = events;
    sup = spawn_supervisor(sys, "root/df", restart_policy{}, {stub_coordinator(s), dragonfly::manager_child(mc)});
  }
};

void redis_cli_set(uint16_t port, const std::string& k, const std::string& v) {
  redis::connect_options o;
  o.port = port;
  redis::redis_error err;
  auto c = redis::client::connect(o, err);
  BOOST_REQUIRE_MESSAGE(c, err.to_string());
  auto r = c->command({"SET", k, v});
  BOOST_REQUIRE_MESSAGE(r.ok(), r.error.to_string());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dragonfly_takeover)

BOOST_AUTO_TEST_CASE(master_moves_by_repltakeover_and_a_timeout_changes_nothing) {
  test::dragonfly_sim sim;
  int a = sim.add_node(), b = sim.add_node();
  fixture f;
  f.start(sim, {a, b});
  // First polls: a (MySQL's active site) is the master, b follows it.
  BOOST_REQUIRE_MESSAGE(test::eventually([&] { return sim.master_of(b) == a && sim.traffic_user_on(a); }, 10s),
                        f.s->all_events());
  // Events travel through the event actor's mailbox: waited for, never assumed delivered.
  BOOST_TEST(test::eventually([&] { return f.s->has_event("DragonflyCapability", "advertises REPLTAKEOVER"); }, 5s),
             f.s->all_events());

  // A takeover that cannot finish: b does not catch up within maxSyncWait (1 s).
  sim.pause_replication(b, true);
  {
    std::lock_guard<std::mutex> g(f.s->mu);
    f.s->active = "b";
  }
  BOOST_REQUIRE_MESSAGE(test::eventually([&] { return f.s->has_event("DragonflyActionFailed", "REPLTAKEOVER") ||
                                                      f.s->has_event("DragonflyActionFailed", "takeover"); },
                                         10s),
                        f.s->all_events());
  BOOST_TEST(sim.role(a) == "master");  // still serving, still the recorded master
  BOOST_TEST(sim.traffic_user_on(a));
  BOOST_TEST(!f.s->has_event("DragonflyStaleMaster", ""), f.s->all_events());
  BOOST_TEST(sim.takeovers() == 0);

  // b catches up: the next poll hands over.
  sim.pause_replication(b, false);
  BOOST_REQUIRE_MESSAGE(test::eventually([&] { return sim.takeovers() == 1 && sim.role(b) == "master"; }, 10s),
                        f.s->all_events());
  BOOST_TEST(sim.role(a) == "down");  // the old master shut itself down
  BOOST_REQUIRE(test::eventually([&] { return sim.traffic_user_on(b); }, 5s));
  BOOST_TEST(test::eventually([&] { return f.s->has_event("DragonflyMasterMoved", "REPLTAKEOVER"); }, 5s),
             f.s->all_events());
  BOOST_TEST(!f.s->has_event("DragonflyStaleMaster", ""), f.s->all_events());

  // The old master comes back empty: attached to b.
  sim.restart(a);
  BOOST_TEST_REQUIRE(test::eventually([&] { return sim.master_of(a) == b; }, 10s), f.s->all_events());
  BOOST_TEST(!sim.traffic_user_on(a));
}

BOOST_AUTO_TEST_CASE(sessions_survive_the_takeover) {
  test::dragonfly_sim sim;
  int a = sim.add_node(), b = sim.add_node();
  fixture f;
  f.start(sim, {a, b});
  BOOST_REQUIRE(test::eventually([&] { return sim.master_of(b) == a; }, 10s));
  // Writes land on a and reach b; b is paused so the last ones are only on a when MySQL moves.
  redis_cli_set(sim.port(a), "session:1", "one");
  sim.pause_replication(b, true);
  redis_cli_set(sim.port(a), "session:2", "two");
  BOOST_TEST(!sim.get(b, "session:2"));
  {
    std::lock_guard<std::mutex> g(f.s->mu);
    f.s->active = "b";
  }
  std::this_thread::sleep_for(300ms);
  sim.pause_replication(b, false);  // catches up within maxSyncWait: the takeover carries it over
  BOOST_REQUIRE_MESSAGE(test::eventually([&] { return sim.role(b) == "master"; }, 10s), f.s->all_events());
  BOOST_TEST(sim.get(b, "session:1").value_or("") == "one");
  BOOST_TEST(sim.get(b, "session:2").value_or("") == "two");
}

BOOST_AUTO_TEST_CASE(an_old_master_that_stays_up_follows_the_new_one) {
  test::dragonfly_sim sim("", /*old_master_stays=*/true);
  int a = sim.add_node(), b = sim.add_node();
  fixture f;
  f.start(sim, {a, b});
  BOOST_REQUIRE(test::eventually([&] { return sim.master_of(b) == a; }, 10s));
  {
    std::lock_guard<std::mutex> g(f.s->mu);
    f.s->active = "b";
  }
  BOOST_REQUIRE_MESSAGE(test::eventually([&] { return sim.role(b) == "master" && sim.master_of(a) == b; }, 10s),
                        f.s->all_events());
  std::this_thread::sleep_for(1s);  // several polls: a stays a replica, never flagged stale
  BOOST_TEST(sim.master_of(a) == b);
  BOOST_TEST(!f.s->has_event("DragonflyStaleMaster", ""), f.s->all_events());
  BOOST_TEST(sim.traffic_user_on(b));
  BOOST_TEST(!sim.traffic_user_on(a));
}

BOOST_AUTO_TEST_CASE(planned_failover_sync_then_takeover) {
  test::dragonfly_sim sim;
  int a = sim.add_node(), b = sim.add_node();
  fixture f;
  f.start(sim, {a, b});
  BOOST_REQUIRE(test::eventually([&] { return sim.master_of(b) == a && sim.traffic_user_on(a); }, 10s));
  {
    std::lock_guard<std::mutex> g(f.s->mu);
    f.s->planned_phase = "WaitingForDragonflySync";  // the manager's own poll observes only
  }
  redis_cli_set(sim.port(a), "session:1", "one");
  sim.pause_replication(b, true);
  redis_cli_set(sim.port(a), "session:2", "two");
  // The sync cannot complete: b lags (paused) for the whole maxSyncWait.
  auto lag = f.handover(false, "b", 800);
  BOOST_TEST(!lag.ok);
  BOOST_TEST(lag.master == "a");
  BOOST_TEST(lag.source_offset == sim.offset(a));
  BOOST_TEST(lag.target_offset < lag.source_offset);
  BOOST_TEST(lag.error.find("did not reach a's offset") != std::string::npos, lag.error);
  BOOST_TEST(lag.waited_ms >= 800);
  BOOST_TEST(sim.role(a) == "master");  // nothing moved
  // Resumed: b reaches the offset a had when asked.
  sim.pause_replication(b, false);
  auto synced = f.handover(false, "b", 5000);
  BOOST_TEST(synced.ok, synced.error);
  BOOST_TEST(synced.target_offset >= synced.source_offset);
  BOOST_TEST(sim.get(b, "session:2").value_or("") == "two");
  // MySQL's switchover completed (its active site is b): the move, by REPLTAKEOVER.
  redis_cli_set(sim.port(a), "session:3", "three");  // written after the sync: carried by the takeover
  {
    std::lock_guard<std::mutex> g(f.s->mu);
    f.s->active = "b";
    f.s->planned_phase = "PromotingDragonfly";
  }
  auto moved = f.handover(true, "b", 1000);
  BOOST_TEST(moved.ok, moved.error);
  BOOST_TEST(moved.method == "REPLTAKEOVER");
  BOOST_TEST(moved.master == "b");
  BOOST_TEST(sim.takeovers() == 1);
  BOOST_TEST(sim.role(b) == "master");
  BOOST_TEST(sim.get(b, "session:3").value_or("") == "three");
  BOOST_TEST(sim.traffic_user_on(b));
  // Asked again (an operator restart in PromotingDragonfly): nothing to do.
  auto again = f.handover(true, "b", 1000);
  BOOST_TEST(again.ok, again.error);
  BOOST_TEST(again.method == "skipped");
  BOOST_TEST(sim.takeovers() == 1);
}

BOOST_AUTO_TEST_SUITE_END()
