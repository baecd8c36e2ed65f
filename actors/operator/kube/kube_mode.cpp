// Leadership actor: elector -> group source; S8 ordering on loss and on a clean stop.
#include "actors/operator/kube/kube_mode.hpp"

#include <caf/all.hpp>

#include <cstdlib>

#include "actors/common/registry.hpp"
#include "actors/operator/kube/core/leader_elector.hpp"
#include "actors/operator/kube/restore/restore_in_place_pass.hpp"
#include "actors/operator/kube/verify/verify_controller.hpp"
#include "actors/operator/group/site_io.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

struct leadership_state {
  kube_mode_options o;
  std::string path;
  std::string root;  // the parent's path ("root")
  std::shared_ptr<op::lease_guard> guard;
  leader_elector_actor elector;
  group_source_actor source;
  ticking_actor backups;  // the backup controller (detached), while leading
  ticking_actor verifications;  // the verification controller (detached), while leading
  ticking_actor restores;  // the restore controller (detached), while leading
  ticking_actor tls;  // the group TLS controller (detached), while leading
  site_io_actor io;
  /// Counts this process's leaderships; the groups run under the current one (S8).
  uint64_t generation = 0;
  bool leading = false;
  bool stopping = false;
  static inline const char* name = "leadership";
};

using lead_ptr = leadership_actor::stateful_pointer<leadership_state>;

/// The group TLS controller (spec.tls), once per leadership: it writes only while the lease
/// holds (S8).
void start_tls(lead_ptr self) {
  auto& st = self->state;
  if (!st.o.tls || st.tls) return;
  auto to = st.o.tls_options;
  to.client = st.o.source.client;
  to.namespaces = st.o.source.namespaces;
  to.operator_ns = st.o.source.operator_namespace;
  to.ca_dir = st.o.source.tls_ca_dir;  // where the group source points the sessions
  if (to.operator_ns.empty()) {
    log::warn("no operator namespace: the group TLS controller does not run (spec.tls unserved)", {});
    return;
  }
  to.guard = st.guard;
  to.instance = st.o.source.instance;
  st.tls = group_tls::spawn_tls_controller(self->system(), to);
  auto t = st.tls;
  self->attach_functor([t] { caf::anon_send_exit(t, caf::exit_reason::user_shutdown); });
}

void start_source(lead_ptr self) {
  auto& st = self->state;
  auto so = st.o.source;
  so.site_io = st.io;
  so.leader_generation = ++st.generation;
  so.guard = st.guard;
  auto path = st.root + "/group_source";
  st.source = spawn_group_source(self, so, path);
  self->link_to(st.source);  // killed with us; its exit is handled by the down handler
  self->monitor(st.source);
  if (auto r = find_registry(self->system()))
    self->send(r, announce_atom::value,
               actor_entry{path, "group_source", "group_source", st.root, st.source.id()},
               as_child(st.source));
  start_tls(self);
  if (st.o.backups && !st.backups) {
    auto bo = st.o.backup;
    bo.client = st.o.source.client;
    bo.namespaces = st.o.source.namespaces;
    bo.guard = st.guard;  // no backup write once the lease is lost (S8)
    bo.instance = st.o.source.instance;
    if (const char* img = std::getenv("BLOODRAVEN_OPERATOR_IMAGE");
        img && *img && bo.render.image == backup_ctl::render_settings{}.image)
      bo.render.image = img;
    st.backups = backup_ctl::spawn_backup_controller(self->system(), bo);
    auto b = st.backups;
    self->attach_functor([b] { caf::anon_send_exit(b, caf::exit_reason::user_shutdown); });
    // The verification controller (kube/verify/) with the backup controller's options.
    st.verifications = verify_ctl::spawn_verify_controller(self->system(), bo);
    auto v = st.verifications;
    self->attach_functor([v] { caf::anon_send_exit(v, caf::exit_reason::user_shutdown); });
    if (st.o.restores && !st.restores) {
      restore_ctl::controller_options ro;
      ro.client = bo.client;
      ro.namespaces = bo.namespaces;
      ro.guard = bo.guard;  // no restore write once the lease is lost (S8)
      ro.instance = bo.instance;
      ro.interval = bo.interval;
      ro.render = bo.render;
      // spec.restoreInPlace's freeze, lift and reclones go to the group's coordinator through the
      // source (this leadership's; the process exits when it ends).
      ro.ask_group = restore_ctl::ask_through(self->system(), st.source);
      st.restores = restore_ctl::spawn_restore_controller(self->system(), ro);
      auto rs = st.restores;
      self->attach_functor([rs] { caf::anon_send_exit(rs, caf::exit_reason::user_shutdown); });
    }
  }
}

/// Stops the group source (which stops every group first), then `then()`.
void stop_source(lead_ptr self, std::function<void()> then) {
  auto& st = self->state;
  if (!st.source) {
    then();
    return;
  }
  self->request(st.source, st.o.lost_stop_timeout, stop_atom::value)
      .then([=](bool) { then(); },
            [=](caf::error& err) {
              log::error("groups did not stop in time; killing them",
                         {{"error", self->system().render(err)}});
              self->send_exit(self->state.source, caf::exit_reason::kill);
              then();
            });
}

/// Leadership ended (lost, or given up): site_io refuses every MySQL command decided under it from
/// now on, queued ones included, before anything else happens (S8).
void end_leadership(lead_ptr self) {
  auto& st = self->state;
  self->send(st.io, leader_floor_atom::value, st.generation + 1);
}

void clean_stop(lead_ptr self, caf::error reason) {
  auto& st = self->state;
  if (st.stopping) return;
  st.stopping = true;
  end_leadership(self);
  stop_source(self, [=] {
    auto& s = self->state;
    s.source = nullptr;
    if (!s.elector) {
      self->quit(reason);
      return;
    }
    // The lease is released only after every group stopped: its release is our last write.
    self->request(s.elector, s.o.election.renew_deadline + std::chrono::seconds(1), stop_atom::value)
        .then([=]() { self->quit(reason); },
              [=](caf::error&) { self->quit(reason); });
  });
}

leadership_actor::behavior_type leadership(lead_ptr self, kube_mode_options o, std::string path) {
  auto& st = self->state;
  st.o = std::move(o);
  st.path = path;
  st.root = parent_of(path);
  st.io = st.o.source.site_io;
  if (!st.io) {
    st.io = spawn_site_io(self->system());
    auto io = st.io;
    self->attach_functor([io] { caf::anon_send_exit(io, caf::exit_reason::user_shutdown); });
  }
  if (st.o.leader_elect) {
    st.guard = std::make_shared<op::lease_guard>();
    st.elector = self->spawn<caf::detached>(op::leader_elector, st.o.source.client, st.o.election,
                                            st.guard, leadership_actor{self});
    self->monitor(st.elector);
    report_step(self, path, "waiting for the lease " + st.o.election.ns + "/" + st.o.election.name);
    log::info("waiting for the leader lease", {{"lease", st.o.election.name},
                                               {"namespace", st.o.election.ns},
                                               {"identity", st.o.election.identity}});
  } else {
    log::warn("leader election disabled; acting as the only operator", {});
    st.leading = true;
    report_step(self, path, "leading (election disabled)");
    start_source(self);
  }
  self->set_exit_handler([=](caf::exit_msg& em) {
    if (em.reason) clean_stop(self, em.reason);
  });
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& s = self->state;
    if (s.stopping) return;
    if (dm.source == s.elector.address()) {
      s.elector = nullptr;
      if (s.leading) {
        // Same as a loss: the guard may still look valid, so clear it before anything else.
        s.guard->clear();
        log::error("leader elector ended while leading; stopping every group", {});
        clean_stop(self, caf::make_error(caf::sec::runtime_error, "leader elector ended"));
      }
      return;
    }
    if (dm.source == s.source.address()) {
      s.source = nullptr;
      log::error("group source ended", {{"error", dm.reason ? to_string(dm.reason) : "normal"}});
      clean_stop(self, dm.reason ? dm.reason
                                 : caf::make_error(caf::sec::runtime_error, "group source ended"));
    }
  });
  return {
      [=](leading_atom, const std::string& identity) {
        auto& s = self->state;
        if (s.leading || s.stopping) return;
        s.leading = true;
        log::info("leading; starting group work", {{"identity", identity}});
        report_step(self, path, "leading as " + identity);
        start_source(self);
      },
      [=](lost_atom, const std::string& identity) {
        auto& s = self->state;
        s.elector = nullptr;  // it quits after reporting
        end_leadership(self);
        log::error("leader lease lost; stopping every group, then exiting", {{"identity", identity}});
        report_step(self, path, "lease lost; stopping groups");
        s.stopping = true;
        stop_source(self, [=] {
          self->state.source = nullptr;
          log::error("groups stopped after the lease loss; exiting", {});
          self->quit(caf::make_error(caf::sec::runtime_error, "leader lease lost"));
        });
      },
  };
}

}  // namespace

std::vector<child_spec> kube_mode_children(kube_mode_options o) {
  child_spec c;
  c.name = "leadership";
  c.kind = "leadership";
  c.start = [o](caf::local_actor* sup, const std::string& path) -> caf::actor {
    return as_child(sup->spawn(leadership, o, path));
  };
  return {c};
}

}  // namespace br
