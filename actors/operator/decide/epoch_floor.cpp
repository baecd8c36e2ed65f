// Resume above the highest view the sidecars hold (epoch_floor.hpp).
#include "actors/operator/decide/epoch_floor.hpp"

namespace br {

epoch_floor_result resume_above_held(durable_state stored, const std::vector<topology_view>& held) {
  epoch_floor_result out;
  const topology_view* top = nullptr;
  for (const auto& v : held)
    if (!top || v.epoch > top->epoch) top = &v;
  if (!top || top->epoch <= stored.view.epoch) {
    out.durable = std::move(stored);
    return out;
  }
  stored.view = *top;
  stored.view.signature.clear();
  out.raised = true;
  if (stored.plan_active && stored.plan.epoch < top->epoch) {
    stored.plan_active = false;
    stored.plan = failover_plan{};
    out.plan_dropped = true;
  }
  out.durable = std::move(stored);
  return out;
}

}  // namespace br
