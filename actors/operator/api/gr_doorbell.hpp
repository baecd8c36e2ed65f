// The operator's side of the Group Replication doorbell (issue 22, "change detection"): a
// sidecar's signed POST /sidecar/report of kind "gr-observed" says its member's view of the group
// changed. It is a wake-up and never authority: it only makes every poller of the group poll now
// (rate-limited per poller, decide/wake_gate.hpp); what changes comes only from the next
// cross-validated round over every member (decide/gr_step.*).
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/operator/api/operator_api.hpp"

namespace br {

/// The report kind of a doorbell.
inline constexpr const char* gr_observed_kind = "gr-observed";

/// Validates a gr-observed report body (kind, site, namespace, group, sentAtMs, and the `gr`
/// observation: reachable, and when reachable memberId, groupName, selfState, viewId strings and
/// at most 9 members {memberId, state, role}); "" when fine, else what is wrong (field path).
std::string check_gr_observed_report(const nlohmann::json& j);

/// Sends (wake) to every site poller of the group `e` (found by asking its supervisor for
/// "poller:<site>"); a poller that is not running is skipped. Never blocks the caller.
void wake_group_pollers(caf::actor_system& sys, const group_table::entry& e,
                        std::chrono::milliseconds timeout);

}  // namespace br
