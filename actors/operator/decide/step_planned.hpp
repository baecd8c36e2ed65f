// step(): planned failover (issue 20), the request and its record (status.plannedFailover).
// The plan is the switchover plan; these hooks keep the record, Events and metrics beside it.
// The record of an accepted request is durable (durable_state.planned): it is stored with the
// plan's start, each persisted phase and the result (apply_change), or alone (change_planned:
// Deferred, Cancelled, a deferred request refused when validated again), so it survives an
// operator restart. A request refused before it was accepted lives in memory only.
#pragma once

#include <optional>
#include <string>

#include "actors/operator/decide/planned_failover.hpp"
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

/// The annotation bloodraven.shipstream.io/planned-failover (value `<site>[:maxLagWait=<dur>]`),
/// or planned_cancel_value.
void on_planned_annotation(context& c, const std::string& value);
/// A request (annotation, POST /admin/switchover, `bloodraven switchover`): validate and start,
/// defer, or refuse.
void on_planned_request(context& c, const std::string& target,
                        std::optional<caf::timespan> max_lag_wait);
/// Cancels a Deferred request (a running plan is never interrupted).
void on_planned_cancel(context& c);
/// A Deferred request whose retry time came is validated again (called when the group is
/// healthy or degraded and nothing else runs: an emergency failover always goes first).
void planned_retry_deferred(context& c);
/// The switchover plan was persisted (or refused by the store).
void planned_plan_started(context& c, const failover_plan& plan, bool ok);
/// The executor's phase `phase` was persisted.
void planned_phase_persisted(context& c, plan_phase phase, const plan_facts& facts);
/// The plan's result was persisted (first time only).
void planned_plan_done(context& c, const change_plan_done& x);
/// A record stored alone (change_planned) was persisted (or refused).
void planned_record_persisted(context& c, const change_planned& x, bool ok);
/// A planned failover ended (Succeeded or Failed; stored or being stored): log, Event, metric.
void planned_ended(context& c, const planned_failover_record& r);
/// The Dragonfly manager's report (decide/planned_dragonfly.hpp): a sync report is kept until
/// nothing else runs (planned_continue_after_sync); a promote report ends the request.
void on_planned_dragonfly_report(context& c, const dragonfly_handover_report& rep);
/// A kept sync report, once nothing is being written or run: the request ends (onSyncTimeout=
/// fail) or is validated again and its switchover plan starts.
void planned_continue_after_sync(context& c);
/// After a restart: a record in WaitingForDragonflySync (no plan yet) or PromotingDragonfly asks
/// the Dragonfly manager again (both steps are safe to repeat).
void planned_resume_dragonfly(context& c);
/// Evaluation is skipped while a plan runs: say once per planned failover that automatic
/// cross-site actions wait for it.
void planned_note_deferral(context& c);

}  // namespace br::step_detail
