// Group Replication metrics (issue 22), set from each published status of a GR group; async groups
// emit none. Labels namespace, group (operator_metrics' group_labels).
//   bloodraven_gr_has_quorum, bloodraven_gr_bootstrapped (0/1), bloodraven_gr_view_size (the sticky
//   largest agreed view, the quorum denominator), bloodraven_gr_members{state} (members per state of
//   the agreed view: ONLINE, RECOVERING, OFFLINE, ERROR, UNREACHABLE, UNKNOWN).
#pragma once

#include "actors/operator/group/operator_metrics.hpp"
#include "messages/group_status.hpp"

namespace br::gr_metrics {

void set_from_status(const opmetrics::group_labels& g, const config::group_replication_status& s);

}  // namespace br::gr_metrics
