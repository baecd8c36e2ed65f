// What a Group Replication member is, from its own view (issue 22): the answer of the sidecar's
// /ready, /gr/primary, /gr/replica and /gr/reader, which HAProxy (standalone) and the readiness
// probe (Kubernetes) follow. A member counts only while it lists itself ONLINE in a view whose
// ONLINE members are a strict majority: a member cut off from the others (the rest UNREACHABLE)
// serves nobody, even if it still calls itself PRIMARY. Pure.
#pragma once

#include <string>

#include "messages/gr.hpp"

namespace br::sidecar {

enum class gr_local_role { primary, secondary, none };

struct gr_health {
  gr_local_role role = gr_local_role::none;
  std::string reason;  ///< one line: the member's state, or why it serves nobody
};

gr_health gr_health_of(const gr_snapshot& s);

}  // namespace br::sidecar
