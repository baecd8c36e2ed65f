// The Dragonfly manager's REPLTAKEOVER branch (issue 24 acceptance 2's takeover path), through the
// real manager actor and RESP client against tests/support/dragonfly_sim (a SIMULATION of
// Dragonfly's takeover semantics: real Valkey has no REPLTAKEOVER). A stub coordinator names
// MySQL's active site. Shown: the capability probe; the master moved to MySQL's active site by
// REPLTAKEOVER with every session there (the old master shuts itself down and, restarted empty,
// is attached as a replica); a takeover that times out (the replica paused) leaves the master
// where it was, serving, recorded, never stripped, and succeeds once the replica catches up; and
// with an old master that stays up after handing over, it follows the new one (rejoinable).
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

BOOST_AUTO_TEST_SUITE_END()
