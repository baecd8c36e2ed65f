// The member's own Group Replication state, as the routing checks see it (see gr_health.hpp).
#include "actors/sidecar/runtime/gr_health.hpp"

#include <algorithm>

namespace br::sidecar {

gr_health gr_health_of(const gr_snapshot& s, const gr_expectation& want) {
  gr_health h;
  if (!s.plugin_loaded) {
    h.reason = "the group_replication plugin is not loaded";
    return h;
  }
  if (!want.group_name.empty() && !s.group_name.empty() && s.group_name != want.group_name) {
    h.reason = "member of group " + s.group_name + ", not " + want.group_name;
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
  const std::size_t size = std::max(s.rows.size(), want.members);
  if (online * 2 <= size) {
    h.reason = "member is ONLINE but only " + std::to_string(online) + " of " +
               std::to_string(size) + " members are: no quorum";
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
