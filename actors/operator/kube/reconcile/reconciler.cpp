// reconciler: a non-blocking front that runs passes in its detached worker and takes rollout steps.
#include "actors/operator/kube/reconcile/reconciler.hpp"

#include <caf/all.hpp>

#include "actors/common/child_lookup.hpp"
#include "actors/common/registry.hpp"
#include "actors/operator/decide/gr_route.hpp"
#include "actors/operator/kube/reconcile/gr_ordered_update.hpp"
#include "actors/operator/decide/restore_freeze.hpp"
#include "actors/operator/kube/reconcile/reconcile_worker.hpp"
#include "config/render/traffic.hpp"
#include "config/rfc3339.hpp"
#include "io/log/log.hpp"
#include "actors/common/wall_clock.hpp"

namespace br {

using nlohmann::json;

namespace {

const json* site_status(const json& status, const std::string& name) {
  if (!status.is_object() || !status.contains("sites") || !status["sites"].is_array())
    return nullptr;
  for (const auto& s : status["sites"])
    if (s.is_object() && s.value("name", "") == name) return &s;
  return nullptr;
}

int64_t unix_ms(const std::string& rfc3339) {
  auto t = config::parse_rfc3339(rfc3339);
  if (!t) return 0;
  return std::chrono::duration_cast<std::chrono::milliseconds>(t->time_since_epoch()).count();
}


}  // namespace

rollout_inputs rollout_facts(const config::group_spec& spec, const json& report,
                             const json& coordinator_status, const topology_view& view) {
  rollout_inputs in;
  in.strategy = spec.update_strategy;
  in.active_site = view.active_site;
  in.transition = view.active_site.empty() && !view.deposing.empty();
  for (const auto& s : spec.sites) {
    rollout_site r;
    r.name = s.name;
    r.role = s.role;
    if (report.contains("sites"))
      for (const auto& w : report["sites"])
        if (w.value("name", "") == s.name) {
          r.drifted = !w.value("drift", json::array()).empty();
          r.workload_ready = w.value("ready", false);
        }
    if (const auto* st = site_status(coordinator_status, s.name)) {
      r.state = st->value("state", "unknown");
      r.replicating = st->value("replicating", false);
      if (st->contains("secondsBehindSource") && (*st)["secondsBehindSource"].is_number_integer())
        r.lag_seconds = (*st)["secondsBehindSource"].get<int64_t>();
      if (st->contains("lastSeen") && (*st)["lastSeen"].is_string())
        r.last_seen_ms = unix_ms((*st)["lastSeen"].get<std::string>());
      r.recovering = st->value("recoveryState", "") == "RecoveryInProgress";
    }
    in.sites.push_back(r);
  }
  return in;
}

std::vector<std::string> healthy_replicas(const config::group_spec& spec, const json& status,
                                          const std::string& active_site) {
  std::vector<std::string> out;
  for (const auto& s : spec.sites) {
    if (s.name == active_site) continue;
    const auto* st = site_status(status, s.name);
    if (!st || st->value("state", "") != "read-only" || !st->value("replicating", false)) continue;
    if (st->value("recoveryState", "") == "RecoveryInProgress") continue;
    if (st->value("manuallyFenced", false)) continue;  // fenced by request: out of routing
    if (st->value("restorePending", false)) continue;  // may hold what an in-place restore discarded
    int64_t max_lag = spec.replication.max_lag_seconds;
    if (s.role == site_role::read_only && spec.replication.read_only_max_lag_seconds)
      max_lag = *spec.replication.read_only_max_lag_seconds;
    if (!st->contains("secondsBehindSource") || !(*st)["secondsBehindSource"].is_number_integer() ||
        (*st)["secondsBehindSource"].get<int64_t>() > max_lag)
      continue;
    out.push_back(s.name);
  }
  return out;
}

json reconciler_status(const json& report, const std::string& update_phase, const json& previous,
                       const std::string& now, const std::string& blocked_reason) {
  const auto state = report.value("state", "error");
  const json errors = report.value("errors", json::array());
  std::string problems;
  for (const auto& e : errors) problems += (problems.empty() ? "" : "; ") + e.get<std::string>();
  bool ok = state == "ok" && errors.empty();
  bool all_ready = report.contains("sites") && !report["sites"].empty();
  std::string not_ready;
  if (report.contains("sites"))
    for (const auto& s : report["sites"]) {
      bool ready = s.value("exists", false) && s.value("ready", false) &&
                   s.value("drift", json::array()).empty();
      if (!ready) {
        all_ready = false;
        not_ready += (not_ready.empty() ? "" : ", ") + s.value("name", "");
      }
    }
  auto previous_since = [&](const std::string& type, const std::string& status) {
    if (previous.is_object() && previous.contains("conditions"))
      for (const auto& c : previous["conditions"])
        if (c.value("type", "") == type && c.value("status", "") == status)
          return c.value("lastTransitionTime", now);
    return now;
  };
  auto condition = [&](const std::string& type, bool is_true, const std::string& reason,
                       const std::string& message) {
    std::string status = is_true ? "True" : "False";
    return json{{"type", type},
                {"status", status},
                {"reason", reason},
                {"message", message},
                {"lastTransitionTime", previous_since(type, status)}};
  };
  json out;
  out["conditions"] = json::array(
      {condition(condition_workload_ready, all_ready,
                 all_ready ? "WorkloadReady"
                           : (update_phase.empty() ? "WorkloadNotReady" : "RolloutInProgress"),
                 all_ready ? "every site's Deployment is rolled out and ready"
                           : "not ready or not rolled out: " + not_ready +
                                 (blocked_reason.empty() ? "" : "; update blocked: " + blocked_reason)),
       condition(condition_reconcile_success, ok, ok ? "ReconcileSucceeded" : reason_reconcile_failed,
                 ok ? "every object is as rendered" : problems)});
  out["updatePhase"] = update_phase;
  if (ok)
    out["reconcileInfo"] = {{"reconcilerVersion", report.value("version", 0)},
                            {"generation", report.value("generation", int64_t{0})}};
  else if (previous.is_object() && previous.contains("reconcileInfo"))
    out["reconcileInfo"] = previous["reconcileInfo"];
  return out;
}

namespace {

struct reconciler_state {
  reconciler_options o;
  reconcile_worker_actor worker;
  child_ref<coordinator_actor> coordinator;  ///< found by asking the group supervisor
  bool in_pass = false;
  std::string rolling;  // rolled, not yet confirmed caught up
  int64_t rolled_at_ms = 0;
  std::string view_id;         // Group Replication: the agreed view id of this pass
  std::string rolled_view_id;  // ... when `rolling` was rolled
  std::string phase;
  std::string blocked_reason;  // the update's reason while its phase is Blocked
  std::string last_stopped;    // the last RolloutStopped reason (one Event per stop)
  json last_part;             // the status part last sent
  std::string last_problem;   // last ReconcileFailed message (Events once per problem)
  uint64_t passes = 0;
  static inline const char* name = "reconciler";
};

using rec_ptr = reconciler_actor::stateful_pointer<reconciler_state>;

json fields(rec_ptr self) {
  return {{"group", self->state.o.platform.group}, {"namespace", self->state.o.platform.ns}};
}

void emit(rec_ptr self, const std::string& type, const std::string& reason,
          const std::string& message, const std::string& site = "") {
  if (!self->state.o.events) return;
  group_event ev;
  ev.group = self->state.o.platform.group;
  ev.type = type;
  ev.reason = reason;
  ev.message = message;
  ev.site = site;
  ev.time_ms = br::unix_ms(self->state.o.wall_clock);
  self->send(self->state.o.events, event_atom::value, ev);
}

void schedule(rec_ptr self) {
  auto& st = self->state;
  auto next = st.phase.empty() && st.rolling.empty() ? st.o.interval : st.o.busy_interval;
  self->delayed_send(self, next, tick_atom::value);
}

void finish(rec_ptr self, const json& report) {
  auto& st = self->state;
  auto part = reconciler_status(report, st.phase, st.last_part, rfc3339_seconds(st.o.wall_clock),
                                st.blocked_reason);
  if (part != st.last_part && st.o.status) {
    st.last_part = part;
    self->send(st.o.status, reconcile_atom::value, part.dump());
  }
  const auto state = report.value("state", "error");
  std::string problem;
  for (const auto& e : report.value("errors", json::array()))
    problem += (problem.empty() ? "" : "; ") + e.get<std::string>();
  if (state != "ok" && state != "invalid" && !problem.empty()) {
    if (problem != st.last_problem) {
      auto f = fields(self);
      f["error"] = problem;
      log::warn("reconcile failed", f);
      emit(self, "Warning", reason_reconcile_failed, problem);
      report_error(self, st.o.path, problem);
    }
    st.last_problem = problem;
  } else {
    st.last_problem.clear();
  }
  ++st.passes;
  report_step(self, st.o.path,
              "pass " + std::to_string(st.passes) + ": " + state +
                  (st.phase.empty() ? "" : ", update " + st.phase) +
                  (st.rolling.empty() ? "" : ", rolled " + st.rolling));
  st.in_pass = false;
  schedule(self);
}

void take_step(rec_ptr self, const json& report, const rollout_step& step) {
  auto& st = self->state;
  if (step.rolling_done) st.rolling.clear();
  st.phase = step.phase;
  st.blocked_reason = step.phase == "Blocked" ? step.reason : std::string{};
  if (step.stopped && step.reason != st.last_stopped) {
    auto f = fields(self);
    f["reason"] = step.reason;
    log::warn("update stopped", f);
    emit(self, "Warning", reason_rollout_stopped, step.reason);
  }
  st.last_stopped = step.stopped ? step.reason : std::string{};
  int version = report.value("version", 0);
  switch (step.action) {
    case rollout_action::idle:
    case rollout_action::wait:
      if (step.action == rollout_action::wait) {
        auto f = fields(self);
        f["phase"] = step.phase;
        f["reason"] = step.reason;
        log::info("update waiting", f);
      }
      finish(self, report);
      return;
    case rollout_action::roll: {
      auto sites = step.sites;
      auto remaining = std::make_shared<size_t>(sites.size());
      auto budget = st.o.platform.call_timeout * 14;
      for (const auto& site : sites)
        self->request(st.worker, budget, roll_atom::value, version, site)
            .then(
                [=](const std::string& problem) {
                  auto f = fields(self);
                  f["site"] = site;
                  if (problem.empty()) {
                    log::info("workload rolled", f);
                    emit(self, "Normal", reason_workload_rolled,
                         "rolled " + site + "'s Deployment (" + step.reason + ")", site);
                    if (sites.size() == 1) {
                      self->state.rolling = site;
                      self->state.rolled_at_ms = br::unix_ms(self->state.o.wall_clock);
                      self->state.rolled_view_id = self->state.view_id;
                    }
                  } else {
                    f["error"] = problem;
                    log::warn("workload roll failed", f);
                  }
                  if (--*remaining == 0) finish(self, report);
                },
                [=](caf::error& e) {
                  auto f = fields(self);
                  f["site"] = site;
                  f["error"] = to_string(e);
                  log::warn("workload roll failed", f);
                  if (--*remaining == 0) finish(self, report);
                });
      return;
    }
    case rollout_action::switchover: {
      auto coord = st.coordinator.current();
      if (!coord) {
        finish(self, report);
        return;
      }
      auto target = step.target;
      self->request(coord, st.o.coordinator_timeout, switchover_atom::value, target)
          .then(
              [=](const std::string& answer) {
                auto f = fields(self);
                f["target"] = target;
                f["answer"] = answer;
                log::info("update handoff requested", f);
                if (answer.rfind("accepted", 0) == 0)
                  emit(self, "Normal", reason_planned_failover_started,
                       "ordered update: " + step.reason, target);
                finish(self, report);
              },
              [=](caf::error& e) {
                auto f = fields(self);
                f["error"] = to_string(e);
                log::warn("update handoff request failed", f);
                finish(self, report);
              });
      return;
    }
  }
}

/// Pod labels, DNS and taints follow only a settled view whose active site the coordinator's
/// last poll saw writable: during a transition the executor steers (after its confirm, S9), and
/// nothing may point at a deposed primary.
bool steering_settled(const json& status, const topology_view& view) {
  if (view.active_site.empty() || !view.deposing.empty()) return false;
  const auto* st = site_status(status, view.active_site);
  return st && st->value("state", "") == "writable";
}

bool restore_frozen(const json& status) {
  for (const auto& c : status.value("conditions", json::array()))
    if (c.is_object() && c.value("type", "") == restore_frozen_condition && c.value("status", "") == "True")
      return true;
  return false;
}

}  // namespace

std::optional<steering_target> async_steering(const config::group_spec& spec, const json& status,
                                              const topology_view& view) {
  if (restore_frozen(status))
    return steering_target{"", healthy_replicas(spec, status, view.active_site)};
  if (!steering_settled(status, view)) return std::nullopt;
  return steering_target{view.active_site, healthy_replicas(spec, status, view.active_site)};
}

namespace {

/// Heals what a failed or missed steering write left behind (all three are idempotent and
/// write nothing when already right): pod labels, the DNSEndpoint, the node taints. `primary`
/// "" (a Group Replication view not yet following its PRIMARY): the labels only.
void heal_steering(rec_ptr self, const config::group_spec& spec, const std::string& primary,
                   const std::vector<std::string>& replicas) {
  auto& s = self->state;
  auto timeout = s.o.platform.call_timeout * 4;
  const auto& group = s.o.platform.group;
  if (s.o.router)
    self->request(s.o.router, timeout, route_atom::value, group, primary, replicas)
        .then([](bool) {}, [](caf::error&) {});
  if (primary.empty()) return;
  const auto* active = config::find_site(spec, primary);
  if (s.o.dns && active && !active->lb_ip.empty())
    self->request(s.o.dns, timeout, dns_atom::value, group, primary, active->lb_ip)
        .then([](bool) {}, [](caf::error&) {});
  if (s.o.taints)
    for (const auto& t : render::plan_taints(spec, primary))
      self->request(s.o.taints, timeout, taint_atom::value, group, t.site, t.tainted)
          .then([](bool) {}, [](caf::error&) {});
}

void with_coordinator(rec_ptr self, const json& report, const config::failover_group& g,
                      const coordinator_actor& coord);

/// The pass report is in; the coordinator's view and status decide what else to do.
void after_pass(rec_ptr self, const json& report) {
  auto& st = self->state;
  auto g = st.o.platform.context ? st.o.platform.context->get() : config::failover_group{};
  if (report.value("state", "") != "ok" || g.spec.sites.empty()) {
    finish(self, report);
    return;
  }
  st.coordinator.with(
      self, [=](const coordinator_actor& coord) { with_coordinator(self, report, g, coord); },
      [=] { finish(self, report); });
}

void with_coordinator(rec_ptr self, const json& report, const config::failover_group& g,
                      const coordinator_actor& coord) {
  self->request(coord, self->state.o.coordinator_timeout, view_atom::value)
      .then(
          [=](const topology_view& view) {
            self->request(coord, self->state.o.coordinator_timeout, status_atom::value)
                .then(
                    [=](const config::group_status& value) {
                      auto& s = self->state;
                      json status = value;  // the rollout rules read it as the CR shows it
                      if (value.group_replication) {
                        // The agreed view only (an unknown one changes nothing); the group
                        // elects and fences itself, so no deposing view is waited for.
                        if (auto r = gr_route_of(*value.group_replication, value.active_site))
                          heal_steering(self, g.spec, r->primary, r->secondaries);
                      } else if (auto t = async_steering(g.spec, status, view)) {
                        heal_steering(self, g.spec, t->primary, t->replicas);
                      }
                      if (value.group_replication) {
                        // One member at a time, the primary last after a switchover, each
                        // restart only while the rest keep the majority (decide/gr_rollout).
                        auto f = gr_rollout_facts(g.spec, report, value);
                        f.rolling = s.rolling;
                        f.rolled_at_ms = s.rolled_at_ms;
                        f.rolled_view_id = s.rolled_view_id;
                        s.view_id = f.view_id;
                        f.now_ms = br::unix_ms(s.o.wall_clock);
                        f.rejoin_timeout_ms = s.o.gr_rejoin_timeout.count();
                        take_step(self, report,
                                  gr_rollout_step(hold_for_scale_down(gr::next_gr_rollout(f), value)));
                        return;
                      }
                      auto in = rollout_facts(g.spec, report, status, view);
                      in.rolling = s.rolling;
                      in.rolled_at_ms = s.rolled_at_ms;
                      in.caught_up_lag_seconds = s.o.caught_up_lag_seconds;
                      take_step(self, report, next_rollout_step(in));
                    },
                    [=](caf::error&) { finish(self, report); });
          },
          [=](caf::error&) { finish(self, report); });
}

void pass(rec_ptr self) {
  auto& st = self->state;
  if (st.in_pass) return;
  st.in_pass = true;
  // A pass is a few dozen bounded calls; the budget only catches a wedged worker.
  auto budget = st.o.platform.call_timeout * 64;
  self->request(st.worker, budget, reconcile_atom::value)
      .then(
          [=](const std::string& text) {
            auto report = json::parse(text, nullptr, false);
            if (report.is_discarded()) report = {{"state", "error"}, {"errors", {"bad report"}}};
            after_pass(self, report);
          },
          [=](caf::error& e) {
            finish(self, {{"state", "error"}, {"errors", {"reconcile pass: " + to_string(e)}}});
          });
}

reconciler_actor::behavior_type reconciler(rec_ptr self, reconciler_options o) {
  self->state.o = std::move(o);
  auto& st = self->state;
  st.coordinator = child_ref<coordinator_actor>(st.o.supervisor, "coordinator");
  self->set_down_handler([=](caf::down_msg& dm) { self->state.coordinator.on_down(dm); });
  st.worker = st.o.make_worker
                  ? st.o.make_worker(self)
                  : self->spawn<caf::detached + caf::linked>(reconcile_worker, st.o.platform);
  announce(self, st.o.path, "reconciler");
  report_step(self, st.o.path, "starting");
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) { pass(self); },
  };
}

}  // namespace

reconciler_actor spawn_reconciler(caf::actor_system& sys, reconciler_options o) {
  return sys.spawn(reconciler, std::move(o));
}

child_spec reconciler_child(reconciler_options o) {
  child_spec c;
  c.name = "reconciler";
  c.kind = "reconciler";
  c.start = [o](caf::local_actor* sup, const std::string& path) -> caf::actor {
    auto cfg = o;
    cfg.path = path;
    cfg.supervisor = supervisor_handle(sup);  // its siblings are found by asking it
    return as_child(sup->spawn(reconciler, cfg));
  };
  return c;
}

}  // namespace br
