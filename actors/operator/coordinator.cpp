// coordinator: evaluates reports, persists before publishing, starts and tracks plans.
#include "actors/operator/coordinator.hpp"
#include "actors/operator/view_push.hpp"

#include <caf/all.hpp>

#include <algorithm>

#include "actors/common/registry.hpp"
#include "actors/operator/cooldown.hpp"
#include "actors/operator/coordinator_decide.hpp"
#include "actors/operator/evaluate.hpp"
#include "actors/operator/operator_metrics.hpp"
#include "actors/operator/primary_reassert.hpp"
#include "actors/operator/rank_candidates.hpp"
#include "actors/operator/reclone_token.hpp"
#include "actors/operator/recovery.hpp"
#include "actors/operator/split_brain.hpp"
#include "actors/operator/switchover_request.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

using namespace std::chrono;
using self_ptr = caf::stateful_actor<coordinator_state>*;
using status_flush_atom = caf::atom_constant<caf::atom("stflush")>;

// -- small utilities -----------------------------------------------------------------------------

wall_time wall_now(self_ptr self) {
  auto& f = self->state.cfg.wall_clock;
  return f ? f() : caf::make_timestamp();
}

int64_t to_ms(wall_time t) {
  return duration_cast<milliseconds>(t.time_since_epoch()).count();
}

std::optional<wall_time> last_failover(const durable_state& d) {
  if (d.last_failover_ms == 0) return std::nullopt;
  return wall_time(duration_cast<wall_time::duration>(milliseconds(d.last_failover_ms)));
}

opmetrics::group_labels labels(self_ptr self) {
  return {self->state.cfg.namespace_name, self->state.cfg.group};
}

nlohmann::json fields(self_ptr self, const std::string& site = "") {
  nlohmann::json f = {{"group", self->state.cfg.group}, {"epoch", self->state.view.epoch}};
  if (!site.empty()) f["site"] = site;
  return f;
}

site_role role_of(self_ptr self, const std::string& site) {
  auto it = self->state.cfg.roles.find(site);
  return it == self->state.cfg.roles.end() ? site_role::primary_candidate : it->second;
}

void emit(self_ptr self, const std::string& type, const std::string& reason,
          const std::string& message, const std::string& site = "") {
  group_event ev;
  ev.group = self->state.cfg.group;
  ev.type = type;
  ev.reason = reason;
  ev.message = message;
  ev.site = site;
  ev.epoch = self->state.view.epoch;
  ev.time_ms = to_ms(wall_now(self));
  if (self->state.cfg.deps.platform.events)
    self->send(self->state.cfg.deps.platform.events, event_atom::value, std::move(ev));
}

/// Raises an Event once per situation (`key`); the key is cleared when the group is healthy.
void alert_once(self_ptr self, const std::string& key, const std::string& type,
                const std::string& reason, const std::string& message,
                const std::string& site = "") {
  if (!self->state.alerts.insert(key).second) return;
  auto f = fields(self, site);
  f["reason"] = reason;
  log::warn(message, f);
  emit(self, type, reason, message, site);
}

// -- status --------------------------------------------------------------------------------------

std::string status_json(self_ptr self) {
  auto& st = self->state;
  status_inputs in;
  in.sites = st.cfg.sites;
  in.roles = st.cfg.roles;
  in.reports = st.reports;
  in.good_probes = st.good_probes;
  in.last_seen_ms = st.last_seen_ms;
  in.durable = st.durable;
  in.view = st.view;
  in.evaluation = st.evaluation;
  in.evaluated = st.evaluated;
  nlohmann::json j = build_group_status(in);
  return j.dump();
}

void flush_status(self_ptr self) {
  auto& st = self->state;
  st.status_flush_scheduled = false;
  auto json = status_json(self);
  if (json == st.last_status) return;
  st.last_status = json;
  if (st.cfg.deps.platform.status)
    self->send(st.cfg.deps.platform.status, status_atom::value, st.cfg.group, std::move(json));
}

void status_changed(self_ptr self, bool now) {
  auto& st = self->state;
  if (now) {
    flush_status(self);
    return;
  }
  if (st.status_flush_scheduled) return;
  st.status_flush_scheduled = true;
  self->delayed_send(self, st.cfg.status_coalesce, status_flush_atom::value);
}

// -- durable state -------------------------------------------------------------------------------

bool busy(self_ptr self);
mysql_command command_for(self_ptr self, mysql_op op, const std::string& site);
caf::timespan request_timeout(self_ptr self);

/// Tells every sidecar the view just published (PUT /view) when it names an active site, best
/// effort and without retries: the sidecars also pull it every tick. A promoting view reaches the new primary's sidecar before its
/// next pull, so rule 1 there never sees a stale view naming the old primary. The executor's own
/// deposing pushes (with retries and acknowledgements) are what the gate counts.
void push_view_to_sidecars(self_ptr self) {
  auto& st = self->state;
  // Transitional (deposing) views are pushed by the executor, which tracks them: one arriving at
  // the candidate's sidecar after the promotion would make it fence the new primary.
  if (!st.cfg.deps.http_worker || st.view.active_site.empty()) return;
  auto timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(st.cfg.deps.sidecar_request_timeout);
  for (const auto& [site, addr] : st.cfg.deps.sidecars) {
    if (addr.empty() || !st.push_inflight.insert(site).second) continue;
    auto& w = (*st.push_workers)[site];
    if (!w) w = st.cfg.deps.http_worker();
    auto view = st.view;
    auto s = site;
    self->request(w, st.cfg.deps.sidecar_request_timeout + std::chrono::seconds(1),
                  http_call_atom::value,
                  view_push_call(addr, st.cfg.deps.sidecar_token, view, timeout))
        .then(
            [=](const http_reply& r) {
              self->state.push_inflight.erase(s);
              auto a = parse_view_ack(s, view, r);
              auto f = fields(self, s);
              f["viewEpoch"] = view.epoch;
              f["acked"] = a.acked;
              if (!a.acked) f["error"] = a.error;
              log::debug("view pushed to sidecar", f);
            },
            [=](caf::error&) { self->state.push_inflight.erase(s); });
  }
}

/// After a good poll of the active site: refresh its dead man's switch heartbeat (rule 7), and
/// once a minute make sure the switch exists and is armed (Event DeadMansSwitchNotArmed if not).
/// Never while deposing or while a plan runs: the operator vouches only for the site it holds
/// active. The write lands within the command timeout, which rule 3's wait already covers.
void maybe_heartbeat(self_ptr self, const std::string& site, const site_report& r) {
  auto& st = self->state;
  if (!r.probe_ok || !r.probe.writable() || site != st.view.active_site ||
      !st.view.deposing.empty() || busy(self))
    return;
  if (!st.heartbeat_inflight.insert(site).second) return;
  auto now = self->clock().now();
  auto checked = st.switch_checked.find(site);
  bool ensure = checked == st.switch_checked.end() || now - checked->second >= std::chrono::minutes(1);
  if (ensure) st.switch_checked[site] = now;
  auto cmd = command_for(self, ensure ? mysql_op::ensure_switch : mysql_op::heartbeat, site);
  cmd.lease = st.cfg.deps.lease_timeout;
  self->request(st.cfg.deps.site_io, request_timeout(self), cmd)
      .then(
          [=](const mysql_outcome& o) {
            auto& s = self->state;
            s.heartbeat_inflight.erase(site);
            auto key = "switch-not-armed:" + site;
            if (!o.ok) {
              auto f = fields(self, site);
              f["error"] = o.error;
              log::warn(ensure ? "dead man's switch check failed" : "heartbeat failed", f);
              if (ensure) s.switch_checked.erase(site);  // check again on the next poll
              return;
            }
            if (!ensure) return;
            if (o.value == "armed") {
              s.alerts.erase(key);
              // The switch exists now; the heartbeat follows on the next poll.
              return;
            }
            alert_once(self, key, "Warning", "DeadMansSwitchNotArmed",
                       "the in-database dead man's switch on " + site + " is not armed (" +
                           o.value +
                           "): a primary cut off from every authority will not fence itself; "
                           "policy Safe will not promote onto this server",
                       site);
          },
          [=](caf::error&) { self->state.heartbeat_inflight.erase(site); });
}

void publish(self_ptr self) {
  auto& st = self->state;
  if (st.view.epoch != st.durable.view.epoch || st.view.active_site != st.durable.view.active_site ||
      st.view.deposing != st.durable.view.deposing) {
    st.view = st.durable.view;
    auto f = fields(self);
    f["activeSite"] = st.view.active_site;
    f["deposing"] = st.view.deposing;
    log::info("view published", f);
    report_step(self, st.cfg.path,
                "epoch " + std::to_string(st.view.epoch) + ", active " +
                    (st.view.active_site.empty() ? std::string("none") : st.view.active_site));
    push_view_to_sidecars(self);
  }
  status_changed(self, true);
}

void run_next_persist(self_ptr self);

/// Applies `change` to the durable state the previous persist left, persists it, and only once
/// the store confirmed makes it the state (and publishes its view). `then(ok)` runs afterwards.
void persist_change(self_ptr self, std::function<void(durable_state&)> change,
                    std::function<void(bool)> then) {
  self->state.persists.emplace_back(std::move(change), std::move(then));
  if (!self->state.persist_running) run_next_persist(self);
}

void run_next_persist(self_ptr self) {
  auto& st = self->state;
  if (st.persists.empty()) {
    st.persist_running = false;
    return;
  }
  st.persist_running = true;
  auto job = std::move(st.persists.front());
  st.persists.erase(st.persists.begin());
  auto next = st.durable;
  job.first(next);
  // S6: the epoch never goes backwards, whatever a change computed.
  next.view.epoch = std::max(next.view.epoch, st.durable.view.epoch);
  auto then = job.second;
  auto finish = [=](bool ok) {
    if (ok) {
      self->state.durable = next;
      publish(self);
    }
    if (then) then(ok);
    run_next_persist(self);
  };
  self->request(st.cfg.deps.platform.store, st.cfg.store_timeout, persist_atom::value,
                st.cfg.group, next)
      .then(
          [=](bool ok) {
            if (!ok) log::error("state persist refused", fields(self));
            finish(ok);
          },
          [=](caf::error& err) {
            auto f = fields(self);
            f["error"] = self->system().render(err);
            log::error("state persist failed", f);
            report_error(self, self->state.cfg.path, "persist: " + self->system().render(err));
            finish(false);
          });
}

bool busy(self_ptr self) {
  auto& st = self->state;
  return !st.loaded || st.persist_running || !st.persists.empty() || st.durable.plan_active;
}

// -- plans ---------------------------------------------------------------------------------------

void spawn_executor(self_ptr self, const failover_plan& plan) {
  auto& st = self->state;
  if (!st.cfg.make_executor) {
    log::error("no executor factory", fields(self));
    return;
  }
  auto deps = st.cfg.deps;
  deps.coordinator = caf::actor_cast<coordinator_actor>(self);
  deps.registry_path = st.cfg.path;
  st.executor = st.cfg.make_executor(self, plan, deps);
  if (st.executor) self->monitor(st.executor);
  auto f = fields(self, plan.candidate);
  f["plan"] = plan.id;
  f["kind"] = to_string(plan.kind);
  f["phase"] = to_string(plan.phase);
  log::info("executor started", f);
}

/// Persists the plan (with the deposing view when `bump`) and only then starts the executor.
void start_plan(self_ptr self, plan_kind kind, const std::string& candidate,
                const std::string& old_primary, bool old_reachable, bool bump) {
  auto& st = self->state;
  st.plan_started = self->clock().now();
  failover_plan plan;
  plan.id = st.durable.plan.id + 1;
  plan.kind = kind;
  plan.group = st.cfg.group;
  plan.epoch = bump ? st.durable.view.epoch + 1 : st.durable.view.epoch;
  plan.candidate = candidate;
  plan.old_primary = old_primary;
  plan.old_primary_reachable = old_reachable;
  // Recover and reclone repair `candidate` from the current active primary.
  if (kind == plan_kind::recover || kind == plan_kind::reclone) plan.source = st.durable.view.active_site;
  if (kind == plan_kind::failover || kind == plan_kind::switchover)
    plan.followers = plan_followers(st.cfg.sites, candidate, old_primary);
  plan.policy = st.cfg.policy;
  plan.drain_timeout = st.cfg.drain_timeout;
  plan.step_timeout = st.cfg.step_timeout;
  plan.gate_timeout = st.cfg.gate_timeout;
  auto at = to_ms(wall_now(self));
  persist_change(
      self,
      [=](durable_state& d) {
        if (bump) d.view = {plan.epoch, "", old_primary, at};
        d.plan_active = true;
        d.plan = plan;
        if (kind == plan_kind::recover) d.recovery[candidate].state = "RecoveryInProgress";
      },
      [=](bool ok) {
        auto f = fields(self, candidate);
        f["kind"] = to_string(kind);
        f["oldPrimary"] = old_primary;
        if (!ok) {
          log::error("plan not started: state not persisted", f);
          self->state.last_plan_failure = self->clock().now();
          return;
        }
        self->state.respawns = 0;
        if (kind == plan_kind::failover || kind == plan_kind::switchover) {
          log::info("initiating failover", f);
          emit(self, "Normal", "FailoverStarted",
               "failover from " + (old_primary.empty() ? std::string("(none)") : old_primary) +
                   " to " + candidate + " started at epoch " + std::to_string(plan.epoch),
               candidate);
        } else {
          log::info("plan started", f);
        }
        spawn_executor(self, self->state.durable.plan);
      });
}

void on_plan_done(self_ptr self, const plan_result& res) {
  auto& st = self->state;
  if (!st.durable.plan_active || res.id != st.durable.plan.id) {
    auto f = fields(self);
    f["plan"] = res.id;
    log::warn("result of an unknown plan ignored", f);
    return;
  }
  st.executor = caf::actor{};
  auto plan = st.durable.plan;
  auto at = to_ms(wall_now(self));
  auto f = fields(self, plan.candidate);
  f["plan"] = plan.id;
  f["kind"] = to_string(plan.kind);
  bool promotion = plan.kind == plan_kind::failover || plan.kind == plan_kind::switchover;
  if (res.ok) {
    persist_change(
        self,
        [=](durable_state& d) {
          d.plan_active = false;
          d.plan.phase = plan_phase::done;
          if (promotion) {
            d.view = {std::max(plan.epoch, d.view.epoch) + 1, plan.candidate, "", at};
            d.last_failover_ms = at;
            d.last_failover_target = plan.candidate;
            d.promotion_gtid = res.promotion_gtid.empty() ? d.plan.promotion_gtid
                                                          : res.promotion_gtid;
            d.plan.promotion_gtid = d.promotion_gtid;
          } else {
            d.recovery.erase(plan.candidate);
          }
        },
        [=](bool ok) {
          if (!ok) return;  // stays plan_active: a restart resumes and records it again
          if (promotion) {
            log::info("failover executed", f);
            emit(self, "Normal", "FailoverExecuted",
                 "promoted " + plan.candidate + " at epoch " +
                     std::to_string(self->state.view.epoch),
                 plan.candidate);
            if (plan.kind == plan_kind::failover) {
              opmetrics::failovers(labels(self), plan.candidate).Increment();
              if (self->state.plan_started)
                opmetrics::observe_failover_duration(
                    labels(self), plan.candidate,
                    std::chrono::duration<double>(self->clock().now() - *self->state.plan_started)
                        .count());
            }
          } else {
            log::info("recovery complete", f);
            opmetrics::divergent_transactions(labels(self), plan.candidate).Set(0);
            emit(self, "Normal", "RecoveryComplete",
                 plan.candidate + " rejoined as a replica (" + to_string(plan.kind) + ")",
                 plan.candidate);
          }
        });
    return;
  }
  st.last_plan_failure = self->clock().now();
  persist_change(
      self,
      [=](durable_state& d) {
        d.plan_active = false;
        d.plan.phase = plan_phase::failed;
        // A failed rejoin is tried again on a later poll (after plan_retry_delay).
        if (plan.kind == plan_kind::recover) d.recovery[plan.candidate] = {recovery_state_pending, "", 0};
      },
      [=](bool) {
        auto g = f;
        g["error"] = res.error;
        g["reached"] = to_string(res.reached);
        log::error("plan failed", g);
        if (promotion)
          opmetrics::failover_failures(labels(self), plan.candidate, to_string(res.reached))
              .Increment();
        std::string reason = promotion                        ? "FailoverFailed"
                             : plan.kind == plan_kind::reclone ? "RecloneFailed"
                                                               : "RecoveryFailed";
        emit(self, "Warning", reason, to_string(plan.kind) + " of " + plan.candidate +
                                          " failed: " + res.error, plan.candidate);
      });
}

void on_executor_down(self_ptr self, const caf::down_msg& dm) {
  auto& st = self->state;
  if (!st.executor || dm.source != st.executor.address()) return;
  st.executor = caf::actor{};
  if (!st.durable.plan_active) return;
  auto f = fields(self, st.durable.plan.candidate);
  f["plan"] = st.durable.plan.id;
  f["phase"] = to_string(st.durable.plan.phase);
  f["reason"] = self->system().render(dm.reason);
  if (st.respawns >= st.cfg.max_executor_respawns) {
    log::error("executor crashed too often; plan failed", f);
    plan_result r;
    r.id = st.durable.plan.id;
    r.reached = st.durable.plan.phase;
    r.error = st.durable.plan.phase == plan_phase::pending
                  ? "executor: crashed repeatedly"
                  : to_string(st.durable.plan.phase) + ": executor crashed repeatedly";
    on_plan_done(self, r);
    return;
  }
  ++st.respawns;
  log::warn("executor died; resuming the plan from its persisted phase", f);
  spawn_executor(self, st.durable.plan);
}

// -- MySQL side effects --------------------------------------------------------------------------

mysql_command command_for(self_ptr self, mysql_op op, const std::string& site) {
  mysql_command c;
  c.op = op;
  if (auto t = self->state.cfg.deps.targets.find(site); t != self->state.cfg.deps.targets.end())
    c.target = t->second;
  c.target.site = site;
  c.timeout = self->state.cfg.command_timeout;
  return c;
}

caf::timespan request_timeout(self_ptr self) {
  return self->state.cfg.command_timeout + std::chrono::seconds(1);
}

/// super_read_only=ON, then kill application sessions; retried by later evaluations on failure.
void fence_site(self_ptr self, const std::string& site, std::function<void(bool)> then = {}) {
  auto& st = self->state;
  if (!st.fencing.insert(site).second) return;
  auto io = st.cfg.deps.site_io;
  self->request(io, request_timeout(self), command_for(self, mysql_op::fence, site))
      .then(
          [=](mysql_outcome& out) {
            auto f = fields(self, site);
            if (!out.ok) {
              f["error"] = out.error;
              log::warn("fence failed", f);
              self->state.fencing.erase(site);
              if (then) then(false);
              return;
            }
            log::info("site fenced", f);
            self->request(io, request_timeout(self),
                          command_for(self, mysql_op::kill_sessions, site))
                .then(
                    [=](mysql_outcome& k) {
                      auto g = fields(self, site);
                      g["killed"] = k.value;
                      if (!k.ok) g["error"] = k.error;
                      log::info(k.ok ? "sessions killed" : "session kill failed", g);
                      self->state.fencing.erase(site);
                      if (then) then(true);
                    },
                    [=](caf::error&) {
                      self->state.fencing.erase(site);
                      if (then) then(true);
                    });
          },
          [=](caf::error& err) {
            auto f = fields(self, site);
            f["error"] = self->system().render(err);
            log::warn("fence failed", f);
            self->state.fencing.erase(site);
            if (then) then(false);
          });
}

// -- decisions -----------------------------------------------------------------------------------

bool cooldown_allows(self_ptr self) {
  auto& st = self->state;
  return failover_cooldown(wall_now(self), last_failover(st.durable), st.cfg.failover_cooldown)
      .allowed;
}

void maybe_failover(self_ptr self, const group_evaluation& ev,
                    const std::vector<site_observation>& obs) {
  auto& st = self->state;
  if (st.last_plan_failure && self->clock().now() - *st.last_plan_failure < st.cfg.plan_retry_delay)
    return;
  auto cd = failover_cooldown(wall_now(self), last_failover(st.durable), st.cfg.failover_cooldown);
  if (!cd.allowed) {
    if (st.alerts.insert("cooldown").second) {
      auto f = fields(self);
      f["remainingMs"] = duration_cast<milliseconds>(cd.remaining).count();
      f["lastFailoverTarget"] = st.durable.last_failover_target;
      log::warn("failover blocked by anti-flap cooldown", f);
    }
    return;
  }
  std::vector<std::string> missing;
  auto sets = candidate_sets(st.cfg.sites, ev.candidates, st.good_probes, missing);
  if (!missing.empty()) {
    std::string names;
    for (auto& m : missing) names += (names.empty() ? "" : ", ") + m;
    alert_once(self, "gtid-unknown:" + names, "Warning", "FailoverBlocked",
               "failover blocked: gtid_executed of " + names + " is unknown");
    return;
  }
  auto ranking = rank_candidates(sets, st.cfg.site_priorities);
  if (ranking.incomparable || !ranking.has_winner()) {
    alert_once(self, "incomparable:" + ranking.incomparable_a + "/" + ranking.incomparable_b,
               "Warning", "FailoverBlocked",
               "failover blocked: candidates " + ranking.incomparable_a + " and " +
                   ranking.incomparable_b + " hold incomparable GTID sets (" + ranking.message +
                   ")");
    return;
  }
  auto old = choose_old_primary(st.view, obs);
  bool reachable = false;
  if (auto r = st.reports.find(old); r != st.reports.end())
    reachable = r->second.step.next.state != site_state::unreachable;
  start_plan(self, plan_kind::failover, ranking.winner, old, reachable, true);
}

void handle_split_brain(self_ptr self, const std::vector<site_observation>& obs) {
  auto& st = self->state;
  auto res = resolve_split_brain(obs, st.durable.last_failover_target, st.cfg.site_priorities,
                                 cooldown_allows(self));
  alert_once(self, "split:" + to_string(res.tier), "Warning", "SplitBrainDetected", res.message);
  if (res.tier == split_brain_tier::alert) return;
  // A loser may have taken writes: mark it (durably, before anything else) so that it passes the
  // recovery classification before it may replicate again, whatever its channel says (S3, S4).
  std::vector<std::string> unmarked;
  for (const auto& s : res.fence)
    if (auto r = st.durable.recovery.find(s); r == st.durable.recovery.end() || r->second.state.empty())
      unmarked.push_back(s);
  if (!unmarked.empty())
    persist_change(
        self,
        [=](durable_state& d) {
          for (const auto& s : unmarked)
            if (d.recovery[s].state.empty()) d.recovery[s].state = recovery_state_pending;
        },
        {});
  for (const auto& s : res.fence) fence_site(self, s);
  if (res.tier == split_brain_tier::priority && res.repromote && !res.fence.empty()) {
    opmetrics::split_brain_auto_resolve(labels(self), res.winner).Increment();
    start_plan(self, plan_kind::failover, res.winner, res.fence.front(), true, true);
  }
}

/// Returning old primary (S4): fence, read its set after the fence, classify against the active
/// primary's latest set; contained -> recover plan, divergent -> RecoveryBlocked.
void check_returning(self_ptr self, const std::vector<site_observation>& obs) {
  auto& st = self->state;
  const auto& active = st.view.active_site;
  if (active.empty()) return;
  auto ar = st.reports.find(active);
  if (ar == st.reports.end() || !ar->second.probe_ok) return;
  for (const auto& o : obs) {
    if (o.name == active || st.recovering.count(o.name)) continue;
    bool pending = false;
    if (auto r = st.durable.recovery.find(o.name); r != st.durable.recovery.end()) {
      pending = r->second.state == recovery_state_pending;
      if (!r->second.state.empty() && !pending) continue;  // in progress or blocked
    }
    auto rep = st.reports.find(o.name);
    if (rep == st.reports.end() || !rep->second.probe_ok) continue;
    returning_primary_facts facts;
    facts.site = o.name;
    facts.state = o.state;
    facts.replication_configured = rep->second.probe.channel_configured;
    facts.prior_failover = !st.durable.last_failover_target.empty();
    facts.active_site = active;
    facts.recovery_pending = pending;
    if (!detect_returning_primary(facts)) continue;
    auto site = o.name;
    st.recovering.insert(site);
    log::info("returning old primary detected", fields(self, site));
    fence_site(self, site, [=](bool fenced) {
      if (!fenced) {
        self->state.recovering.erase(site);
        return;
      }
      self->request(self->state.cfg.deps.site_io, request_timeout(self),
                    command_for(self, mysql_op::read_gtid, site))
          .then(
              [=](mysql_outcome& out) {
                auto& s = self->state;
                auto done = [=] { self->state.recovering.erase(site); };
                auto act = s.good_probes.find(s.view.active_site);
                auto old_set = gtid_set::parse(out.value);
                if (!out.ok || !old_set || act == s.good_probes.end() || busy(self)) {
                  done();
                  return;
                }
                auto active_set = gtid_set::parse(act->second.gtid_executed);
                if (!active_set) {
                  done();
                  return;
                }
                auto cls = classify_recovery(*old_set, *active_set);
                if (cls.kind == recovery_kind::contained) {
                  done();
                  start_plan(self, plan_kind::recover, site, "", false, false);
                  return;
                }
                persist_change(
                    self,
                    [=](durable_state& d) {
                      d.recovery[site] = {"RecoveryBlocked", cls.divergent_gtid,
                                          cls.divergent_count};
                    },
                    [=](bool ok) {
                      done();
                      if (!ok) return;
                      opmetrics::divergent_transactions(labels(self), site)
                          .Set(static_cast<double>(cls.divergent_count));
                      auto msg = site + " has " + std::to_string(cls.divergent_count) +
                                 " transactions the active primary " + self->state.view.active_site +
                                 " lacks (" + cls.divergent_gtid +
                                 "); it stays fenced until recloned";
                      auto f = fields(self, site);
                      f["divergentGtid"] = cls.divergent_gtid;
                      f["divergentCount"] = cls.divergent_count;
                      log::warn("divergent transactions detected", f);
                      emit(self, "Warning", "DataLossDetected", msg, site);
                    });
              },
              [=](caf::error&) { self->state.recovering.erase(site); });
    });
  }
}

void maybe_reassert(self_ptr self, const std::vector<site_observation>& obs) {
  auto& st = self->state;
  if (st.view.active_site.empty() || st.view.active_site != st.durable.last_failover_target)
    return;
  reassert_input in;
  in.sites = obs;
  for (const auto& [site, p] : st.good_probes)
    if (auto set = gtid_set::parse(p.gtid_executed)) in.gtid_executed[site] = *set;
  in.last_failover_target = st.durable.last_failover_target;
  in.promotion_gtid_executed = st.durable.promotion_gtid;
  in.now = wall_now(self);
  in.last_reassert = st.last_reassert;
  in.failover_cooldown = st.cfg.failover_cooldown;
  auto d = decide_primary_reassert(in);
  if (d.verdict == reassert_verdict::refused) {
    if (st.alerts.insert("reassert-refused:" + d.reason).second) {
      auto f = fields(self, d.site);
      f["reason"] = d.reason;
      log::warn("primary re-assert refused", f);
    }
    return;
  }
  if (d.verdict != reassert_verdict::reassert) return;
  st.last_reassert = in.now;
  auto site = d.site;
  log::info("primary re-assert: clearing the fence", fields(self, site));
  self->request(st.cfg.deps.site_io, request_timeout(self),
                command_for(self, mysql_op::promote, site))
      .then(
          [=](mysql_outcome& out) {
            auto f = fields(self, site);
            if (!out.ok) {
              f["error"] = out.error;
              log::warn("primary re-assert failed", f);
              return;
            }
            opmetrics::primary_reassert(labels(self), site).Increment();
            log::info("primary re-asserted", f);
          },
          [=](caf::error&) {});
}

/// First start (no history): adopt the single writable candidate as the active site.
void maybe_adopt(self_ptr self, const group_evaluation& ev) {
  auto& st = self->state;
  if (ev.writable.size() != 1 || !st.view.active_site.empty() || !st.view.deposing.empty()) return;
  const auto& w = ev.writable.front();
  if (role_of(self, w) != site_role::primary_candidate) return;
  if (!st.durable.last_failover_target.empty() && w != st.durable.last_failover_target) return;
  auto at = to_ms(wall_now(self));
  log::info("adopting the writable primary", fields(self, w));
  persist_change(
      self, [=](durable_state& d) { d.view = {d.view.epoch + 1, w, "", at}; }, {});
}

void evaluate_and_act(self_ptr self) {
  auto& st = self->state;
  if (!st.loaded) return;
  st.last_evaluation = self->clock().now();
  auto obs = build_observations(st.cfg.sites, st.cfg.roles, st.reports);
  auto ev = evaluate(obs, st.cfg.site_priorities);
  if (!st.evaluated || ev.verdict != st.evaluation.verdict || ev.message != st.evaluation.message) {
    auto f = fields(self);
    f["verdict"] = to_string(ev.verdict);
    f["message"] = ev.message;
    log::info("group evaluation changed", f);
  }
  st.evaluation = ev;
  st.evaluated = true;
  status_changed(self, false);
  if (ev.verdict == group_verdict::healthy) st.alerts.clear();
  if (busy(self)) return;
  switch (ev.verdict) {
    case group_verdict::fence:
      for (const auto& s : ev.fence) fence_site(self, s);
      break;
    case group_verdict::failover:
      maybe_failover(self, ev, obs);
      break;
    case group_verdict::split_brain:
      handle_split_brain(self, obs);
      break;
    case group_verdict::healthy:
    case group_verdict::degraded:
      maybe_adopt(self, ev);
      if (!busy(self)) check_returning(self, obs);
      break;
    case group_verdict::no_primary:
      maybe_reassert(self, obs);
      alert_once(self, "no-primary", "Warning", "NoPrimaryDetected", ev.message);
      break;
    case group_verdict::total_loss:
      alert_once(self, "total-loss", "Warning", "TotalLossDetected", ev.message);
      break;
  }
}

void on_report(self_ptr self, site_report& r) {
  auto& st = self->state;
  if (std::find(st.cfg.sites.begin(), st.cfg.sites.end(), r.site) == st.cfg.sites.end()) return;
  auto prev_it = st.reports.find(r.site);
  const site_report* prev = prev_it == st.reports.end() ? nullptr : &prev_it->second;
  bool changed = report_changes_facts(prev, r);
  if (r.step.transitioned) {
    auto f = fields(self, r.site);
    f["from"] = std::string(to_string(r.step.from));
    f["to"] = std::string(to_string(r.step.to));
    log::info("site state changed", f);
    opmetrics::state_transitions(labels(self), r.site, r.step.from, r.step.to).Increment();
  }
  if (!prev || r.step.transitioned)
    opmetrics::set_site_state(labels(self), r.site, role_of(self, r.site), r.step.next.state);
  if (r.probe_ok) {
    st.good_probes[r.site] = r.probe;
    st.last_seen_ms[r.site] = r.polled_at_ms;
  }
  if (r.probe_ok)
    opmetrics::observe_probe(labels(self), r.site, role_of(self, r.site),
                             r.site == st.view.active_site, r.probe);
  maybe_heartbeat(self, r.site, r);
  st.reports[r.site] = std::move(r);
  // Unchanged reports are evaluated at most once per poll interval: with many sites this keeps
  // the cost linear, and timed conditions (cooldown expiry, retries) are still rechecked.
  if (changed || !st.last_evaluation ||
      self->clock().now() - *st.last_evaluation >= st.cfg.poll_interval)
    evaluate_and_act(self);
  else
    status_changed(self, false);
}

caf::result<std::string> on_annotate(self_ptr self, const std::string& key,
                                     const std::string& value) {
  auto& st = self->state;
  if (key != reclone_annotation) return "rejected: unknown annotation " + key;
  if (busy(self)) return std::string("rejected: another plan is running");
  std::map<std::string, std::string> divergent;
  for (const auto& [site, r] : st.durable.recovery)
    if (!r.divergent_gtid.empty()) divergent[site] = r.divergent_gtid;
  auto v = validate_reclone_token(value, st.cfg.group, st.cfg.sites, divergent,
                                  st.view.active_site);
  if (!v.accepted) {
    auto f = fields(self, v.site);
    f["reason"] = v.reason;
    log::warn("reclone rejected", f);
    emit(self, "Warning", "RecloneRejected", v.reason, v.site);
    return "rejected: " + v.reason;
  }
  log::info("reclone requested", fields(self, v.site));
  emit(self, "Normal", "RecloneRequested",
       "reclone of " + v.site + " requested (" + to_string(v.kind) + ")", v.site);
  opmetrics::reclone_operations(labels(self), v.site).Increment();
  start_plan(self, plan_kind::reclone, v.site, "", false, false);
  return "accepted: reclone of " + v.site + " (" + to_string(v.kind) + ")";
}

std::string on_switchover(self_ptr self, const std::string& target) {
  auto& st = self->state;
  switchover_facts facts{st.cfg.sites, st.cfg.roles, st.view.active_site, busy(self), st.reports};
  auto v = check_switchover(facts, target);
  auto f = fields(self, target);
  f["reason"] = v.reason;
  if (!v.accepted) {
    log::warn("switchover rejected", f);
    return "rejected: " + v.reason;
  }
  log::info("switchover requested", f);
  start_plan(self, plan_kind::switchover, target, st.view.active_site, true, true);
  return "accepted: " + v.reason;
}

caf::result<bool> on_phase(self_ptr self, uint64_t id, plan_phase phase, const std::string& gtid) {
  auto& st = self->state;
  if (!st.durable.plan_active || st.durable.plan.id != id) return false;
  auto rp = self->make_response_promise<bool>();
  persist_change(
      self,
      [=](durable_state& d) {
        d.plan.phase = phase;
        if (!gtid.empty()) d.plan.promotion_gtid = gtid;
      },
      [=](bool ok) mutable {
        auto f = fields(self, self->state.durable.plan.candidate);
        f["plan"] = id;
        f["phase"] = to_string(phase);
        log::info("plan phase", f);
        rp.deliver(ok);
      });
  return rp;
}

void on_loaded(self_ptr self, durable_state& d) {
  auto& st = self->state;
  st.durable = std::move(d);
  st.loaded = true;
  auto f = fields(self);
  f["activeSite"] = st.durable.view.active_site;
  f["planActive"] = st.durable.plan_active;
  log::info("durable state loaded", f);
  for (const auto& [site, r] : st.durable.recovery)
    if (r.state == "RecoveryBlocked")
      opmetrics::divergent_transactions(labels(self), site)
          .Set(static_cast<double>(r.divergent_count));
  publish(self);
  if (st.durable.plan_active) {
    log::info("resuming the persisted plan", fields(self, st.durable.plan.candidate));
    spawn_executor(self, st.durable.plan);
  }
  evaluate_and_act(self);
}

}  // namespace

caf::behavior coordinator(caf::stateful_actor<coordinator_state>* self, coordinator_config cfg) {
  self->state.cfg = std::move(cfg);
  auto& st = self->state;
  announce(self, st.cfg.path, "coordinator");
  report_step(self, st.cfg.path, "loading state");
  self->attach_functor([workers = st.push_workers] {
    for (auto& [site, w] : *workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  self->set_down_handler([=](caf::down_msg& dm) { on_executor_down(self, dm); });
  self->request(st.cfg.deps.platform.store, st.cfg.store_timeout, load_atom::value, st.cfg.group)
      .then([=](durable_state& d) { on_loaded(self, d); },
            [=](caf::error& err) {
              auto f = fields(self);
              f["error"] = self->system().render(err);
              log::error("durable state load failed", f);
              report_error(self, self->state.cfg.path, "load: " + self->system().render(err));
              self->quit(err);
            });
  return {
      [=](observe_atom, site_report& r) { on_report(self, r); },
      [=](view_atom) { return self->state.view; },
      [=](status_atom) { return status_json(self); },
      [=](phase_atom, uint64_t id, plan_phase phase, std::string& gtid) {
        return on_phase(self, id, phase, gtid);
      },
      [=](plan_done_atom, plan_result& r) { on_plan_done(self, r); },
      [=](annotate_atom, std::string& key, std::string& value) {
        return on_annotate(self, key, value);
      },
      [=](switchover_atom, const std::string& target) { return on_switchover(self, target); },
      [=](status_flush_atom) { flush_status(self); },
  };
}

coordinator_actor spawn_coordinator(caf::actor_system& sys, coordinator_config cfg) {
  return caf::actor_cast<coordinator_actor>(sys.spawn(coordinator, std::move(cfg)));
}

}  // namespace br
