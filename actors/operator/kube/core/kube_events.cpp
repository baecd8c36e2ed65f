// Kubernetes Event sink: io/kube's de-duplicating recorder behind the event_actor interface.
#include "actors/operator/kube/core/kube_events.hpp"

#include <caf/all.hpp>

#include "io/kube/events.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

struct events_state {
  std::unique_ptr<kube::event_recorder> recorder;
  static inline const char* name = "kube_events";
};

event_actor::behavior_type kube_events(event_actor::stateful_pointer<events_state> self,
                                       kube_events_options o) {
  kube::event_recorder_options ro;
  ro.instance = o.instance;
  self->state.recorder = std::make_unique<kube::event_recorder>(*o.client, ro);
  return {[self, o](event_atom, const group_event& e) {
    if (o.guard && !o.guard->valid()) return;
    kube::object_ref about{"shipstream.io/v1alpha1", "MysqlFailoverGroup", o.ns, o.group,
                           o.group_uid, ""};
    auto res = self->state.recorder->record(about, e.type, e.reason, e.message);
    if (!res)
      log::warn("event record failed", {{"group", o.group},
                                        {"namespace", o.ns},
                                        {"reason", e.reason},
                                        {"error", res.error().describe()}});
  }};
}

}  // namespace

event_actor spawn_kube_events(caf::actor_system& sys, kube_events_options o) {
  return sys.spawn<caf::detached>(kube_events, std::move(o));
}

}  // namespace br
