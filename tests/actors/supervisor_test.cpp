// Supervisor and registry in virtual time: backoff restarts, budget, normal exit, ordered stop, tree.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <memory>
#include <vector>

#include "actors/common/registry.hpp"
#include "actors/common/supervisor.hpp"
#include "tests/support/det_fixture.hpp"

using namespace std::chrono_literals;
using namespace br;

namespace {

using crash_atom = caf::atom_constant<caf::atom("crash")>;
using finish_atom = caf::atom_constant<caf::atom("finish")>;

struct counters {
  int starts = 0;
  std::vector<std::string> stopped;  // names, in the order they stopped
};

// A child that crashes on `crash`, exits normally on `finish`, and records starts and stops.
child_spec test_child(std::string name, std::shared_ptr<counters> c) {
  child_spec s;
  s.name = name;
  s.kind = "test";
  s.start = [name, c](caf::local_actor* sup, const std::string&) -> caf::actor {
    ++c->starts;
    return sup->spawn([name, c](caf::event_based_actor* self) -> caf::behavior {
      self->attach_functor([name, c](const caf::error&) { c->stopped.push_back(name); });
      return {
          [=](crash_atom) { self->quit(caf::make_error(caf::sec::runtime_error, "boom")); },
          [=](finish_atom) { self->quit(); },
      };
    });
  };
  return s;
}

struct sup_fixture : test::det_fixture {
  registry_actor registry = spawn_registry(sys);

  caf::actor child(const caf::actor& sup, const std::string& name) {
    caf::actor result;
    self->send(sup, child_atom::value, name);
    run();
    self->receive([&](caf::actor& a) { result = a; }, [&](caf::error&) {},
                  caf::after(std::chrono::seconds(0)) >> [] {});
    return result;
  }

  uint64_t restarts(const caf::actor& sup, const std::string& name) {
    uint64_t n = 999;
    self->send(sup, restarts_atom::value, name);
    run();
    self->receive([&](uint64_t x) { n = x; }, caf::after(std::chrono::seconds(0)) >> [] {});
    return n;
  }

  nlohmann::json tree() {
    std::string text;
    self->send(registry, tree_atom::value);
    run();
    self->receive([&](std::string& s) { text = s; }, caf::after(std::chrono::seconds(0)) >> [] {});
    return nlohmann::json::parse(text);
  }

  static const nlohmann::json* find(const nlohmann::json& node, const std::string& path) {
    if (node.contains("path") && node["path"] == path) return &node;
    const nlohmann::json& kids = node.contains("actors") ? node["actors"] : node["children"];
    for (auto& k : kids)
      if (auto f = find(k, path)) return f;
    return nullptr;
  }

  ~sup_fixture() { self->send_exit(registry, caf::exit_reason::user_shutdown); }
};

restart_policy policy(size_t budget = 3) {
  restart_policy p;
  p.backoff_base = 200ms;
  p.backoff_cap = 1s;
  p.max_restarts = budget;
  p.window = 60s;
  return p;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(supervisor, sup_fixture)

BOOST_AUTO_TEST_CASE(backoff_is_exponential_and_capped) {
  auto p = policy();
  BOOST_TEST(backoff_delay(p, 1).count() == caf::timespan(200ms).count());
  BOOST_TEST(backoff_delay(p, 2).count() == caf::timespan(400ms).count());
  BOOST_TEST(backoff_delay(p, 3).count() == caf::timespan(800ms).count());
  BOOST_TEST(backoff_delay(p, 4).count() == caf::timespan(1s).count());
  BOOST_TEST(backoff_delay(p, 40).count() == caf::timespan(1s).count());
}

BOOST_AUTO_TEST_CASE(crashing_child_is_restarted_after_backoff) {
  auto c = std::make_shared<counters>();
  auto sup = spawn_supervisor(sys, "root", policy(), {test_child("worker", c)});
  run();
  BOOST_TEST(c->starts == 1);
  auto first = child(sup, "worker");
  BOOST_REQUIRE(first);
  self->send(first, crash_atom::value);
  run();
  BOOST_TEST(!child(sup, "worker"));  // down, waiting for the backoff
  advance(199ms);
  BOOST_TEST(c->starts == 1);
  advance(1ms);
  BOOST_TEST(c->starts == 2);
  auto second = child(sup, "worker");
  BOOST_REQUIRE(second);
  BOOST_TEST(second.id() != first.id());
  BOOST_TEST(restarts(sup, "worker") == 1u);
  // A second crash within the window waits twice as long.
  self->send(second, crash_atom::value);
  run();
  advance(399ms);
  BOOST_TEST(c->starts == 2);
  advance(1ms);
  BOOST_TEST(c->starts == 3);
  BOOST_TEST(restarts(sup, "worker") == 2u);
  self->send_exit(sup, caf::exit_reason::user_shutdown);
  run();
}

BOOST_AUTO_TEST_CASE(exhausted_budget_makes_supervisor_quit_with_reason) {
  auto c = std::make_shared<counters>();
  auto sup = spawn_supervisor(sys, "root", policy(2), {test_child("worker", c)});
  self->monitor(sup);
  run();
  for (int i = 0; i < 2; ++i) {
    self->send(child(sup, "worker"), crash_atom::value);
    run();
    advance(5s);
  }
  BOOST_TEST(c->starts == 3);
  self->send(child(sup, "worker"), crash_atom::value);
  run();
  std::string reason;
  self->receive([&](caf::down_msg& dm) { reason = to_string(dm.reason); },
                caf::after(std::chrono::seconds(0)) >> [] {});
  BOOST_TEST(reason.find("restart budget exhausted") != std::string::npos, reason);
  BOOST_TEST(reason.find("root/worker") != std::string::npos, reason);
  advance(10s);
  BOOST_TEST(c->starts == 3);  // nothing restarts after giving up
}

BOOST_AUTO_TEST_CASE(failures_outside_the_window_do_not_count) {
  auto c = std::make_shared<counters>();
  auto sup = spawn_supervisor(sys, "root", policy(2), {test_child("worker", c)});
  self->monitor(sup);
  run();
  for (int i = 0; i < 5; ++i) {
    self->send(child(sup, "worker"), crash_atom::value);
    run();
    advance(61s);  // each failure is alone in its window
  }
  BOOST_TEST(c->starts == 6);
  BOOST_TEST(restarts(sup, "worker") == 5u);
  bool down = false;
  self->receive([&](caf::down_msg&) { down = true; }, caf::after(std::chrono::seconds(0)) >> [] {});
  BOOST_TEST(!down);
  self->send_exit(sup, caf::exit_reason::user_shutdown);
  run();
}

BOOST_AUTO_TEST_CASE(normal_exit_is_not_restarted) {
  auto c = std::make_shared<counters>();
  auto sup = spawn_supervisor(sys, "root", policy(), {test_child("worker", c)});
  run();
  self->send(child(sup, "worker"), finish_atom::value);
  run();
  advance(60s);
  BOOST_TEST(c->starts == 1);
  BOOST_TEST(!child(sup, "worker"));
  BOOST_TEST(restarts(sup, "worker") == 0u);
  self->send_exit(sup, caf::exit_reason::user_shutdown);
  run();
}

BOOST_AUTO_TEST_CASE(stop_stops_children_in_reverse_order) {
  auto c = std::make_shared<counters>();
  auto sup = spawn_supervisor(sys, "root", policy(),
                              {test_child("a", c), test_child("b", c), test_child("c", c)});
  run();
  self->monitor(sup);
  bool stopped = false;
  self->send(sup, stop_atom::value);
  run();
  self->receive([&](bool ok) { stopped = ok; }, caf::after(std::chrono::seconds(0)) >> [] {});
  BOOST_TEST(stopped);
  BOOST_TEST((c->stopped == std::vector<std::string>{"c", "b", "a"}));
  std::string reason = "none";
  self->receive([&](caf::down_msg& dm) { reason = to_string(dm.reason); },
                caf::after(std::chrono::seconds(0)) >> [] {});
  BOOST_TEST(reason == "none");  // quit normally
}

BOOST_AUTO_TEST_CASE(nested_supervisor_budget_failure_reaches_parent) {
  auto c = std::make_shared<counters>();
  auto sup = spawn_supervisor(sys, "root", policy(1),
                              {supervisor_child("group:orders", policy(1), {test_child("poller", c)})});
  run();
  caf::actor group = child(sup, "group:orders");
  BOOST_REQUIRE(group);
  self->send(child(group, "poller"), crash_atom::value);
  run();
  advance(1s);
  BOOST_TEST(c->starts == 2);
  self->send(child(group, "poller"), crash_atom::value);  // budget of 1 exhausted
  run();
  advance(1s);  // the parent restarts the whole group (its own budget allows one)
  BOOST_TEST(c->starts == 3);
  BOOST_TEST(restarts(sup, "group:orders") == 1u);
  self->send_exit(sup, caf::exit_reason::user_shutdown);
  run();
}

BOOST_AUTO_TEST_CASE(debug_tree_shows_restarts_step_and_error) {
  auto c = std::make_shared<counters>();
  auto sup = spawn_supervisor(sys, "root", policy(),
                              {supervisor_child("group:orders", policy(), {test_child("poller", c)})});
  run();
  auto group = child(sup, "group:orders");
  self->send(child(group, "poller"), crash_atom::value);
  run();
  advance(1s);
  auto t = tree();
  auto root = find(t, "root");
  BOOST_REQUIRE(root);
  BOOST_TEST((*root)["kind"] == "supervisor");
  BOOST_TEST((*root)["parent"].is_null());
  auto poller = find(t, "root/group:orders/poller");
  BOOST_REQUIRE(poller);
  BOOST_TEST((*poller)["restarts"] == 1);
  BOOST_TEST((*poller)["parent"] == "root/group:orders");
  BOOST_TEST((*poller)["kind"] == "test");
  BOOST_TEST((*poller)["alive"] == true);
  BOOST_TEST((*poller)["id"] == child(group, "poller").id());
  BOOST_TEST((*poller)["lastError"].get<std::string>().find("boom") != std::string::npos);
  // Time in step is virtual time: the restarted poller has been in "started" for 2 s.
  advance(2s);
  t = tree();
  poller = find(t, "root/group:orders/poller");
  BOOST_TEST((*poller)["timeInStepSeconds"].get<double>() == 2.0);
  self->send_exit(sup, caf::exit_reason::user_shutdown);
  run();
}

BOOST_AUTO_TEST_CASE(stuck_child_is_killed_after_stop_timeout_without_killing_supervisor) {
  // A child that traps exits and ignores user_shutdown must not hold the stop forever (S10), and
  // killing it must not take the supervisor down with it (kill travels along links).
  std::vector<std::string> order;
  child_spec stuck;
  stuck.name = "stuck";
  stuck.kind = "test";
  stuck.start = [&order](caf::local_actor* sup, const std::string&) -> caf::actor {
    return sup->spawn([&order](caf::event_based_actor* self) -> caf::behavior {
      self->set_exit_handler([](caf::exit_msg&) {});  // ignores user_shutdown
      self->attach_functor([&order](const caf::error&) { order.push_back("stuck"); });
      return {[](int) {}};
    });
  };
  auto c = std::make_shared<counters>();
  auto p = policy();
  p.stop_timeout = 2s;
  auto sup = spawn_supervisor(sys, "root", p, {test_child("a", c), stuck});
  run();
  self->monitor(sup);
  self->send(sup, stop_atom::value);
  run();
  BOOST_TEST(order.empty());  // still waiting for the stuck child
  advance(2s);                // stop timeout: killed
  BOOST_TEST((order == std::vector<std::string>{"stuck"}));
  BOOST_TEST((c->stopped == std::vector<std::string>{"a"}));  // then the next child in order
  bool ok = false;
  self->receive([&](bool b) { ok = b; }, caf::after(std::chrono::seconds(0)) >> [] {});
  BOOST_TEST(ok);
  std::string reason = "none";
  self->receive([&](caf::down_msg& dm) { reason = to_string(dm.reason); },
                caf::after(std::chrono::seconds(0)) >> [] {});
  BOOST_TEST(reason == "none");  // the supervisor quit normally, not with `kill`
}

BOOST_AUTO_TEST_SUITE_END()
