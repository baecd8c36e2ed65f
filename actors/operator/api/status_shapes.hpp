// Pure reshaping of a group's status (config/group_status JSON) into the status API wire shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/operator.hpp"

namespace br {

/// One value of GET /status, keyed "<ns>/<name>" by the caller:
/// {activeSite, sites[{name, role, state, sourceHost, sourceConvergenceState,
/// sourceConvergenceReason, servingHealthy, recoveryState, divergentGtid,
/// divergentTransactionCount}], pollTime, promotionGtidExecuted} plus our `epoch`.
/// Members we do not know (convergence, servingHealthy) are left out rather than invented.
/// `cr_status` is what the coordinator answers to (status); `poll_time_ms` is unix ms.
nlohmann::json api_status_entry(const nlohmann::json& cr_status, int64_t poll_time_ms);

/// One GET /ws/status message (`epoch`): {namespace, group,
/// activeSite, sites[{name, state, lastSeen, replicating, secondsBehindSource, gtidExecuted,
/// recoveryState, divergentGtid, divergentTransactionCount}], lastFailover, lastFailoverTarget,
/// promotionGtidExecuted, pollTime, epoch}. Extras for the dashboard, after the reference
/// members: sites[].role, deposingSite, conditions and recentEvents (this group's events, newest
/// last, at most `max_events`).
nlohmann::json ws_status_message(const std::string& namespace_name, const std::string& group,
                                 const nlohmann::json& cr_status, int64_t poll_time_ms,
                                 const std::vector<group_event>& events, size_t max_events = 20);

/// RFC 3339 (UTC, milliseconds when non-zero) of unix milliseconds.
std::string rfc3339_ms(int64_t unix_ms);

/// GET /events element: {group, type, reason, message, site, epoch, timeMs, time}.
nlohmann::json event_json(const group_event& e);

}  // namespace br
