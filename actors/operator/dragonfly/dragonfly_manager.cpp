// The Dragonfly manager actor (see dragonfly_manager.hpp).
#include "actors/operator/dragonfly/dragonfly_manager.hpp"

#include <caf/all.hpp>

#include <algorithm>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "actors/common/child_lookup.hpp"
#include "actors/common/registry.hpp"
#include "actors/operator/decide/dragonfly_status.hpp"
#include "actors/operator/dragonfly/dragonfly_metrics.hpp"
#include "config/rfc3339.hpp"
#include "io/log/log.hpp"

namespace br::dragonfly {
namespace {

struct manager_state {
  manager_config cfg;
  child_ref<coordinator_actor> coordinator;
  std::vector<std::unique_ptr<cache_site>> sites;
  std::string master_site;
  int master_unreachable_polls = 0;
  std::optional<bool> takeover_supported;
  std::string takeover_message;
  /// Warning Events repeated every poll while a condition lasts (a stale master, a step that keeps
  /// failing): when each key (reason and site, plus the step) was last reported.
  std::map<std::string, std::chrono::steady_clock::time_point> warned;
  std::set<std::string> rejoinable;  ///< old masters demoted by us after their replica had everything
  std::string last_phase;
  /// The last pass's promotion ("takeover" | "promote" | "") and the error that stopped it ("" none).
  std::string pass_promotion, pass_error;
  std::string takeover_probe_time;
  std::optional<cache_failover> last_failover;
  std::string last_status;  ///< status.dragonfly as last sent
  metrics::labels labels;
  static inline const char* name = "dragonfly_manager";
};

using manager_self = dragonfly_manager_actor::stateful_pointer<manager_state>;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void emit(manager_self self, const std::string& type, const std::string& reason, const std::string& message,
          const std::string& site = "") {
  auto& st = self->state;
  log::info("dragonfly: " + reason, {{"group", st.cfg.group}, {"site", site}, {"message", message}});
  if (!st.cfg.events) return;
  group_event e;
  e.group = st.cfg.group;
  e.type = type;
  e.reason = reason;
  e.message = message;
  e.site = site;
  e.time_ms = now_ms();
  self->send(st.cfg.events, event_atom::value, std::move(e));
}

/// True (and remembered) when `key` was not warned about within stale_event_every.
bool due_warning(manager_state& st, const std::string& key) {
  auto now = std::chrono::steady_clock::now();
  auto it = st.warned.find(key);
  if (it != st.warned.end() && now - it->second < st.cfg.stale_event_every) return false;
  st.warned[key] = now;
  return true;
}

bool planned_failover_running(const config::group_status& gs) {
  if (!gs.planned_failover) return false;
  const auto& p = gs.planned_failover->phase;
  return !p.empty() && p != "Succeeded" && p != "Failed" && p != "Deferred";
}

cache_site* site_of(manager_state& st, const std::string& name) {
  for (auto& s : st.sites)
    if (s->endpoint().site == name) return s.get();
  return nullptr;
}

/// Standalone mode: steers traffic to or away from `site` by the router's check user on that
/// server (messages/dragonfly.hpp traffic_check_user).
std::string traffic(manager_state& st, const std::string& site, bool master, bool on) {
  auto* s = site_of(st, site);
  if (!s) return "unknown site";
  if (master && on)
    return s->run({"ACL", "SETUSER", traffic_check_user, "on", "nopass", "-@all", "+role"}, st.cfg.timeouts.io);
  // No `reset`: Dragonfly's ACL SETUSER does not know it (Valkey does); these tokens mean the same
  // on both.
  return s->run({"ACL", "SETUSER", traffic_check_user, "off"}, st.cfg.timeouts.io);
}

/// Waits until `replica` reached the offset `master` has now, up to `timeout` (maxSyncWait). ""
/// once it has, else why; `rep` gets the offsets (source_offset, target_offset,
/// offset_capture_failed) and the time waited.
std::string wait_sync(manager_state& st, const std::string& replica, const std::string& master,
                      std::chrono::milliseconds timeout, dragonfly_handover_report& rep) {
  auto* r = site_of(st, replica);
  auto* m = site_of(st, master);
  if (!r || !m) return "unknown site";
  const auto start = std::chrono::steady_clock::now();
  auto waited = [&] {
    rep.waited_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
  };
  std::string error;
  auto target = m->observe(error);
  if (!target.reachable || target.info.master_repl_offset < 0) {
    rep.offset_capture_failed = true;
    waited();
    return "cannot read " + master + "'s offset: " + (error.empty() ? "no master_repl_offset" : error);
  }
  rep.source_offset = target.info.master_repl_offset;
  const auto deadline = start + timeout;
  for (;;) {
    auto o = r->observe(error);
    if (o.reachable) rep.target_offset = o.info.replica_offset;
    const bool follows = o.info.role == server_role::replica && o.info.master_host == target.host &&
                         o.info.master_port == static_cast<int64_t>(target.port);
    if (o.reachable && follows && o.info.link_up && o.info.replica_offset >= target.info.master_repl_offset) {
      waited();
      return "";
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      waited();
      return replica + " did not reach " + master + "'s offset " + std::to_string(target.info.master_repl_offset) +
             " within maxSyncWait (" + (o.reachable ? "at " + std::to_string(o.info.replica_offset) : "unreachable: " + error) + ")";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

std::chrono::milliseconds pause_for(const manager_state& st) { return st.cfg.takeover_timeout + st.cfg.timeouts.io; }

action act_on(action_kind k, const std::string& site) {
  action a;
  a.kind = k;
  a.site = site;
  return a;
}

/// Runs one action; "" on success.
std::string apply(manager_self self, const action& a) {
  auto& st = self->state;
  auto* s = a.site.empty() ? nullptr : site_of(st, a.site);
  switch (a.kind) {
    case action_kind::replicaof:
      return s ? s->run({"REPLICAOF", a.host, std::to_string(a.port)}, st.cfg.timeouts.io) : "unknown site";
    case action_kind::promote:
      return s ? s->run({"REPLICAOF", "NO", "ONE"}, st.cfg.timeouts.io) : "unknown site";
    case action_kind::takeover: {
      if (!s) return "unknown site";
      auto secs = std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::seconds>(st.cfg.takeover_timeout).count());
      return s->run({"REPLTAKEOVER", std::to_string(secs)}, st.cfg.takeover_timeout + st.cfg.timeouts.io);
    }
    case action_kind::strip_traffic:
      return st.cfg.pods ? st.cfg.pods.strip(a.site) : traffic(st, a.site, false, false);
    case action_kind::wait_sync: {
      dragonfly_handover_report ignored;
      return wait_sync(st, a.site, a.host, st.cfg.takeover_timeout, ignored);
    }
    case action_kind::pause_writes:
      return s ? s->run({"CLIENT", "PAUSE", std::to_string(pause_for(st).count()), "WRITE"}, st.cfg.timeouts.io)
               : "unknown site";
    case action_kind::unpause_writes:
      return s ? s->run({"CLIENT", "UNPAUSE"}, st.cfg.timeouts.io) : "unknown site";
    case action_kind::client_kill:
      return s ? s->run({"CLIENT", "KILL", "TYPE", "NORMAL"}, st.cfg.timeouts.io) : "unknown site";
    case action_kind::label_master:
      if (st.cfg.pods) return st.cfg.pods.label_master(a.site);
      for (const auto& e : st.sites) {
        const bool m = e->endpoint().site == a.site;
        // Only the new master's must succeed: the others are replicas (ROLE fails their check
        // anyway) or unreachable (a later strip or label reaches them).
        if (auto err = traffic(st, e->endpoint().site, m, m); m && !err.empty()) return err;
      }
      return "";
    case action_kind::event: {
      if (a.reason == "DragonflyStaleMaster") {  // once per site per stale_event_every
        if (due_warning(st, a.reason + ":" + a.site))
          emit(self, a.event_type, a.reason, a.message, a.site);
        return "";
      }
      emit(self, a.event_type, a.reason, a.message);
      return "";
    }
  }
  return "";
}

void run_pass(manager_self self, const config::group_status& gs) {
  auto& st = self->state;
  // Every site at once: a hung server costs one deadline, not one per site.
  std::vector<std::future<std::pair<site_observation, std::string>>> reads;
  for (auto& s : st.sites)
    reads.push_back(std::async(std::launch::async, [p = s.get()] {
      std::string error;
      auto o = p->observe(error);
      return std::make_pair(std::move(o), std::move(error));
    }));
  steer_input in;
  for (auto& r : reads) {
    auto [o, error] = r.get();
    if (!o.reachable) log::debug("dragonfly: site unreachable", {{"site", o.site}, {"error", error}});
    in.sites.push_back(std::move(o));
  }
  if (!st.takeover_supported)
    for (const auto& o : in.sites)
      if (o.reachable) {
        st.takeover_supported = site_of(st, o.site)->probe_takeover(st.takeover_message);
        if (st.takeover_supported) {
          st.takeover_probe_time = config::format_rfc3339(config::timestamp{std::chrono::milliseconds(now_ms())});
          emit(self, "Normal", "DragonflyCapability", st.takeover_message, o.site);
          metrics::set_takeover_supported(st.labels, *st.takeover_supported);
        }
        break;
      }
  if (!st.master_site.empty()) {
    bool reachable = false;
    for (const auto& o : in.sites)
      if (o.site == st.master_site) reachable = o.reachable;
    st.master_unreachable_polls = reachable ? 0 : st.master_unreachable_polls + 1;
  }
  in.master_site = st.master_site;
  in.mysql_active = gs.active_site;
  in.master_unreachable_polls = st.master_unreachable_polls;
  in.lost_after_polls = st.cfg.lost_after_polls;
  in.takeover_supported = st.takeover_supported.value_or(false);
  in.paused = planned_failover_running(gs);
  // A demoted old master stays rejoinable until it is seen following someone again.
  for (const auto& o : in.sites)
    if (o.reachable && o.info.role == server_role::replica) st.rejoinable.erase(o.site);
  in.rejoinable.assign(st.rejoinable.begin(), st.rejoinable.end());
  auto plan = plan_steering(in);
  metrics::observe_plan(st.labels, plan);
  // The record follows what the servers are: a new master is recorded the moment its promotion
  // succeeded (a later step failing must not leave it unrecorded: it would look stale), an
  // adopted one at once.
  const bool promotes = std::any_of(plan.actions.begin(), plan.actions.end(), [](const action& a) {
    return a.kind == action_kind::promote || a.kind == action_kind::takeover;
  });
  const std::string old_master = st.master_site;
  auto record = [&](const std::string& m) {
    if (m == st.master_site) return;
    st.master_site = m;
    st.master_unreachable_polls = 0;
  };
  if (!promotes && !in.paused) record(plan.master_site);
  bool stripped_and_synced = false;
  std::string paused;  // a site whose client writes this pass paused (lifted when a later step fails)
  st.pass_promotion.clear();
  st.pass_error.clear();
  for (const auto& a : plan.actions) {
    const char* promotion = a.kind == action_kind::promote ? "promote" : a.kind == action_kind::takeover ? "takeover" : nullptr;
    if (auto err = apply(self, a); !err.empty()) {
      if (promotion) metrics::count_promotion(st.labels, a.site, promotion, false);
      metrics::count_action_failure(st.labels, std::string(metrics::action_name(a.kind)).c_str());
      if (a.best_effort) {
        log::info("dragonfly: best-effort step failed", {{"group", st.cfg.group}, {"site", a.site}, {"error", err}});
        continue;
      }
      // Once per site and step per stale_event_every: a step failing every poll is one Warning
      // (the log, the metric and status.dragonfly still show every attempt).
      if (due_warning(st, "DragonflyActionFailed:" + a.site + ":" +
                              std::string(metrics::action_name(a.kind))))
        emit(self, "Warning", "DragonflyActionFailed",
             std::string("on ") + a.site + ": " + err + " (the next poll decides again)", a.site);
      st.pass_error = std::string(metrics::action_name(a.kind)) + " on " + a.site + ": " + err;
      if (!paused.empty()) apply(self, act_on(action_kind::unpause_writes, paused));  // best effort
      break;
    }
    if (a.kind == action_kind::pause_writes) paused = a.site;
    if (a.kind == action_kind::unpause_writes) paused.clear();
    if (a.kind == action_kind::wait_sync) stripped_and_synced = true;
    if (promotion) st.pass_promotion = promotion;
    if (promotion) {
      metrics::count_promotion(st.labels, a.site, promotion, true);
      record(a.site);
      // Its replica had every write of the old master (REPLTAKEOVER, or traffic stopped and
      // caught up): the old master may follow the new one later without losing anything.
      const bool preserved = a.kind == action_kind::takeover || stripped_and_synced;
      if (!old_master.empty() && old_master != a.site && preserved) st.rejoinable.insert(old_master);
      st.last_failover = cache_failover{config::format_rfc3339(config::timestamp{std::chrono::milliseconds(now_ms())}),
                                        old_master, a.site,
                                        a.kind == action_kind::takeover ? "REPLTAKEOVER" : "REPLICAOF NO ONE",
                                        preserved ? "MovedToActiveSite" : "MasterLost", preserved};
    }
  }
  if (st.cfg.status) {
    status_facts f{st.master_site, st.takeover_supported, st.takeover_message, st.takeover_probe_time,
                   st.last_failover};
    if (auto text = status_json(in, plan, f).dump(); text != st.last_status) {
      st.last_status = text;
      self->send(st.cfg.status, dragonfly_atom::value, std::move(text));
    }
  }
  if (plan.phase != st.last_phase) {
    st.last_phase = plan.phase;
    log::info("dragonfly: phase", {{"group", st.cfg.group}, {"phase", plan.phase}, {"reason", plan.phase_reason},
                                    {"master", st.master_site}});
  }
  report_step(self, st.cfg.path, plan.phase + (st.master_site.empty() ? "" : ", master " + st.master_site));
}

/// A planned failover's cache step (dragonfly_handover.hpp), in this detached actor's thread:
/// sync waits (bounded) until the target's replica reached the recorded master's offset; promote
/// runs one steering pass as if MySQL's active site were already the target (it is: MySQL's
/// switchover completed) and reports whether the master is there now.
dragonfly_handover_report handover(manager_self self, const dragonfly_handover_request& q) {
  auto& st = self->state;
  dragonfly_handover_report rep;
  rep.promote = q.promote;
  rep.request = q.request;
  rep.master = st.master_site;
  if (!site_of(st, q.target)) {
    rep.error = "no cache server is configured for site " + q.target;
    return rep;
  }
  if (!q.promote) {
    if (st.master_site.empty()) {
      rep.offset_capture_failed = true;
      rep.error = "no cache master is recorded yet (the manager has not chosen one)";
      return rep;
    }
    if (st.master_site == q.target) {  // nothing to catch up with: the target is the master
      rep.ok = true;
      return rep;
    }
    auto err = wait_sync(st, q.target, st.master_site, std::chrono::milliseconds(std::max<int64_t>(0, q.max_wait_ms)), rep);
    rep.ok = err.empty();
    rep.error = err;
    return rep;
  }
  const auto before = st.master_site;
  config::group_status gs;
  gs.active_site = q.target;  // no plannedFailover: this pass may act
  run_pass(self, gs);
  rep.master = st.master_site;
  std::string ignored;
  if (auto o = site_of(st, q.target)->observe(ignored); o.reachable) rep.target_offset = o.info.master_repl_offset;
  rep.ok = st.master_site == q.target;
  rep.method = st.pass_promotion == "takeover" ? "REPLTAKEOVER"
               : st.pass_promotion == "promote" ? "REPLICAOF NO ONE"
               : before == q.target             ? "skipped"
                                                : "";
  if (!rep.ok)
    rep.error = !st.pass_error.empty() ? st.pass_error
                                       : "the cache master stays on " + (st.master_site.empty() ? std::string("no site") : st.master_site) +
                                             ": the replica on " + q.target + " is not ready (" + st.last_phase + ")";
  return rep;
}

dragonfly_manager_actor::behavior_type manager(manager_self self, manager_config cfg, caf::actor supervisor) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.coordinator = child_ref<coordinator_actor>(std::move(supervisor), "coordinator");
  st.labels = {st.cfg.namespace_name, st.cfg.group};
  self->set_down_handler([=](caf::down_msg& dm) { self->state.coordinator.on_down(dm); });
  for (const auto& e : st.cfg.sites)
    st.sites.push_back(std::make_unique<cache_site>(e, st.cfg.password, st.cfg.timeouts));
  announce(self, st.cfg.path, "dragonfly_manager");
  report_step(self, st.cfg.path, "starting");
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) {
        auto next = [=] { self->delayed_send(self, self->state.cfg.interval, tick_atom::value); };
        self->state.coordinator.with(
            self,
            [=](const coordinator_actor& c) {
              self->request(c, std::chrono::seconds(2), status_atom::value)
                  .then(
                      [=](config::group_status gs) {
                        try {
                          run_pass(self, gs);
                        } catch (const std::exception& e) {  // the next poll comes anyway
                          metrics::count_poll_error(self->state.labels);
                          log::error("dragonfly: poll failed", {{"group", self->state.cfg.group}, {"error", e.what()}});
                        }
                        next();
                      },
                      [=](caf::error& err) {
                        log::warn("dragonfly: no status from the coordinator; this poll is skipped",
                                  {{"group", self->state.cfg.group}, {"error", caf::to_string(err)}});
                        next();
                      });
            },
            next);
      },
      [=](handover_atom, const dragonfly_handover_request& q) -> dragonfly_handover_report {
        try {
          return handover(self, q);
        } catch (const std::exception& e) {
          dragonfly_handover_report rep;
          rep.promote = q.promote;
          rep.request = q.request;
          rep.error = std::string("the Dragonfly manager failed: ") + e.what();
          return rep;
        }
      },
  };
}

}  // namespace

child_spec manager_child(manager_config cfg) {
  return {"dragonfly", "dragonfly_manager", [cfg](caf::local_actor* sup, const std::string& p) -> caf::actor {
            auto c = cfg;
            c.path = p;
            return as_child(sup->spawn<caf::detached>(manager, c, supervisor_handle(sup)));
          }};
}

}  // namespace br::dragonfly
