// Deterministic simulation test of the fencing/promotion protocol (docs/safety.md; S1 on every event).
//
// Three sites (mysqld + sidecar) and one operator in discrete one-second ticks with a seeded
// std::mt19937_64. Faults: partitions of every link (operator<->sidecar, operator<->mysqld,
// sidecar<->sidecar, sidecar<->own mysqld), crashes and restarts of every process (mysqld boots
// fenced, a sidecar keeps its view file, the operator keeps its durable view), hung sidecars,
// answers delayed by up to requestTimeout. Decisions are the project's real pure functions:
// sidecar::decide_fencing / should_adopt, debounce, evaluate, promotion_gate.
//
// CI cases (seconds under ASan): Safe + rule 7 finds no violation; Fast finds one; Safe without
// rule 7 finds one (self-checks: the test can fail).
//
// Long run (its own command; prints seeds, steps, violations):
//   BR_DST_SEEDS=200000 ./build-dst/tests/dst_fencing --run_test=dst/safe_with_switch_long
// Optional: BR_DST_STEPS (ticks per seed, default 200), BR_DST_FIRST_SEED (default 1);
// BR_DST_POLICY=fast, BR_DST_SWITCH=0 or BR_DST_GATE_LEASE=<s> measure the violation rate of a
// broken configuration instead (the case then expects violations); BR_DST_HB_NOW=1 restores
// the first heartbeat implementation (server NOW() instead of the lease's last renewal), which
// the long run caught: seed 114016 of BR_DST_FIRST_SEED=100000, the old primary's sidecar wrote a
// fresh heartbeat near the end of its own lease, then hung; the switch fired about
// 2 x leaseTimeout after the last ack, after rule 3's wait. Fixed by sidecar::lease_anchor.
// A failure prints the seed; replay it with BR_DST_SEEDS=1 BR_DST_FIRST_SEED=<seed>.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <string>

#include "tests/dst/batch.hpp"

namespace {

using namespace br::dst;

constexpr int64_t ci_seeds = 400;

}  // namespace

BOOST_AUTO_TEST_SUITE(dst)

BOOST_AUTO_TEST_CASE(safe_with_switch_no_violation) {
  sim_config cfg;
  auto r = run_batch(cfg, 1, ci_seeds, false);
  report("Safe + rule 7", r);
  BOOST_TEST(r.violations == 0);
  // The run must exercise the protocol, or "no violation" means nothing.
  BOOST_TEST(r.promotions > ci_seeds / 4);
  BOOST_TEST(r.switch_fences > 0);
}

BOOST_AUTO_TEST_CASE(self_check_fast_policy_finds_violation) {
  sim_config cfg;
  cfg.policy = br::gate_policy::fast;
  auto r = run_batch(cfg, 1, ci_seeds, true);
  report("Fast + rule 7 (self-check)", r);
  BOOST_TEST(r.violations > 0);
}

BOOST_AUTO_TEST_CASE(self_check_safe_without_switch_finds_violation) {
  sim_config cfg;
  cfg.dead_mans_switch = false;
  auto r = run_batch(cfg, 1, ci_seeds, true);
  report("Safe without rule 7 (self-check)", r);
  BOOST_TEST(r.violations > 0);
}

// A printed seed is only useful if it replays: the same seed gives the same run, event for event.
BOOST_AUTO_TEST_CASE(same_seed_replays_identically) {
  sim_config cfg;
  cfg.dead_mans_switch = false;
  auto first = run_batch(cfg, 1, ci_seeds, true);
  BOOST_REQUIRE(first.violations == 1);
  world again(first.first_bad_seed, cfg);
  auto v = again.run();
  BOOST_TEST(v.found);
  BOOST_TEST(v.tick == first.first.tick);
  BOOST_TEST(v.writers == first.first.writers);
  BOOST_TEST(v.trace == first.first.trace);
}

// Skipped (not failed) in CI: it runs only when BR_DST_SEEDS asks for it.
BOOST_AUTO_TEST_CASE(safe_with_switch_long,
                     *boost::unit_test::precondition([](boost::unit_test::test_unit_id) {
                       return env_int("BR_DST_SEEDS", 0) > 0;
                     })) {
  auto seeds = env_int("BR_DST_SEEDS", 0);
  sim_config cfg;
  cfg.steps = env_int("BR_DST_STEPS", cfg.steps);
  auto* pol = std::getenv("BR_DST_POLICY");
  if (pol && std::string(pol) == "fast") cfg.policy = br::gate_policy::fast;
  cfg.dead_mans_switch = env_int("BR_DST_SWITCH", 1) != 0;
  cfg.heartbeat_at_now = env_int("BR_DST_HB_NOW", 0) != 0;
  cfg.gate_lease = std::chrono::seconds(env_int("BR_DST_GATE_LEASE", cfg.lease.count()));
  bool sound = cfg.policy == br::gate_policy::safe && cfg.dead_mans_switch &&
               cfg.gate_lease >= cfg.lease && !cfg.heartbeat_at_now;
  auto r = run_batch(cfg, static_cast<uint64_t>(env_int("BR_DST_FIRST_SEED", 1)), seeds, false);
  report(std::string("long run, ") + (sound ? "Safe + rule 7" : "broken configuration"), r);
  if (sound)
    BOOST_TEST(r.violations == 0);
  else
    BOOST_TEST(r.violations > 0);
}

BOOST_AUTO_TEST_SUITE_END()
