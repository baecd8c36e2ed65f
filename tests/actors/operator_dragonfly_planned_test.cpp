// A planned failover's Dragonfly sync through the real coordinator actor (issue 24; virtual time,
// mock site_io, recording platform): the coordinator finds the Dragonfly manager by asking its
// supervisor and waits for its report with a deadline, never blocking. A stub manager that
// answers the sync lets the switchover plan start; one that never answers is given up at the
// deadline (maxSyncWait + 15 s) and, with onSyncTimeout=fail, the request fails with MySQL
// untouched (no plan, no fence); with no manager running the request fails at once.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include "actors/operator/group/coordinator.hpp"
#include "tests/actors/operator_fixture.hpp"
#include "tests/support/site_reports.hpp"

using namespace br;
using namespace br::test;

namespace {

enum class manager_mode { answers_ok, never_answers, missing };

struct planned_cache : operator_fixture {
  std::shared_ptr<std::vector<dragonfly_handover_request>> asked =
      std::make_shared<std::vector<dragonfly_handover_request>>();
  /// Promises a silent manager keeps (never delivered: dropping one would answer an error).
  std::shared_ptr<std::vector<caf::typed_response_promise<dragonfly_handover_report>>> held =
      std::make_shared<std::vector<caf::typed_response_promise<dragonfly_handover_report>>>();
  coordinator_actor coordinator;
  caf::actor manager_sup;

  planned_cache() {
    add_site("a", site_role::primary_candidate);
    add_site("b", site_role::primary_candidate);
    spec.dragonfly.enabled = true;
    spec.dragonfly.planned_failover.max_sync_wait = std::chrono::seconds(5);
    spec.dragonfly.planned_failover.on_sync_timeout = config::sync_timeout_action::fail;
  }
  ~planned_cache() {
    if (coordinator) self->send_exit(coordinator, caf::exit_reason::kill);
    if (manager_sup) self->send_exit(manager_sup, caf::exit_reason::kill);
    held->clear();
    run();
  }

  /// The coordinator alone (no pollers, no real manager), its supervisor a stub that names the
  /// stub manager (or none).
  void start_with(manager_mode mode) {
    dragonfly_manager_actor manager;
    if (mode != manager_mode::missing)
      manager = sys.spawn([asked = asked, held = held, mode](dragonfly_manager_actor::pointer me)
                              -> dragonfly_manager_actor::behavior_type {
        return {
            [](tick_atom) {},
            [=](handover_atom, const dragonfly_handover_request& q) -> caf::result<dragonfly_handover_report> {
              asked->push_back(q);
              if (mode == manager_mode::never_answers) {
                held->push_back(me->make_response_promise<dragonfly_handover_report>());
                return held->back();
              }
              dragonfly_handover_report rep;
              rep.promote = q.promote;
              rep.request = q.request;
              rep.ok = true;
              rep.master = "a";
              rep.source_offset = rep.target_offset = 42;
              return rep;
            },
        };
      });
    manager_sup = sys.spawn([manager](caf::event_based_actor*) -> caf::behavior {
      return {[=](child_atom, const std::string& name) -> caf::result<caf::actor> {
        if (name == "dragonfly" && manager) return caf::actor_cast<caf::actor>(manager);
        return caf::make_error(caf::sec::invalid_argument, "no child " + name);
      }};
    });
    auto cfg = make_coordinator_config("g", spec, credentials(), runtime(), "root/group:g");
    cfg.supervisor = manager_sup;
    coordinator = spawn_coordinator(sys, cfg);
    run();
    for (int i = 0; i < 2; ++i) {
      self->send(coordinator, observe_atom::value, reports::rep("a", site_state::writable, gtid(U1, 1, 5)));
      self->send(coordinator, observe_atom::value, reports::rep("b", site_state::read_only, gtid(U1, 1, 5), true));
      run();
      advance(spec.poll_interval);
    }
  }

  std::string switchover(const std::string& target) {
    std::string answer = "(none)";
    self->send(coordinator, switchover_atom::value, target);
    run();
    self->receive([&](std::string& s) { answer = s; }, caf::after(std::chrono::seconds(0)) >> [] {});
    return answer;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(planned_failover_dragonfly_actors, planned_cache)

BOOST_AUTO_TEST_CASE(a_synced_cache_lets_the_switchover_start) {
  start_with(manager_mode::answers_ok);
  BOOST_REQUIRE_EQUAL(platform.rec->disk.view.active_site, "a");
  auto answer = switchover("b");
  BOOST_TEST(answer.rfind("accepted:", 0) == 0u, answer);
  BOOST_REQUIRE_EQUAL(asked->size(), 1u);
  BOOST_TEST(!asked->front().promote);
  BOOST_TEST(asked->front().target == "b");
  BOOST_TEST(asked->front().max_wait_ms == 5000);
  run();
  BOOST_REQUIRE_EQUAL(exec->plans.size(), 1u);
  BOOST_TEST(exec->plans[0].kind == plan_kind::switchover);
  BOOST_TEST(platform.rec->disk.planned.phase == "Draining");
  BOOST_TEST(platform.rec->disk.planned.dragonfly.source_offset == 42);
}

BOOST_AUTO_TEST_CASE(a_manager_that_never_answers_is_given_up_at_the_deadline) {
  start_with(manager_mode::never_answers);
  auto answer = switchover("b");
  BOOST_TEST(answer.rfind("accepted:", 0) == 0u, answer);
  BOOST_REQUIRE_EQUAL(asked->size(), 1u);
  BOOST_TEST(platform.rec->disk.planned.phase == "WaitingForDragonflySync");
  advance(std::chrono::seconds(19));  // maxSyncWait 5 s + 15 s: still waiting
  BOOST_TEST(platform.rec->disk.planned.phase == "WaitingForDragonflySync");
  advance(std::chrono::seconds(2));
  BOOST_TEST(platform.rec->disk.planned.phase == "Failed");
  BOOST_TEST(platform.rec->disk.planned.reason == "DragonflySyncTimeout");
  BOOST_TEST(platform.rec->disk.planned.message.find("no report from the Dragonfly manager") != std::string::npos,
             platform.rec->disk.planned.message);
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(io_rec->count("a", mysql_op::fence) == 0u);
  BOOST_TEST(platform.rec->disk.view.active_site == "a");
}

BOOST_AUTO_TEST_CASE(no_manager_fails_the_request_at_once) {
  start_with(manager_mode::missing);
  auto answer = switchover("b");
  BOOST_TEST(answer.rfind("accepted:", 0) == 0u, answer);
  advance(std::chrono::seconds(3));  // the supervisor's answer, then the stored record
  BOOST_TEST(platform.rec->disk.planned.phase == "Failed");
  BOOST_TEST(platform.rec->disk.planned.message.find("no Dragonfly manager runs") != std::string::npos,
             platform.rec->disk.planned.message);
  BOOST_TEST(exec->plans.empty());
  BOOST_TEST(io_rec->count("a", mysql_op::fence) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
