// The failover executor: runs one failover_plan (failover, switchover, recover, reclone) step by
// step, each step with a deadline, persisting progress through the coordinator before moving on.
//
// Contract (docs/safety.md S2/S4/S6/S9/S10):
// - The steps of the plan's kind (plan_steps.hpp) run in order, starting after plan.phase (the
//   persisted resume point). Each step is reported to the registry under
//   "<deps.registry_path>/executor"; when it completes, (phase, plan.id, phase, promotion_gtid)
//   goes to the coordinator and the next step starts only after it answers `true`.
// - A step that passes its deadline aborts the plan: "<phase>: deadline exceeded". The relay
//   drain is the one best-effort step (a 30 s limit by default, non-fatal): its timeout is logged
//   and the plan continues.
// - Nothing is made writable unless the promotion gate opened; nothing is steered (router, DNS,
//   taints) unless a probe confirmed the candidate writable; a plan resumed at or after
//   `promoting` never promotes again; a follower whose GTID set is not contained in the new
//   primary's is never repointed (reported in plan_result.not_repointed).
// - At the end (ok or not) the executor sends (plan_done, plan_result) to the coordinator and
//   quits normally. The caller monitors it; it is not linked to `parent`.
#pragma once

#include <caf/actor.hpp>
#include <caf/event_based_actor.hpp>

#include "actors/operator/group/executor_deps.hpp"
#include "messages/operator.hpp"

namespace br {

executor_actor spawn_failover_executor(caf::local_actor* parent, failover_plan plan,
                                       executor_deps deps);

}  // namespace br
