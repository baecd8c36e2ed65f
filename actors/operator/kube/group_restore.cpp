// spec.restoreInPlace's requests from the restore controller (kube/restore/restore_controller.cpp)
// to a group's coordinator: "freeze:<token>" / "lift:<token>" (key restore_freeze_key) and, after
// a restore Succeeded, "<site>:restore=<token>" (the reclone key). The controller runs in this
// process only (no network path reaches this); the coordinator checks each request against its
// durable record (decide/restore_freeze.hpp, decide/reclone_token.hpp), so asking again is
// harmless: the same freeze or a lift of no freeze changes nothing, a site is recloned once per
// token.
#include "actors/operator/kube/group_source_detail.hpp"

#include "actors/operator/decide/restore_freeze.hpp"
#include "actors/operator/decide/group_step.hpp"

namespace br::source_detail {

caf::result<std::string> restore_request(source_ptr self, const std::string& ns, const std::string& name,
                                         const std::string& key, const std::string& value) {
  const bool reclone = key == reclone_annotation;
  if (key != restore_freeze_key && !reclone)
    return std::string("rejected: not a restore-in-place request: ") + key;
  if (reclone && value.find(":restore=") == std::string::npos)
    return std::string("rejected: the restore controller only asks reclones on a restore's token");
  auto& st = self->state;
  auto it = st.groups.find(key_of(ns, name));
  if (st.stopping || it == st.groups.end() || !it->second.supervisor || it->second.stopping)
    return std::string("busy: the group is not running here");
  auto rp = self->make_response_promise<std::string>();
  log::info("restore-in-place request handed to the coordinator",
            {{"group", key_of(ns, name)}, {"key", key}, {"value", value}});
  ask_group_coordinator(self, it->second, key, value, [rp](std::optional<std::string> answer) mutable {
    rp.deliver(answer ? *answer : std::string("busy: the group's coordinator did not answer"));
  });
  return rp;
}

}  // namespace br::source_detail
