// step(): planned failover (issue 20), the request and its record (status.plannedFailover).
// The plan is the switchover plan; these hooks keep the record, Events and metrics beside it.
// The record lives in group_state (memory): after an operator restart during a plan it is
// rebuilt from the persisted switchover plan at its next phase, without the earlier timestamps.
#pragma once

#include <optional>
#include <string>

#include "actors/operator/decide/planned_failover.hpp"
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

/// The annotation bloodraven.shipstream.io/planned-failover (value `<site>[:maxLagWait=<dur>]`).
void on_planned_annotation(context& c, const std::string& value);
/// A request (annotation, POST /admin/switchover, `bloodraven switchover`): validate and start.
void on_planned_request(context& c, const std::string& target,
                        std::optional<caf::timespan> max_lag_wait);
/// The switchover plan was persisted (or refused by the store).
void planned_plan_started(context& c, const failover_plan& plan, bool ok);
/// The executor's phase `phase` was persisted.
void planned_phase_persisted(context& c, plan_phase phase, const plan_facts& facts);
/// The plan's result was persisted (first time only).
void planned_plan_done(context& c, const change_plan_done& x);
/// Evaluation is skipped while a plan runs: say once per planned failover that automatic
/// cross-site actions wait for it.
void planned_note_deferral(context& c);

}  // namespace br::step_detail
