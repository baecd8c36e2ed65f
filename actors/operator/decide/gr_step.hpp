// Group Replication's step (issue 22): the group decides, the operator observes and reflects.
//
// The same engine shape as async (decide/group_step.hpp: one pure step over group_state, one
// durable write at a time, persist before publish), with other rules:
//  - every report carries the member's own view of the group (gr_snapshot); the verdict is
//    gr::cross_validate over every member's view, never one member's word;
//  - the operator never promotes and never fences: when the agreed PRIMARY is another site than
//    the view's active one, the view follows it (epoch + 1, persisted first), routing follows and
//    FailoverObserved (or SwitchoverCompleted) is raised;
//  - bootstrap exactly once (gr::decide_gr_bootstrap): the group name and the member a bootstrap
//    starts on are persisted BEFORE the START; `bootstrapped` is recorded once a member is seen
//    ONLINE and never cleared;
//  - joins one at a time through gr::gr_provision_gate (quorum, an ONLINE donor, nobody
//    RECOVERING); a member that comes back OFFLINE after a clone is started again the same way;
//  - a switchover is group_replication_set_as_primary on an ONLINE SECONDARY target, bounded by
//    maxSwitchoverDelay.
// One Group Replication command runs at a time; after one ends, nothing new starts for two poll
// intervals (the next reports show what it did).
#pragma once

#include "actors/operator/decide/group_step.hpp"
#include "config/group_status.hpp"

namespace br {

/// Group Replication's step (topology group_replication_topology()).
step_result gr_step(const group_rules& rules, group_state state, const group_input& in,
                    const step_clock& clock);

/// status.groupReplication from the state (the agreed view, the durable record, what it waits for).
config::group_replication_status gr_status_of(const group_rules& rules, const group_state& st);

}  // namespace br
