// Pure bookkeeping of status.bootstrap (durable_state::bootstrap): how a bootstrap, auto-clone or
// reclone plan moves its record's phases. Applied by apply_change (group_step.cpp) in the same
// durable write as the plan's own change, so the status and the plan never disagree after a
// restart. Phases per site: Pending -> Promoting (seed) | Cloning -> WaitingForRestart ->
// SetupReplication -> Done, or Failed (retried) / Blocked (divergent, never cloned).
#pragma once

#include <cstdint>
#include <string>

#include "messages/operator.hpp"

namespace br {

/// Done when every site that is brought in is Done; else the phase of the site in progress;
/// else Failed when one failed; else Pending.
std::string overall_phase(const bootstrap_record& r);

/// The status phase of a site whose auto_clone/reclone plan persisted `phase` (the last step
/// completed): the step that runs next.
std::string site_phase_after(plan_kind kind, plan_phase phase);

/// A plan of kind bootstrap/auto_clone/reclone was recorded (reclone starts a record of its own).
void record_plan_started(bootstrap_record& r, const failover_plan& plan, int64_t at_ms);
void record_plan_phase(bootstrap_record& r, const failover_plan& plan, plan_phase phase);
void record_plan_done(bootstrap_record& r, const failover_plan& plan, const plan_result& res,
                      int64_t at_ms);
/// A failover promoted `site` while a fresh-deploy bootstrap was still bringing sites in: its
/// entry is Done (it is the primary now; the others are brought in from it).
void note_promoted_during_bootstrap(bootstrap_record& r, const std::string& site, int64_t at_ms);

}  // namespace br
