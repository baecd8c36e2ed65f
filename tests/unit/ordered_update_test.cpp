// OrderedUpdate's pure decision: what to roll next, when to hand the primary over, when to wait.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/reconcile/ordered_update.hpp"

using namespace br;

namespace {

/// A caught-up replica, rolled out, not drifted.
rollout_site replica(const std::string& name, site_role role = site_role::primary_candidate) {
  rollout_site s;
  s.name = name;
  s.role = role;
  s.workload_ready = true;
  s.state = "read-only";
  s.replicating = true;
  s.lag_seconds = 0;
  s.last_seen_ms = 10'000;
  return s;
}

rollout_site primary(const std::string& name) {
  auto s = replica(name);
  s.state = "writable";
  s.replicating = false;
  s.lag_seconds.reset();
  return s;
}

rollout_site drifted(rollout_site s) {
  s.drifted = true;
  return s;
}

rollout_inputs ordered(std::vector<rollout_site> sites, std::string active = "a") {
  rollout_inputs in;
  in.sites = std::move(sites);
  in.active_site = std::move(active);
  return in;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(ordered_update)

BOOST_AUTO_TEST_CASE(nothing_drifted_is_idle_with_an_empty_phase) {
  auto step = next_rollout_step(ordered({primary("a"), replica("b"), replica("c")}));
  BOOST_TEST((step.action == rollout_action::idle));
  BOOST_TEST(step.phase.empty());
}

BOOST_AUTO_TEST_CASE(replicas_roll_first_one_at_a_time_in_spec_order) {
  auto step = next_rollout_step(
      ordered({drifted(primary("a")), drifted(replica("b")), drifted(replica("c"))}));
  BOOST_TEST((step.action == rollout_action::roll));
  BOOST_TEST(step.sites == std::vector<std::string>{"b"});
  BOOST_TEST(step.phase == "UpdatingReplica");
}

BOOST_AUTO_TEST_CASE(the_next_replica_waits_until_the_rolled_one_is_ready_and_caught_up) {
  struct row {
    std::string name;
    bool ready;
    std::string state;
    bool replicating;
    int64_t lag;
    int64_t last_seen;
    bool waits;
  };
  // Rolled at t=20000 ms.
  std::vector<row> rows = {
      {"pod not ready", false, "read-only", true, 0, 30'000, true},
      {"ready, not yet polled after the roll", true, "read-only", true, 0, 19'000, true},
      {"ready, unreachable", true, "unreachable", false, 0, 30'000, true},
      {"ready, not replicating", true, "read-only", false, 0, 30'000, true},
      {"ready, lagging", true, "read-only", true, 5, 30'000, true},
      {"ready, caught up after the roll", true, "read-only", true, 0, 30'000, false},
  };
  for (const auto& r : rows) {
    auto b = replica("b");
    b.workload_ready = r.ready;
    b.state = r.state;
    b.replicating = r.replicating;
    b.lag_seconds = r.lag;
    b.last_seen_ms = r.last_seen;
    auto in = ordered({drifted(primary("a")), b, drifted(replica("c"))});
    in.rolling = "b";
    in.rolled_at_ms = 20'000;
    auto step = next_rollout_step(in);
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST((step.action == rollout_action::wait) == r.waits);
      BOOST_TEST(step.rolling_done == !r.waits);
      if (!r.waits) BOOST_TEST(step.sites == std::vector<std::string>{"c"});
    }
  }
}

BOOST_AUTO_TEST_CASE(only_the_primary_left_hands_over_to_a_caught_up_candidate) {
  auto step = next_rollout_step(
      ordered({drifted(primary("a")), replica("b", site_role::dr_only), replica("c")}));
  BOOST_TEST((step.action == rollout_action::switchover));
  BOOST_TEST(step.target == "c");  // b is dr-only: never a handoff target
  BOOST_TEST(step.phase == "HandingOver");
}

BOOST_AUTO_TEST_CASE(the_active_site_is_never_rolled_under_ordered_update) {
  // No healthy candidate for the handoff: wait rather than restart the serving primary.
  auto lagging = replica("b");
  lagging.lag_seconds = 30;
  auto step = next_rollout_step(ordered({drifted(primary("a")), lagging}));
  BOOST_TEST((step.action == rollout_action::wait));
  BOOST_TEST(step.phase == "Blocked");
  BOOST_TEST(step.sites.empty());
}

BOOST_AUTO_TEST_CASE(the_old_primary_rolls_last_after_the_handoff) {
  // After the switchover b is active; a (old primary, still drifted) is now a replica.
  auto a = drifted(replica("a"));
  a.replicating = false;  // not yet rejoined: rolling it is allowed, it serves no writes
  auto step = next_rollout_step(ordered({a, primary("b")}, "b"));
  BOOST_TEST((step.action == rollout_action::roll));
  BOOST_TEST(step.sites == std::vector<std::string>{"a"});
}

BOOST_AUTO_TEST_CASE(transitions_and_unknown_primaries_wait) {
  auto in = ordered({drifted(primary("a")), drifted(replica("b"))}, "");
  BOOST_TEST((next_rollout_step(in).action == rollout_action::wait));
  in.transition = true;
  auto step = next_rollout_step(in);
  BOOST_TEST((step.action == rollout_action::wait));
  BOOST_TEST(step.phase == "HandingOver");
}

BOOST_AUTO_TEST_CASE(a_site_under_recovery_is_not_rolled) {
  auto b = drifted(replica("b"));
  b.recovering = true;
  auto step = next_rollout_step(ordered({primary("a"), b}));
  BOOST_TEST((step.action == rollout_action::wait));
}

BOOST_AUTO_TEST_CASE(the_new_primary_rolled_before_the_handoff_counts_as_done_once_ready) {
  // b was rolled, then took the primary over: it is no longer a replica to wait for.
  auto in = ordered({drifted(replica("a")), primary("b")}, "b");
  in.rolling = "b";
  in.rolled_at_ms = 20'000;
  auto step = next_rollout_step(in);
  BOOST_TEST(step.rolling_done);
  BOOST_TEST(step.sites == std::vector<std::string>{"a"});
}

BOOST_AUTO_TEST_CASE(recreate_rolls_every_drifted_site_at_once) {
  auto in = ordered({drifted(primary("a")), drifted(replica("b")), replica("c")});
  in.strategy = config::update_strategy::recreate;
  auto step = next_rollout_step(in);
  BOOST_TEST((step.action == rollout_action::roll));
  BOOST_TEST((step.sites == std::vector<std::string>{"a", "b"}));
}

BOOST_AUTO_TEST_SUITE_END()
