// Pure plan bookkeeping for the failover executor: which steps a plan kind runs, where a plan
// resumes after a persisted phase, and how long each step may take (S6, S10).
//
// Step lists (docs/safety.md):
//   failover, switchover: fencing_old, killing_sessions, gating, draining, stopping_replica,
//                         resetting_replica, recording_gtid, promoting, confirming, steering,
//                         repointing
//   recover:              fencing_old (the returning site itself), stopping_replica,
//                         resetting_replica, repointing (CHANGE SOURCE + START on that site),
//                         confirming (a probe shows IO and SQL threads ON)
//   bootstrap:            verifying_accounts (SHOW GRANTS of the operator and replication
//                         accounts on every site), stopping_replica, resetting_replica,
//                         recording_gtid, promoting, confirming, steering (the seed; no old
//                         primary, so no fence and no gate: every site was seen fenced)
//   auto_clone, reclone:  fencing_old (the recipient), cloning (waits for a CLONE still running
//                         from an earlier run, never a second beside it; then auto_clone clones
//                         only when clone_need says so, decided again on every run, and reclone
//                         only when reclone_check allows it: the recipient holds nothing beyond
//                         the donor but what the request confirmed), restarting (the recipient
//                         answers again and is fenced again), then the recover steps from
//                         stopping_replica
//
// resume_steps(kind, persisted): the steps still to run when the last completed (persisted)
// phase is `persisted`: `pending` = all of them; a phase of the list = the ones after it; `done`
// = none. A failover/switchover that persisted `promoting` or later never promotes again (S6, no
// double promotion); when steering is still ahead, it re-runs `confirming` first, because S9
// asks for a fresh writable probe before anything is steered and the crash may have been long.
// When `gating` is still ahead but `fencing_old` is not (a crash between the two), fencing_old
// runs again first: the gate's rule 1 (the operator fenced the old primary) is a fact of the
// running executor, not of the persisted state, and fencing is idempotent.
// A phase that is not a step of the kind (or `failed`) gives an error text instead.
//
// step_deadline(phase, plan, clone_timeout): plan.step_timeout for every step except
//   gating     gate_timeout + step_timeout (the gate's own timeout fires first and names itself;
//              this is the backstop)
//   killing_sessions  switchover: session_drain_timeout + step_timeout (kills repeat each second)
//   draining   drain_timeout (relayDrainTimeout; the drain is best-effort, see the executor);
//              switchover: max_lag_wait + 3 x step_timeout (the wait is not best-effort there:
//              past it the switchover is rolled back)
//   cloning    max(step_timeout, clone_timeout) + step_timeout (the CLONE's own deadline plus
//              room for its answer); restarting the same (spec.cloneTimeout)
//   verifying_accounts  step_timeout x 2 x (followers + 1)
//   repointing step_timeout per follower (at least one): four commands each
#pragma once

#include <caf/timespan.hpp>
#include <string>
#include <vector>

#include "messages/operator.hpp"

namespace br {

std::vector<plan_phase> plan_steps(plan_kind kind);

struct resume_plan {
  bool ok = true;
  std::string error;              ///< when !ok: why the plan cannot resume
  std::vector<plan_phase> steps;  ///< steps to run, in order (empty = nothing left)
  bool promotion_done = false;    ///< the persisted phase is at or after `promoting`
};

resume_plan resume_steps(plan_kind kind, plan_phase persisted);

caf::timespan step_deadline(plan_phase phase, const failover_plan& plan,
                            caf::timespan clone_timeout);

}  // namespace br
