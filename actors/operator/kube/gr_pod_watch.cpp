// gr-pod-watch: the group's pods' gr-observed annotations wake its pollers (see gr_pod_watch.hpp).
#include "actors/operator/kube/gr_pod_watch.hpp"

#include <caf/all.hpp>

#include "actors/common/registry.hpp"
#include "actors/operator/api/gr_doorbell.hpp"
#include "actors/operator/decide/gr_pod_doorbell.hpp"
#include "config/render/names.hpp"
#include "io/log/log.hpp"
#include "messages/atoms.hpp"

namespace br {

namespace {

/// The blocking half: runs the reflector until it is stopped, then quits.
caf::behavior watch_runner(caf::event_based_actor* self, gr_pod_watch_options o,
                           std::shared_ptr<kube::reflector> refl, caf::actor supervisor) {
  return {[=](run_atom) {
    gr_pod_doorbell_tracker tracker;
    auto* sys = &self->system();
    refl->run([&](const kube::watch_event& e) {
      if (!tracker.on_event(e.type, e.object)) return;
      group_table::entry entry;
      entry.namespace_name = o.platform.ns;
      entry.group = o.platform.group;
      entry.supervisor = supervisor;
      if (o.platform.context)
        for (const auto& s : o.platform.context->get().spec.sites) entry.sites.push_back(s.name);
      wake_group_pollers(*sys, entry, o.wake_timeout);
    });
    (void)o.platform.client;  // keeps the client alive as long as the reflector runs
    self->quit();
  }};
}

/// The child the supervisor holds: owns the reflector and stops it however it ends.
caf::behavior gr_pod_watch(caf::event_based_actor* self, gr_pod_watch_options o,
                           std::string path, caf::actor supervisor) {
  o.reflector.label_selector = std::string{render::label_group} + "=" + o.platform.group;
  auto refl = std::make_shared<kube::reflector>(*o.platform.client, kube::resources::pods,
                                                o.platform.ns, o.reflector);
  self->attach_functor([refl] { refl->stop(); });
  auto runner = self->spawn<caf::detached + caf::linked>(watch_runner, o, refl, supervisor);
  self->send(runner, run_atom::value);
  announce(self, path, "gr-pod-watch");
  report_step(self, path, "watching pods " + o.reflector.label_selector);
  log::info("gr pod doorbell watch started",
            {{"group", o.platform.group}, {"namespace", o.platform.ns}});
  return {[](run_atom) {}};
}

}  // namespace

child_spec gr_pod_watch_child(gr_pod_watch_options o) {
  child_spec c;
  c.name = "gr-pod-watch";
  c.kind = "gr-pod-watch";
  c.start = [o](caf::local_actor* sup, const std::string& path) -> caf::actor {
    return sup->spawn(gr_pod_watch, o, path, supervisor_handle(sup));
  };
  return c;
}

}  // namespace br
