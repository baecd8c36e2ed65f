// What a Group Replication member is, from its own view (issue 22): the answer of the sidecar's
// /ready, /gr/primary, /gr/replica and /gr/reader, which HAProxy (standalone) and the readiness
// probe (Kubernetes) follow. A member counts only while it lists itself ONLINE in a view whose
// ONLINE members are a strict majority: a member cut off from the others (the rest UNREACHABLE)
// serves nobody, even if it still calls itself PRIMARY. Pure.
#pragma once

#include <cstddef>
#include <string>

#include "messages/gr.hpp"

namespace br::sidecar {

enum class gr_local_role { primary, secondary, none };

struct gr_health {
  gr_local_role role = gr_local_role::none;
  std::string reason;  ///< one line: the member's state, or why it serves nobody
};

/// What the group must look like for this member to serve (from the sidecar's settings): the
/// declared member count (0 = unknown) and the group's name ("" = any). A member of a smaller
/// group than declared counts its quorum over the declared size, so a lone member that made a
/// group of its own (a second bootstrap) serves nobody; a member of another group serves nobody.
struct gr_expectation {
  std::size_t members = 0;
  std::string group_name;
};

gr_health gr_health_of(const gr_snapshot& s, const gr_expectation& want = {});

}  // namespace br::sidecar
