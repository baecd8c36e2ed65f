// Group source: watchers and a resolver (detached) feed one non-blocking actor that owns the
// groups. This file applies resolved objects and supervisor exits (group_lifecycle decides what to
// do) and holds the behaviour; the rest is in group_resolver.cpp, group_entries.cpp and
// group_finalize.cpp.
#include "actors/operator/kube/group_source_detail.hpp"

namespace br::source_detail {

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
  g.same_as_running = e.has_running && same_running_spec(e.running_spec, d.spec) &&
                      e.running_restore_hold == d.restore_hold &&
                      same_creds(e.running_creds, d.creds);
  return g;
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
    auto cond = invalid_spec_condition(d.errors, now_rfc3339(self));
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
                                      {"lastTransitionTime", now_rfc3339(self)}}}));
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
  // Unbounded on purpose, for now: a timed-out resolution would drop a watch event for good (the
  // reflector delivers each change once). The resolver bounds each of its own API calls (5 s).
  // Bounding this wait needs a retry that keeps the order of events per object (issue 17).
  self->request(self->state.resolver, caf::infinite, resolve_atom::value, type, text)
      .then([=](group_desired& d) { apply(self, std::move(d)); },
            [=](caf::error& err) {
              log::error("group resolve failed", {{"error", self->system().render(err)}});
            });
}

/// Our own status writes (and label/annotation edits) bump resourceVersion, not generation:
/// such a MODIFIED needs no new parse, validation or Secret read, unless it changes the restore
/// hold (status.restore reached Succeeded: the group restarts without it).
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
         last.generation != 0 && last.generation == md.value("generation", int64_t{0}) &&
         config::restore_bootstrap_hold(last.spec.init_from_backup,
                                        obj.value("status", json::object())) == last.restore_hold;
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

group_source_actor::behavior_type group_source(source_ptr self, group_source_options o,
                                               std::string path) {
  auto& st = self->state;
  st.o = std::move(o);
  st.path = path;
  st.resolver = self->spawn<caf::detached + caf::linked>(resolver, st.o.client, st.o.operator_namespace,
                                                           st.o.tls_ca_dir);
  std::vector<std::string> nss = st.o.namespaces;
  if (nss.empty()) nss.push_back("");  // all namespaces
  for (const auto& ns : nss) {
    auto refl = std::make_shared<kube::reflector>(*st.o.client, mfg_resource, ns, st.o.reflector);
    st.reflectors.push_back(refl);
    auto w = self->spawn<caf::detached + caf::linked>(watcher, st.o.client, refl,
                                                      group_source_actor{self});
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
        if (type != "DELETED") {
          auto object = json::parse(text, nullptr, false);
          note_admin_annotation(self, object);
          note_fence_annotation(self, object);
        }
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
      [=](annotate_atom, const std::string& key) {
        drive_admin(self, key);
        drive_fence(self, key);
      },
      [=](annotate_atom, const std::string& ns, const std::string& name, const std::string& key,
          const std::string& value) -> caf::result<std::string> {
        return restore_request(self, ns, name, key, value);
      },
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

}  // namespace br::source_detail

namespace br {

child_spec group_source_child(group_source_options o) {
  child_spec c;
  c.name = "group_source";
  c.kind = "group_source";
  c.start = [o](caf::local_actor* sup, const std::string& path) -> caf::actor {
    return as_child(spawn_group_source(sup, o, path));
  };
  return c;
}

group_source_actor spawn_group_source(caf::local_actor* parent, group_source_options o,
                                      std::string path) {
  return parent->spawn(source_detail::group_source, std::move(o), std::move(path));
}

}  // namespace br
