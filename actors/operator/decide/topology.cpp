// The async-replication topology (see topology.hpp).
#include "actors/operator/decide/topology.hpp"

#include <algorithm>

#include "actors/operator/decide/gr_step.hpp"

namespace br {

bool topology::has_plan(plan_kind k) const {
  return std::find(plans.begin(), plans.end(), k) != plans.end();
}

const topology& async_replication_topology() {
  static const topology t{
      "async-replication",
      mysql_op::probe,
      {plan_kind::failover, plan_kind::switchover, plan_kind::recover, plan_kind::reclone,
       plan_kind::bootstrap, plan_kind::auto_clone},
      &step,
  };
  return t;
}

const topology& group_replication_topology() {
  static const topology t{
      "group-replication",
      mysql_op::gr_probe,
      {},  // no plans: bootstrap, join and switchover are single commands (effect::gr_command)
      &gr_step,
  };
  return t;
}

}  // namespace br
