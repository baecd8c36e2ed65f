// Table tests for plan_steps.hpp: step lists per plan kind, resume points (no double promotion,
// re-fence before the gate, re-confirm before steering) and per-step deadlines.
#include "actors/operator/decide/plan_steps.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>
#include <string>
#include <vector>

namespace {

using namespace br;
using namespace std::chrono_literals;
using P = plan_phase;

std::string names(const std::vector<P>& v) {
  std::string s;
  for (auto p : v) s += (s.empty() ? "" : ",") + to_string(p);
  return s;
}

const std::vector<P> failover_steps = {P::fencing_old,    P::killing_sessions, P::gating,
                                       P::draining,       P::stopping_replica, P::resetting_replica,
                                       P::recording_gtid, P::promoting,        P::confirming,
                                       P::steering,       P::repointing};
const std::vector<P> recover_steps = {P::fencing_old, P::stopping_replica, P::resetting_replica,
                                      P::repointing, P::confirming};

struct resume_row {
  plan_kind kind;
  P persisted;
  std::vector<P> expected;
  bool promotion_done;
};

BOOST_AUTO_TEST_SUITE(plan_steps_table)

BOOST_AUTO_TEST_CASE(step_lists_per_kind) {
  BOOST_TEST(names(plan_steps(plan_kind::failover)) == names(failover_steps));
  BOOST_TEST(names(plan_steps(plan_kind::switchover)) == names(failover_steps));
  BOOST_TEST(names(plan_steps(plan_kind::recover)) == names(recover_steps));
  // Reclone as auto-clone: the recipient is fenced before its set is read and it is cloned, and
  // fenced again once it answers after the CLONE's restart (review finding 1: it cloned first).
  const std::vector<P> clone_steps = {P::fencing_old,       P::cloning,    P::restarting,
                                      P::stopping_replica,  P::resetting_replica,
                                      P::repointing,        P::confirming};
  BOOST_TEST(names(plan_steps(plan_kind::reclone)) == names(clone_steps));
  BOOST_TEST(names(plan_steps(plan_kind::auto_clone)) == names(clone_steps));
}

BOOST_AUTO_TEST_CASE(resume_after_each_persisted_phase) {
  const auto F = plan_kind::failover;
  const std::vector<resume_row> rows = {
      {F, P::pending, failover_steps, false},
      // The fence is a fact of the running executor (gate rule 1; killing_sessions needs it
      // too): a restart before the gate fences again.
      {F, P::fencing_old, failover_steps, false},
      // Crash between kill and gate: fence again so rule 1 holds in this run.
      {F,
       P::killing_sessions,
       {P::fencing_old, P::gating, P::draining, P::stopping_replica, P::resetting_replica,
        P::recording_gtid, P::promoting, P::confirming, P::steering, P::repointing},
       false},
      {F,
       P::gating,
       {P::draining, P::stopping_replica, P::resetting_replica, P::recording_gtid, P::promoting,
        P::confirming, P::steering, P::repointing},
       false},
      {F,
       P::draining,
       {P::stopping_replica, P::resetting_replica, P::recording_gtid, P::promoting, P::confirming,
        P::steering, P::repointing},
       false},
      {F,
       P::stopping_replica,
       {P::resetting_replica, P::recording_gtid, P::promoting, P::confirming, P::steering,
        P::repointing},
       false},
      {F,
       P::resetting_replica,
       {P::recording_gtid, P::promoting, P::confirming, P::steering, P::repointing},
       false},
      // Promotion not persisted yet: promoting runs (again); it is idempotent.
      {F, P::recording_gtid, {P::promoting, P::confirming, P::steering, P::repointing}, false},
      // S6: from here on, never promote again.
      {F, P::promoting, {P::confirming, P::steering, P::repointing}, true},
      {F, P::confirming, {P::confirming, P::steering, P::repointing}, true},
      {F, P::steering, {P::repointing}, true},
      {F, P::repointing, {}, true},
      {F, P::done, {}, true},
      {plan_kind::switchover, P::promoting, {P::confirming, P::steering, P::repointing}, true},
      {plan_kind::recover, P::pending, recover_steps, false},
      {plan_kind::recover, P::resetting_replica, {P::repointing, P::confirming}, false},
      {plan_kind::recover, P::confirming, {}, false},
      {plan_kind::reclone,
       P::pending,
       {P::fencing_old, P::cloning, P::restarting, P::stopping_replica, P::resetting_replica,
        P::repointing, P::confirming},
       false},
      // After the CLONE: never cloned again, the restart is waited for (and fenced again).
      {plan_kind::reclone,
       P::cloning,
       {P::restarting, P::stopping_replica, P::resetting_replica, P::repointing, P::confirming},
       false},
  };
  for (const auto& row : rows) {
    auto r = resume_steps(row.kind, row.persisted);
    BOOST_TEST_CONTEXT(to_string(row.kind) << " after " << to_string(row.persisted)) {
      BOOST_TEST(r.ok);
      BOOST_TEST(names(r.steps) == names(row.expected));
      BOOST_TEST(r.promotion_done == row.promotion_done);
      bool promotes = false;
      for (auto p : r.steps) promotes = promotes || p == P::promoting;
      BOOST_TEST(!(promotes && r.promotion_done));
    }
  }
}

BOOST_AUTO_TEST_CASE(phases_foreign_to_the_kind_are_refused) {
  struct row {
    plan_kind kind;
    P persisted;
  };
  for (auto x : {row{plan_kind::recover, P::promoting}, row{plan_kind::recover, P::gating},
                 row{plan_kind::failover, P::cloning}, row{plan_kind::failover, P::failed},
                 row{plan_kind::reclone, P::steering}}) {
    auto r = resume_steps(x.kind, x.persisted);
    BOOST_TEST_CONTEXT(to_string(x.kind) << " after " << to_string(x.persisted)) {
      BOOST_TEST(!r.ok);
      BOOST_TEST(r.steps.empty());
      BOOST_TEST(r.error.find(to_string(x.persisted)) != std::string::npos, r.error);
    }
  }
}

BOOST_AUTO_TEST_CASE(deadlines_per_step) {
  failover_plan p;
  p.step_timeout = 7s;
  p.drain_timeout = 30s;
  p.gate_timeout = 120s;
  p.followers = {"b", "c", "d"};
  const caf::timespan clone = 3600s;
  struct row {
    P phase;
    caf::timespan expected;
  };
  for (auto x : {row{P::fencing_old, 7s}, row{P::killing_sessions, 7s}, row{P::gating, 127s},
                 row{P::draining, 30s}, row{P::stopping_replica, 7s}, row{P::promoting, 7s},
                 row{P::confirming, 7s}, row{P::steering, 7s}, row{P::repointing, 21s},
                 row{P::cloning, 3607s}}) {
    BOOST_TEST_CONTEXT(to_string(x.phase)) {
      BOOST_TEST(step_deadline(x.phase, p, clone).count() == x.expected.count());
    }
  }
  // A clone timeout shorter than the step timeout never shortens the clone.
  BOOST_TEST(step_deadline(P::cloning, p, 1s).count() == caf::timespan(14s).count());
  // Repointing with no followers still gets one step timeout; a recover plan repoints one site.
  p.followers.clear();
  BOOST_TEST(step_deadline(P::repointing, p, clone).count() == caf::timespan(7s).count());
  p.kind = plan_kind::recover;
  p.followers = {"x", "y"};
  BOOST_TEST(step_deadline(P::repointing, p, clone).count() == caf::timespan(7s).count());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
