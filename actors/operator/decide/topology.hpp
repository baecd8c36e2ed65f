// The topology seam: everything that is particular to one replication topology, behind one
// interface, so that a second topology (Group Replication, where the group decides and the
// operator observes and reflects) can be added beside async replication without touching it.
//
// A topology says
//   - what the site pollers observe (the MySQL command each poll runs),
//   - how the group decides (its step function over the shared group_state),
//   - which plans exist (the executor kinds its step may start).
// The coordinator and pollers are topology-agnostic: group_supervisor picks the topology for a
// group and hands it to them.
#pragma once

#include <string_view>
#include <vector>

#include "actors/operator/decide/group_step.hpp"
#include "messages/mysql.hpp"

namespace br {

struct topology {
  std::string_view name;
  /// What each poll of a site runs (its outcome's probe is what the rules read).
  mysql_op probe = mysql_op::probe;
  /// The plans this topology's step may start.
  std::vector<plan_kind> plans;
  /// How the group decides.
  step_result (*step)(const group_rules&, group_state, const group_input&, const step_clock&) =
      nullptr;
  bool has_plan(plan_kind k) const;
};

/// Async replication (the rules of group_step.hpp): failover, switchover, recover, reclone.
const topology& async_replication_topology();

/// Group Replication (decide/gr_step.hpp): the group decides, the operator observes and reflects.
const topology& group_replication_topology();

}  // namespace br
