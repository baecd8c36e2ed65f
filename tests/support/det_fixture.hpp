// Boost.Test fixture: a CAF actor system on the deterministic test coordinator with virtual time.
#pragma once

#include <caf/all.hpp>
#include <caf/scheduler/test_coordinator.hpp>

#include <chrono>

namespace br::test {

struct det_fixture {
  static caf::actor_system_config& prepare(caf::actor_system_config& cfg) {
    cfg.set("scheduler.policy", caf::atom("testing"));
    cfg.set("logger.verbosity", caf::atom("quiet"));
    return cfg;
  }

  caf::actor_system_config cfg;
  caf::actor_system sys{prepare(cfg)};
  caf::scoped_actor self{sys, true};
  caf::scheduler::test_coordinator& sched =
      dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());

  det_fixture() {
    // Start virtual time away from the epoch so "now - 0" arithmetic never underflows.
    sched.clock().current_time += std::chrono::hours(1);
    sys.await_actors_before_shutdown(false);
  }

  ~det_fixture() { sched.run(); }

  /// Runs every queued message (never fires timers).
  size_t run() { return sched.run(); }

  /// Moves virtual time forward, fires due timers, then runs the resulting messages.
  size_t advance(caf::timespan d) {
    auto fired = sched.advance_time(d);
    sched.run();
    return fired;
  }

  /// Reads the state of a stateful actor (the test coordinator runs everything on this thread).
  template <class State, class Handle>
  State& state_of(const Handle& h) {
    auto ptr = caf::actor_cast<caf::abstract_actor*>(h);
    return static_cast<caf::stateful_actor<State>*>(ptr)->state;
  }
};

}  // namespace br::test
