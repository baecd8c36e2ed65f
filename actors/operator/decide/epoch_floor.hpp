// Epoch recovery (docs/safety.md S6, "Threat model"): an operator that starts with lost or stale
// durable state learns the views the sidecars hold (each signed by an accepted operator key, so
// only this operator can have issued them) and resumes from the highest, so it never issues an
// epoch the sidecars already hold or one below it (they would refuse every push as stale).
#pragma once

#include <string>
#include <vector>

#include "messages/operator.hpp"

namespace br {

struct epoch_floor_result {
  durable_state durable;
  bool raised = false;      ///< the held view replaced the stored one
  bool plan_dropped = false;  ///< a stored plan older than the held view was abandoned
};

/// `stored` as loaded, and the verified views the sidecars hold. When the highest held epoch is
/// above the stored one, the stored view is replaced by that held view (signature cleared: the
/// operator signs views as they leave it) and a stored plan older than it is abandoned (it was
/// superseded by views this store never saw). Otherwise `stored` is returned unchanged.
epoch_floor_result resume_above_held(durable_state stored, const std::vector<topology_view>& held);

}  // namespace br
