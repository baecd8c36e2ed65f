// The group source's per-group bookkeeping: the platform actors of a group (status writer, state
// store, Events, router, DNS, taints, status hub), starting and stopping its supervisor, its spec
// conditions and Events, and stopping the whole source.
#include "actors/operator/kube/group_source_detail.hpp"

#include <optional>

#include "actors/operator/kube/gr_pod_watch.hpp"
#include "actors/operator/kube/platform/dragonfly_pods.hpp"
#include "config/render/gr_member.hpp"

namespace br::source_detail {

void report(source_ptr self) {
  size_t running = 0;
  for (auto& [k, e] : self->state.groups)
    if (e.supervisor) ++running;
  report_step(self, self->state.path,
              std::to_string(running) + " running of " + std::to_string(self->state.groups.size()) +
                  " groups");
}

void make_platform(source_ptr self, group_entry& e) {
  auto& o = self->state.o;
  status_writer_options so;
  so.client = o.client;
  so.ns = e.ns;
  so.name = e.name;
  so.path = self->state.path + "/status:" + e.name + "." + e.ns;
  so.guard = o.guard;
  so.backoff_initial = o.status_backoff_initial;
  so.backoff_max = o.status_backoff_max;
  e.status_writer = spawn_kube_status_writer(self->system(), so);
  e.platform.status = e.status_writer;
  kube_state_store_options st;
  st.client = o.client;
  st.ns = e.ns;
  st.group = e.name;
  st.group_uid = e.uid;
  st.guard = o.guard;
  e.platform.store = spawn_kube_state_store(self->system(), st);
  kube_events_options ev;
  ev.client = o.client;
  ev.ns = e.ns;
  ev.group = e.name;
  ev.group_uid = e.uid;
  ev.instance = o.instance;
  ev.guard = o.guard;
  e.platform.events = spawn_kube_events(self->system(), ev);
  kube_platform_options po;
  po.client = o.client;
  po.ns = e.ns;
  po.group = e.name;
  po.guard = o.guard;
  po.context = e.context;
  po.render = o.render;
  e.platform.router = spawn_kube_router(self->system(), po);
  e.platform.dns = spawn_kube_dns(self->system(), po);
  e.platform.taints = spawn_kube_taints(self->system(), po);
}

void drop_platform(source_ptr self, group_entry& e) {
  auto stop = [self](const auto& h) {
    if (h) self->send_exit(h, caf::exit_reason::user_shutdown);
  };
  stop(e.platform.status);
  stop(e.platform.store);
  stop(e.platform.events);
  stop(e.platform.router);
  stop(e.platform.dns);
  stop(e.platform.taints);
  stop(e.hub);
  e.hub = nullptr;
  e.platform = platform_handles{};
  e.status_writer = nullptr;
}

void set_spec_conditions(source_ptr self, group_entry& e, const json& conditions) {
  auto text = conditions.dump();
  if (text == e.spec_conditions) return;
  e.spec_conditions = text;
  self->send(e.status_writer, spec_atom::value, text);
}

void warn_once(source_ptr self, group_entry& e, const std::string& reason, const std::string& msg) {
  if (e.reported_problem == reason + msg) return;
  e.reported_problem = reason + msg;
  group_event ev;
  ev.group = e.name;
  ev.type = "Warning";
  ev.reason = reason;
  ev.message = msg;
  ev.time_ms = unix_ms(self->state.o.wall_clock);
  self->send(e.platform.events, event_atom::value, ev);
}

void start_group(source_ptr self, group_entry& e, const group_desired& d) {
  auto& o = self->state.o;
  group_runtime rt;
  rt.wall_clock = o.wall_clock;
  rt.site_io = o.site_io;
  rt.leader_generation = o.leader_generation;
  rt.platform = e.platform;
  rt.namespace_name = e.ns;
  rt.status_coalesce = o.status_coalesce;
  rt.restore_hold = d.restore_hold;
  if (o.ws) {
    // The coordinator's publications reach /ws/status through a hub that forwards each one to
    // the group's status writer unchanged; one hub per running supervisor (its poll cadence).
    if (e.hub) self->send_exit(e.hub, caf::exit_reason::user_shutdown);
    status_hub_config hc;
    hc.namespace_name = e.ns;
    hc.ws = o.ws;
    hc.forward = e.platform.status;
    hc.interval = d.spec.poll_interval;
    e.hub = spawn_status_hub(self->system(), hc);
    rt.platform.status = e.hub;
  }
  // View pushes (PUT /view) to the sites' sidecars: the Safe gate's rules 2 and 3.
  rt.http_worker = [sys = &self->system(), tls = o.api_tls] { return spawn_http_worker(*sys, tls); };
  if (o.reconcile) {
    reconciler_options ro;
    ro.platform.client = o.client;
    ro.platform.ns = e.ns;
    ro.platform.group = e.name;
    ro.platform.guard = o.guard;
    ro.platform.context = e.context;
    ro.platform.render = o.render;
    ro.router = e.platform.router;
    ro.dns = e.platform.dns;
    ro.taints = e.platform.taints;
    ro.events = e.platform.events;
    ro.status = e.status_writer;
    ro.interval = o.reconcile_interval;
    ro.busy_interval = o.reconcile_busy_interval;
    ro.wall_clock = o.wall_clock;
    // Group Replication: the sidecars' gr-observed Pod annotations wake the pollers.
    std::optional<gr_pod_watch_options> pw;
    if (render::is_group_replication(d.spec)) {
      pw.emplace();
      pw->platform = ro.platform;
    }
    rt.extra_children = [ro, pw] {
      std::vector<child_spec> out{reconciler_child(ro)};
      if (pw) out.push_back(gr_pod_watch_child(*pw));
      return out;
    };
  }
  // Dragonfly: the manager writes the cache pods' traffic label and reports status.dragonfly
  // through the group's status writer; a group without it has no status.dragonfly.
  if (d.spec.dragonfly.enabled) {
    kube_platform_options po;
    po.client = o.client;
    po.ns = e.ns;
    po.group = e.name;
    po.guard = o.guard;
    po.context = e.context;
    rt.dragonfly_pods = dragonfly_pod_traffic(po);
    rt.dragonfly_status = e.status_writer;
  } else {
    self->send(e.status_writer, dragonfly_atom::value, std::string{"null"});
  }
  auto spec = runtime_spec(d.spec, e.ns, e.name, o.site_address, o.sidecar_address, o.dragonfly_address);
  for (const auto& site : d.leaving_sites) rt.gr_leaving[site] = o.site_address(e.ns, e.name, site);
  auto child = group_supervisor_child(e.name, spec, d.creds, rt, o.group_policy);
  if (o.groups) {
    std::vector<std::string> sites;
    for (const auto& s : spec.sites) sites.push_back(s.name);
    child = o.groups->track(e.ns, e.name, child, d.creds.keys, sites,
                            spec.replication.mode == config::replication_mode::group_replication);
  }
  auto path = group_path(self, e);
  e.supervisor = child.start(self, path);
  if (!e.supervisor) {
    log::error("group start failed", fields(e));
    return;
  }
  self->link_to(e.supervisor);
  self->state.group_links.insert(e.supervisor.address());
  self->monitor(e.supervisor);
  if (auto r = find_registry(self->system()))
    self->send(r, announce_atom::value,
               actor_entry{path, name_of(path), "group_supervisor", self->state.path,
                           e.supervisor.id()},
               e.supervisor);
  e.has_running = true;
  e.running_spec = d.spec;
  e.running_creds = d.creds;
  e.running_restore_hold = d.restore_hold;
  e.running_generation = d.generation;
  auto f = fields(e);
  f["generation"] = d.generation;
  f["sites"] = d.spec.sites.size();
  log::info("group started", f);
  report(self);
  drive_admin(self, key_of(e.ns, e.name));  // an admin annotation that waited for the start
  fence_group_started(self, key_of(e.ns, e.name));
}

void stop_group(source_ptr self, group_entry& e) {
  if (!e.supervisor || e.stopping) return;
  e.stopping = true;
  // Its down message does the work; the answer only says it began stopping in order.
  self->request(e.supervisor, std::chrono::seconds(10), stop_atom::value)
      .then([](bool) {}, [](caf::error&) {});
  // Should the supervisor hang, the kill still reaches every child through the links.
  self->delayed_send(self, std::chrono::seconds(10), stop_atom::value, e.supervisor.id());
}

void finish_stop_if_done(source_ptr self) {
  auto& st = self->state;
  if (!st.stopping) return;
  for (auto& [k, e] : st.groups)
    if (e.supervisor) return;
  for (auto& [k, e] : st.groups) drop_platform(self, e);
  for (auto& r : st.reflectors) r->stop();
  for (auto& rp : st.stop_waiters) rp.deliver(true);
  st.stop_waiters.clear();
  log::info("group source stopped", {});
  self->quit(st.stop_reason);
}

void begin_stop(source_ptr self, caf::error reason) {
  auto& st = self->state;
  if (st.stopping) return;
  st.stopping = true;
  st.stop_reason = std::move(reason);
  for (auto& r : st.reflectors) r->stop();  // no new work while the groups stop
  for (auto& [k, e] : st.groups) stop_group(self, e);
  finish_stop_if_done(self);
}

void emit_normal(source_ptr self, group_entry& e, const std::string& reason,
                 const std::string& msg) {
  if (!e.platform.events) return;
  group_event ev;
  ev.group = e.name;
  ev.reason = reason;
  ev.message = msg;
  ev.time_ms = unix_ms(self->state.o.wall_clock);
  self->send(e.platform.events, event_atom::value, ev);
}

}  // namespace br::source_detail
