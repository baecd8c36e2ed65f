// Group source: watchers and a resolver (detached) feed one non-blocking actor that owns the groups.
#include "actors/operator/group_source.hpp"
#include "actors/operator/group_lifecycle.hpp"

#include <algorithm>

#include <caf/all.hpp>

#include <map>
#include <set>

#include "actors/common/http_worker.hpp"
#include "actors/common/registry.hpp"
#include "actors/operator/generated_credentials.hpp"
#include "actors/operator/kube_dns.hpp"
#include "actors/operator/kube_events.hpp"
#include "actors/operator/kube_finalizer.hpp"
#include "actors/operator/kube_router.hpp"
#include "actors/operator/kube_taints.hpp"
#include "actors/operator/reconciler.hpp"
#include "actors/operator/status_hub.hpp"
#include "config/render/names.hpp"
#include "actors/operator/kube_state_store.hpp"
#include "actors/operator/operator_api.hpp"
#include "actors/operator/status_writer.hpp"
#include "config/failover_group.hpp"
#include "config/rfc3339.hpp"
#include "io/kube/events.hpp"
#include "io/log/log.hpp"

namespace br {

using nlohmann::json;

config::address_spec service_site_address(const std::string& ns, const std::string& group,
                                          const std::string& site) {
  return {"mysql-" + group + "-" + site + "." + ns + ".svc.cluster.local", 3306};
}

group_desired desire_from_event(const std::string& type, const json& object) {
  group_desired d;
  const json md = object.value("metadata", json::object());
  d.ns = md.value("namespace", std::string{});
  d.name = md.value("name", std::string{});
  d.uid = md.value("uid", std::string{});
  d.generation = md.value("generation", int64_t{0});
  d.object_json = object.dump();
  d.terminating = md.contains("deletionTimestamp");
  if (type == "DELETED") {
    d.deleted = true;
    return d;
  }
  auto parsed = config::load_group_json(d.object_json, config::run_mode::kubernetes);
  d.errors = parsed.errors;
  d.valid = parsed.ok();
  if (d.valid) {
    d.spec = parsed.group.spec;
    d.group = parsed.group;
  }
  return d;
}

std::string service_sidecar_address(const std::string& ns, const std::string& group,
                                    const std::string& site) {
  return render::sidecar_peer_address(group, site, ns);
}

config::group_spec runtime_spec(const config::group_spec& spec, const std::string& ns,
                                const std::string& group, const site_address_fn& addr,
                                const sidecar_address_fn& sidecar) {
  auto out = spec;
  for (auto& s : out.sites) s.address = addr(ns, group, s.name);
  if (sidecar)
    for (auto& s : out.sites) s.sidecar_address = sidecar(ns, group, s.name);
  return out;
}

json invalid_spec_condition(const config::field_errors& errors, const std::string& now) {
  std::string msg = "invalid spec (" + std::to_string(errors.size()) +
                    (errors.size() == 1 ? " error): " : " errors): ");
  for (size_t i = 0; i < errors.size(); ++i) msg += (i ? "; " : "") + errors[i].to_string();
  return {{"type", "Ready"},
          {"status", "False"},
          {"reason", reason_invalid_spec},
          {"message", msg},
          {"lastTransitionTime", now}};
}

namespace {

std::string now_rfc3339() {
  return config::format_rfc3339(
      std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()));
}

// -- detached helpers ------------------------------------------------------------------------------

/// Blocks in the reflector loop; every change goes to the source as (kube_event, type, json).
caf::behavior watcher(caf::event_based_actor*, std::shared_ptr<kube::client> client,
                      std::shared_ptr<kube::reflector> refl, caf::actor_addr source) {
  return {[=](run_atom) {
    refl->run([&](const kube::watch_event& e) {
      // A weak address back to a strong handle (no type involved).
      if (auto h = caf::actor_cast<caf::actor>(source))
        caf::anon_send(h, kube_event_atom::value, e.type, e.object.dump());
    });
    (void)client;  // keeps the client alive as long as the reflector runs
  }};
}

/// A new group whose operator Secret is absent gets one with random passwords (never
/// overwritten: a create that finds it already there changes nothing). "" or the Secret's name.
std::string generate_secret_if_new(kube::client& c, const group_desired& d) {
  if (!d.group.spec.credentials) return "";
  const auto& name = d.group.spec.credentials->operator_secret;
  auto have = c.get(kube::resources::secrets, d.ns, name, std::chrono::seconds(5));
  if (have || !have.error().not_found()) return "";
  kube::list_options lo;
  lo.label_selector = "shipstream.io/failover-group=" + d.name;
  auto pvcs = c.list(kube::resources::pvcs, d.ns, lo, std::chrono::seconds(5));
  if (!pvcs) return "";
  if (!may_generate_operator_secret(d.group, !(*pvcs)["items"].empty())) return "";
  auto made = c.create(kube::resources::secrets, d.ns,
                       generated_operator_secret(d.group, random_password), std::chrono::seconds(5));
  if (!made) {
    if (!made.error().already_exists())
      log::warn("credentials Secret not generated",
                {{"group", d.name}, {"namespace", d.ns}, {"error", made.error().describe()}});
    return "";
  }
  log::info("credentials Secret generated", {{"group", d.name}, {"namespace", d.ns}, {"secret", name}});
  return name;
}

/// The group's sidecar token: read from mysql-<g>-sidecar-token, created with a random token when
/// absent (a create that finds one already there reads that one). "" when the API fails: the
/// group then runs without pushes being accepted (gate rule 1 only), and a later event retries.
std::string ensure_sidecar_token(kube::client& c, const group_desired& d) {
  auto name = render::sidecar_token_secret(d.name);
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto have = c.get(kube::resources::secrets, d.ns, name, std::chrono::seconds(5));
    if (have) {
      auto token = sidecar_token_of(*have);
      if (token.empty())
        log::warn("sidecar token Secret has no usable `token` key",
                  {{"group", d.name}, {"namespace", d.ns}, {"secret", name}});
      return token;
    }
    if (!have.error().not_found()) {
      log::warn("sidecar token Secret not readable",
                {{"group", d.name}, {"namespace", d.ns}, {"error", have.error().describe()}});
      return "";
    }
    auto token = random_password(48);
    auto made = c.create(kube::resources::secrets, d.ns,
                         generated_sidecar_token_secret(d.group, token), std::chrono::seconds(5));
    if (made) {
      log::info("sidecar token Secret generated",
                {{"group", d.name}, {"namespace", d.ns}, {"secret", name}});
      return token;
    }
    if (!made.error().already_exists()) {
      log::warn("sidecar token Secret not generated",
                {{"group", d.name}, {"namespace", d.ns}, {"error", made.error().describe()}});
      return "";
    }
  }
  return "";
}

/// Parses, validates and reads the credentials of one object (blocking Secret reads).
caf::behavior resolver(caf::event_based_actor*, std::shared_ptr<kube::client> client) {
  return {[=](resolve_atom, const std::string& type, const std::string& text) -> group_desired {
    auto object = json::parse(text, nullptr, false);
    if (object.is_discarded()) object = json::object();
    auto d = desire_from_event(type, object);
    if (d.deleted || d.terminating || !d.valid) return d;
    d.generated_secret = generate_secret_if_new(*client, d);
    d.problem = resolve_group_credentials(
        d.spec,
        [&](const std::string& secret) {
          return client->get(kube::resources::secrets, d.ns, secret, std::chrono::seconds(5));
        },
        d.creds);
    if (!d.problem) d.creds.sidecar_token = ensure_sidecar_token(*client, d);
    return d;
  }};
}

// -- the source ------------------------------------------------------------------------------------

struct group_entry {
  std::string ns, name, uid;
  platform_handles platform;
  std::shared_ptr<kube_group_context> context = std::make_shared<kube_group_context>();
  kube_status_writer_actor status_writer;  // also takes the spec conditions
  status_writer_actor hub;  // /ws/status feed in front of the status writer (null = none)
  caf::actor supervisor;
  bool stopping = false;  // a stop of `supervisor` is under way
  bool deleted = false;
  bool has_running = false;  // running_* describe the live supervisor
  config::group_spec running_spec;
  group_credentials running_creds;
  int64_t running_generation = 0;
  std::optional<group_desired> pending;  // start this once the supervisor is down
  group_desired last;                    // newest resolution (credentials retry, restarts)
  std::string spec_conditions = "[]";    // last sent to the status writer
  std::string reported_problem;          // last Event reason+message, to send each once
  bool finalize = false;                 // terminating: untaint + drop the finalizer once down
  config::group_spec finalize_spec;
};

struct source_state {
  group_source_options o;
  std::string path;
  caf::actor resolver;
  std::vector<std::shared_ptr<kube::reflector>> reflectors;
  std::map<std::string, group_entry> groups;  // "<ns>/<name>"
  std::set<caf::actor_addr> group_links;      // supervisors whose exit message may still arrive
  bool stopping = false;
  caf::error stop_reason;
  std::vector<caf::response_promise> stop_waiters;
  static inline const char* name = "group_source";
};

using source_ptr = caf::stateful_actor<source_state>*;

std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

bool same_creds(const group_credentials& a, const group_credentials& b) {
  return a.operator_user == b.operator_user && a.operator_password == b.operator_password &&
         a.replication_user == b.replication_user &&
         a.replication_password == b.replication_password && a.sidecar_token == b.sidecar_token;
}

json fields(const group_entry& e) { return {{"group", e.name}, {"namespace", e.ns}}; }

std::string group_path(source_ptr self, const group_entry& e) {
  return self->state.path + "/group:" + e.name + "." + e.ns;
}

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
  // Typed platform handles to untyped ones, only to stop them (typed to untyped).
  for (auto h : {caf::actor_cast<caf::actor>(e.platform.status),
                 caf::actor_cast<caf::actor>(e.platform.store),
                 caf::actor_cast<caf::actor>(e.platform.events),
                 caf::actor_cast<caf::actor>(e.platform.router),
                 caf::actor_cast<caf::actor>(e.platform.dns),
                 caf::actor_cast<caf::actor>(e.platform.taints)})
    if (h) self->send_exit(h, caf::exit_reason::user_shutdown);
  if (e.hub) self->send_exit(e.hub, caf::exit_reason::user_shutdown);
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
  ev.time_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  self->send(e.platform.events, event_atom::value, ev);
}

void start_group(source_ptr self, group_entry& e, const group_desired& d) {
  auto& o = self->state.o;
  group_runtime rt;
  rt.site_io = o.site_io;
  rt.platform = e.platform;
  rt.namespace_name = e.ns;
  rt.status_coalesce = o.status_coalesce;
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
  rt.http_worker = [sys = &self->system()] { return spawn_http_worker(*sys); };
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
    rt.extra_children = [ro](std::shared_ptr<coordinator_slot> slot) {
      auto r = ro;
      r.coordinator = std::move(slot);
      return std::vector<child_spec>{reconciler_child(r)};
    };
  }
  auto spec = runtime_spec(d.spec, e.ns, e.name, o.site_address, o.sidecar_address);
  auto child = group_supervisor_child(e.name, spec, d.creds, rt, o.group_policy);
  if (o.groups) child = o.groups->track(e.ns, e.name, child);
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
  e.running_generation = d.generation;
  auto f = fields(e);
  f["generation"] = d.generation;
  f["sites"] = d.spec.sites.size();
  log::info("group started", f);
  report(self);
}

void stop_group(source_ptr self, group_entry& e) {
  if (!e.supervisor || e.stopping) return;
  e.stopping = true;
  self->send(e.supervisor, stop_atom::value);
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
  ev.time_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  self->send(e.platform.events, event_atom::value, ev);
}

/// Blocks (detached callers only) until `h` has terminated, at most `timeout`.
bool wait_gone(caf::actor_system& sys, const caf::actor& h, caf::timespan timeout) {
  caf::scoped_actor waiter{sys};
  waiter->monitor(h);
  bool gone = false;
  waiter->receive([&](const caf::down_msg&) { gone = true; },
                  caf::after(timeout) >> [] {});
  return gone;
}

/// Reference §3.2: on delete, untaint every site and let the group go (GracefulShutdown at the
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
  auto instance = self->state.o.instance;
  // The group's taint writer may still hold a taint the stopped executor queued; were it to run
  // after the untaint below, a node would stay tainted with no group left to clear it. So it is
  // stopped first and the worker waits for it to be gone before touching any node.
  auto taints = caf::actor_cast<caf::actor>(e.platform.taints);  // typed to untyped, to wait on
  e.platform.taints = nullptr;
  if (taints) self->send_exit(taints, caf::exit_reason::user_shutdown);
  auto worker = self->spawn<caf::detached>([=](caf::event_based_actor* w) -> caf::behavior {
    return {[=](finalize_atom) -> std::string {
      if (taints && !wait_gone(w->system(), taints, po.call_timeout * 2))
        return "the group's taint writer is still busy";
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

tracked_group tracked(source_ptr self, const std::string& key, const group_desired& d) {
  tracked_group g;
  auto it = self->state.groups.find(key);
  if (it == self->state.groups.end()) return g;
  const auto& e = it->second;
  g.exists = true;
  g.uid = e.uid;
  g.running = static_cast<bool>(e.supervisor);
  g.stopping = e.stopping;
  g.finalizing = e.finalize;
  g.same_as_running = e.has_running && e.running_spec == d.spec && same_creds(e.running_creds, d.creds);
  return g;
}

void forget_entry(source_ptr self, const std::string& key) {
  auto& st = self->state;
  auto it = st.groups.find(key);
  if (it == st.groups.end()) return;
  drop_platform(self, it->second);
  st.groups.erase(it);
}

/// Applies a resolved object: group_lifecycle's decide_resolved says what, this carries it out.
void apply(source_ptr self, group_desired d) {
  auto& st = self->state;
  auto key = key_of(d.ns, d.name);
  resolved_group r{d.deleted, d.terminating, d.uid, d.valid, static_cast<bool>(d.problem)};
  auto dec = decide_resolved(tracked(self, key, d), r, st.stopping);
  using a = resolved_action;
  switch (dec.action) {
    case a::ignore:
      if (d.deleted && !st.stopping && st.groups.count(key)) {
        auto& e = st.groups[key];  // finalizing: the finalizer worker ends the entry
        e.deleted = true;
        e.pending.reset();
        log::info("group deleted", fields(e));
      }
      return;
    case a::forget:
      log::info("group deleted", fields(st.groups[key]));
      forget_entry(self, key);
      report(self);
      return;
    case a::stop: {
      auto& e = st.groups[key];
      e.deleted = true;
      e.pending.reset();
      log::info("group deleted", fields(e));
      stop_group(self, e);
      return;
    }
    case a::stop_then_apply: {
      auto& e = st.groups[key];
      e.deleted = true;
      e.pending = d;
      stop_group(self, e);
      return;
    }
    case a::finalize:
      terminate_group(self, d);
      return;
    default:
      break;
  }
  if (dec.drop_stale_entry) forget_entry(self, key);
  auto& e = ensure_entry(self, key, d);
  e.last = d;
  if (dec.action == a::report_invalid) {
    auto cond = invalid_spec_condition(d.errors, now_rfc3339());
    auto f = fields(e);
    f["generation"] = d.generation;
    f["errors"] = config::to_string(d.errors);
    log::warn(e.supervisor ? "invalid group spec; keeping the running spec"
                           : "invalid group spec; not started",
              f);
    set_spec_conditions(self, e, json::array({cond}));
    warn_once(self, e, reason_invalid_spec, cond["message"].get<std::string>());
    return;
  }
  if (dec.action == a::report_problem) {
    auto f = fields(e);
    f["reason"] = d.problem.reason;
    f["error"] = d.problem.message;
    log::warn("group credentials unavailable", f);
    set_spec_conditions(self, e,
                        json::array({{{"type", "Ready"},
                                      {"status", "False"},
                                      {"reason", d.problem.reason},
                                      {"message", d.problem.message},
                                      {"lastTransitionTime", now_rfc3339()}}}));
    warn_once(self, e, d.problem.reason, d.problem.message);
    self->delayed_send(self, st.o.credential_retry, retry_later_atom::value, key);
    return;
  }
  set_spec_conditions(self, e, json::array());
  e.reported_problem.clear();
  e.context->set(d.group);
  if (!d.generated_secret.empty())
    emit_normal(self, e, reason_credentials_generated,
                "generated Secret " + d.generated_secret + " with random passwords (new group)");
  switch (dec.action) {
    case a::restart: {
      auto f = fields(e);
      f["generation"] = d.generation;
      f["previousGeneration"] = e.running_generation;
      log::info("group spec changed; restarting its supervisor", f);
      e.pending = d;
      stop_group(self, e);
      return;
    }
    case a::start_when_down:
      e.pending = d;
      return;
    case a::start:
      start_group(self, e, d);
      return;
    default:  // keep_running
      return;
  }
}

void resolve(source_ptr self, const std::string& type, const std::string& text) {
  self->request(self->state.resolver, caf::infinite, resolve_atom::value, type, text)
      .then([=](group_desired& d) { apply(self, std::move(d)); },
            [=](caf::error& err) {
              log::error("group resolve failed", {{"error", self->system().render(err)}});
            });
}

/// Our own status writes (and label/annotation edits) bump resourceVersion, not generation:
/// such a MODIFIED needs no new parse, validation or Secret read.
bool unchanged_generation(source_ptr self, const std::string& text) {
  auto obj = json::parse(text, nullptr, false);
  if (!obj.is_object()) return false;
  const json md = obj.value("metadata", json::object());
  auto it = self->state.groups.find(
      key_of(md.value("namespace", std::string{}), md.value("name", std::string{})));
  if (it == self->state.groups.end()) return false;
  if (md.contains("deletionTimestamp")) return false;
  const auto& last = it->second.last;
  return last.valid && !last.problem && last.uid == md.value("uid", std::string{}) &&
         last.generation != 0 && last.generation == md.value("generation", int64_t{0});
}

void on_group_down(source_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  auto it = std::find_if(st.groups.begin(), st.groups.end(), [&](const auto& kv) {
    return kv.second.supervisor && kv.second.supervisor.address() == dm.source;
  });
  if (it == st.groups.end()) return;
  auto& e = it->second;
  e.supervisor = nullptr;
  e.has_running = false;
  bool requested = e.stopping;
  e.stopping = false;
  switch (decide_down({st.stopping, e.finalize, e.deleted, e.pending.has_value(), requested})) {
    case down_action::finish_source_stop:
      finish_stop_if_done(self);
      return;
    case down_action::finalize:
      report(self);
      run_finalizer(self, it->first);
      return;
    case down_action::forget: {
      auto pending = e.pending;
      drop_platform(self, e);
      if (st.o.groups) st.o.groups->track(e.ns, e.name, child_spec{});  // forget the handle
      log::info("group stopped", fields(e));
      st.groups.erase(it);
      report(self);
      if (pending) apply(self, *pending);  // recreated under the same name
      return;
    }
    case down_action::start_pending: {
      auto d = *e.pending;
      e.pending.reset();
      start_group(self, e, d);
      return;
    }
    case down_action::restart_later: {
      auto f = fields(e);
      f["error"] = dm.reason ? to_string(dm.reason) : std::string("normal exit");
      f["retryInMs"] = st.o.restart_delay.count();
      log::error("group supervisor failed; restarting later", f);
      self->delayed_send(self, st.o.restart_delay, restart_atom::value, it->first);
      report(self);
      return;
    }
    case down_action::none:
      report(self);
      return;
  }
}

caf::behavior group_source(source_ptr self, group_source_options o, std::string path) {
  auto& st = self->state;
  st.o = std::move(o);
  st.path = path;
  st.resolver = self->spawn<caf::detached + caf::linked>(resolver, st.o.client);
  std::vector<std::string> nss = st.o.namespaces;
  if (nss.empty()) nss.push_back("");  // all namespaces
  for (const auto& ns : nss) {
    auto refl = std::make_shared<kube::reflector>(*st.o.client, mfg_resource, ns, st.o.reflector);
    st.reflectors.push_back(refl);
    auto w = self->spawn<caf::detached + caf::linked>(
        watcher, st.o.client, refl,
        caf::actor_cast<caf::actor_addr>(self));  // this actor's own (weak) address
    self->send(w, run_atom::value);
  }
  // However this actor ends, the blocked watchers must return.
  auto reflectors = st.reflectors;
  self->attach_functor([reflectors] {
    for (auto& r : reflectors) r->stop();
  });
  self->set_down_handler([=](caf::down_msg& dm) { on_group_down(self, dm); });
  self->set_exit_handler([=](caf::exit_msg& em) {
    if (self->state.group_links.erase(em.source) > 0) return;  // a group: see the down handler
    if (em.reason) begin_stop(self, em.reason);  // our parent stops us, or a helper died
  });
  log::info("group source started",
            {{"namespaces", st.o.namespaces.empty() ? json("*") : json(st.o.namespaces)}});
  report(self);
  return {
      [=](kube_event_atom, const std::string& type, const std::string& text) {
        if (self->state.stopping) return;
        if (type == "MODIFIED" && unchanged_generation(self, text)) return;
        resolve(self, type, text);
      },
      [=](retry_later_atom, const std::string& key) {
        auto it = self->state.groups.find(key);
        if (it == self->state.groups.end() || self->state.stopping) return;
        auto& e = it->second;
        if (!e.last.problem) return;  // resolved meanwhile
        resolve(self, "MODIFIED", e.last.object_json);
      },
      [=](finalize_atom, const std::string& key) { run_finalizer(self, key); },
      [=](restart_atom, const std::string& key) {
        auto it = self->state.groups.find(key);
        if (it == self->state.groups.end() || self->state.stopping) return;
        auto& e = it->second;
        if (e.supervisor || e.stopping || !e.last.valid || e.last.problem) return;
        start_group(self, e, e.last);
      },
      [=](stop_atom) -> caf::result<bool> {
        auto rp = self->make_response_promise();
        self->state.stop_waiters.push_back(rp);
        begin_stop(self, caf::none);
        return rp;
      },
      [](bool) {},  // a group supervisor confirming its stop (its down message does the work)
      [=](stop_atom, caf::actor_id id) {
        for (auto& [k, e] : self->state.groups)
          if (e.supervisor && e.supervisor.id() == id && e.stopping) {
            log::warn("group did not stop in time; killing", fields(e));
            self->unlink_from(e.supervisor);
            self->state.group_links.erase(e.supervisor.address());
            self->send_exit(e.supervisor, caf::exit_reason::kill);
          }
      },
  };
}

}  // namespace

child_spec group_source_child(group_source_options o) {
  child_spec c;
  c.name = "group_source";
  c.kind = "group_source";
  c.start = [o](caf::event_based_actor* sup, const std::string& path) -> caf::actor {
    return sup->spawn(group_source, o, path);
  };
  return c;
}

}  // namespace br
