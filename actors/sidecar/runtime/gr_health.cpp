// The member's own Group Replication state, as the routing checks see it (see gr_health.hpp).
#include "actors/sidecar/runtime/gr_health.hpp"

namespace br::sidecar {

gr_health gr_health_of(const gr_snapshot& s) {
  gr_health h;
  if (!s.plugin_loaded) {
    h.reason = "the group_replication plugin is not loaded";
    return h;
  }
  std::size_t online = 0;
  const gr_member_row* self = nullptr;
  for (const auto& r : s.rows) {
    if (r.state == "ONLINE") ++online;
    if (r.member_id == s.member_id) self = &r;
  }
  if (self == nullptr || self->state != "ONLINE") {
    h.reason = "member is " + (self ? self->state : std::string{"not in a group"});
    return h;
  }
  if (online * 2 <= s.rows.size()) {
    h.reason = "member is ONLINE but only " + std::to_string(online) + " of " +
               std::to_string(s.rows.size()) + " members of its view are: no quorum";
    return h;
  }
  if (self->role == "PRIMARY") {
    h.role = gr_local_role::primary;
    h.reason = "ONLINE PRIMARY";
  } else {
    h.role = gr_local_role::secondary;
    h.reason = "ONLINE SECONDARY";
  }
  return h;
}

}  // namespace br::sidecar
