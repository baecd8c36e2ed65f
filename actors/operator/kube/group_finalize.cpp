// The group source's entries and the finalizer: a group being deleted is stopped, its nodes are
// untainted, and only then is the finalizer released.
#include "actors/operator/kube/group_source_detail.hpp"

namespace br::source_detail {

/// Blocks (detached callers only) until `h` has terminated, at most `timeout`.
bool wait_gone(caf::actor_system& sys, const taint_actor& h, caf::timespan timeout) {
  caf::scoped_actor waiter{sys};
  waiter->monitor(h);
  bool gone = false;
  waiter->receive([&](const caf::down_msg&) { gone = true; },
                  caf::after(timeout) >> [] {});
  return gone;
}

/// On delete, untaint every site and let the group go (GracefulShutdown at the
/// start and the end). Blocking calls run in a one-shot detached worker.
void run_finalizer(source_ptr self, const std::string& key) {
  auto it = self->state.groups.find(key);
  if (it == self->state.groups.end() || self->state.stopping) return;
  auto& e = it->second;
  kube_platform_options po;
  po.client = self->state.o.client;
  po.ns = e.ns;
  po.group = e.name;
  po.guard = self->state.o.guard;
  auto spec = e.finalize_spec;
  auto uid = e.uid;
  const auto operator_ns = self->state.o.operator_namespace;
  auto instance = self->state.o.instance;
  // The group's taint writer may still hold a taint the stopped executor queued; were it to run
  // after the untaint below, a node would stay tainted with no group left to clear it. So it is
  // stopped first and the worker waits for it to be gone before touching any node.
  auto taints = e.platform.taints;
  e.platform.taints = nullptr;
  if (taints) self->send_exit(taints, caf::exit_reason::user_shutdown);
  auto worker = self->spawn<caf::detached>(
      [=](finalize_worker_actor::pointer w) -> finalize_worker_actor::behavior_type {
    return {[=](finalize_atom) -> std::string {
      if (taints && !wait_gone(w->system(), taints, po.call_timeout * 2))
        return "the group's taint writer is still busy";
      // The copy of a generated operator Secret in the operator's namespace has no owner to be
      // collected with: deleted here, before the finalizer goes (a failure keeps it for a retry).
      if (!operator_ns.empty()) {
        auto copy = operator_secret_copy_name(po.ns, po.group);
        auto gone = po.client->remove(kube::resources::secrets, operator_ns, copy, {}, po.call_timeout);
        if (!gone && !gone.error().not_found())
          return "operator Secret copy " + operator_ns + "/" + copy + " not deleted: " + gone.error().describe();
      }
      // The closing Event is recorded here, before the finalizer goes: once it is gone the
      // group (and this group's Event sink) may vanish at any moment.
      return finalize_group(*po.client, po, spec, [&] {
        if (po.guard && !po.guard->valid()) return;
        kube::event_recorder_options ro;
        ro.instance = instance;
        kube::event_recorder rec(*po.client, ro);
        kube::object_ref about{"shipstream.io/v1alpha1", "MysqlFailoverGroup", po.ns, po.group,
                               uid, ""};
        (void)rec.record(about, "Normal", "GracefulShutdown",
                         "taints removed; releasing the finalizer, the group's objects go with it");
      });
    }};
  });
  auto budget = po.call_timeout * (4 * static_cast<int64_t>(spec.sites.size()) + 8);
  self->request(worker, budget, finalize_atom::value)
      .then(
          [=](const std::string& problem) {
            self->send_exit(worker, caf::exit_reason::user_shutdown);
            auto it2 = self->state.groups.find(key);
            if (it2 == self->state.groups.end()) return;
            auto& g = it2->second;
            if (!problem.empty()) {
              auto f = fields(g);
              f["error"] = problem;
              log::warn("group finalization failed; retrying later", f);
              self->delayed_send(self, self->state.o.restart_delay, finalize_atom::value, key);
              return;
            }
            log::info("group finalized", fields(g));
            drop_platform(self, g);
            self->state.groups.erase(it2);
            report(self);
          },
          [=](caf::error& err) {
            self->send_exit(worker, caf::exit_reason::kill);
            auto f = json{{"key", key}, {"error", to_string(err)}};
            log::warn("group finalization failed; retrying later", f);
            self->delayed_send(self, self->state.o.restart_delay, finalize_atom::value, key);
          });
}

group_entry& ensure_entry(source_ptr self, const std::string& key, const group_desired& d) {
  auto& st = self->state;
  auto it = st.groups.find(key);
  if (it != st.groups.end()) return it->second;
  group_entry fresh;
  fresh.ns = d.ns;
  fresh.name = d.name;
  fresh.uid = d.uid;
  it = st.groups.emplace(key, std::move(fresh)).first;
  make_platform(self, it->second);
  return it->second;
}

void terminate_group(source_ptr self, const group_desired& d) {
  auto key = key_of(d.ns, d.name);
  auto& e = ensure_entry(self, key, d);
  if (e.finalize) return;  // under way
  e.finalize = true;
  e.deleted = true;
  e.pending.reset();
  e.finalize_spec = d.valid ? d.spec : e.running_spec;
  log::info("group terminating; stopping it before finalizing", fields(e));
  emit_normal(self, e, "GracefulShutdown", "group is being deleted: stopping its actors");
  if (e.supervisor) {
    stop_group(self, e);
    return;
  }
  run_finalizer(self, key);
}

void forget_entry(source_ptr self, const std::string& key) {
  auto& st = self->state;
  auto it = st.groups.find(key);
  if (it == st.groups.end()) return;
  drop_platform(self, it->second);
  st.groups.erase(it);
  st.admin.erase(key);
}

}  // namespace br::source_detail
