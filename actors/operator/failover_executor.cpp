// The failover executor actor (see failover_executor.hpp): one plan, step by step, with deadlines.
#include "actors/operator/failover_executor.hpp"

#include <algorithm>
#include <caf/all.hpp>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/common/registry.hpp"
#include "actors/operator/operator_metrics.hpp"
#include "actors/operator/plan_steps.hpp"
#include "actors/operator/promotion_gate.hpp"
#include "actors/operator/view_push.hpp"
#include "io/log/log.hpp"
#include "messages/gtid_set.hpp"

namespace br {

namespace {

using begin_atom = caf::atom_constant<caf::atom("begin")>;
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;
using gate_atom = caf::atom_constant<caf::atom("gate")>;
using retry_atom = caf::atom_constant<caf::atom("retry")>;
using push_atom = caf::atom_constant<caf::atom("push")>;

/// Pause between confirmation probes (a promoted server answers at once; a repaired replica's IO
/// thread needs a moment to connect).
constexpr caf::timespan confirm_retry_interval = std::chrono::milliseconds(500);
/// Extra time a CAF request may take beyond its step's deadline, so the deadline (with its
/// named error) always fires before the request's own timeout.
constexpr caf::timespan request_slack = std::chrono::seconds(1);

struct executor_state {
  failover_plan plan;
  executor_deps deps;
  std::string path;
  std::vector<plan_phase> steps;
  size_t index = 0;
  plan_phase current = plan_phase::pending;
  /// Bumped whenever a step or its persistence starts: answers, timers and retries carry the
  /// value they were started under and are dropped when it no longer matches.
  uint64_t seq = 0;
  bool persisting = false;
  bool finished = false;
  mono_time deadline_at{};
  plan_result result;
  // Facts of this run.
  bool fenced_old = false;       ///< gate rule 1: super_read_only=ON acknowledged
  bool old_unreachable = false;  ///< the plan said so, or the fence failed at connection level
  mono_time gate_started{};
  // Gate rules 2-3: the deposing view pushed to the sidecars and their acknowledgements.
  bool old_acked = false;                       ///< rule 2
  std::map<std::string, mono_time> peer_acks;   ///< rule 3: site -> when its ack arrived
  /// Shared with the exit hook that stops them (also when the executor is killed mid-plan).
  std::shared_ptr<std::map<std::string, http_worker_actor>> push_workers =
      std::make_shared<std::map<std::string, http_worker_actor>>();
  std::set<std::string> push_inflight;
  bool gate_opened = false;  ///< open, waiting for outstanding pushes before promoting
  std::string last_note;     ///< detail of the latest retry (appended to a deadline error)
  std::string primary_gtid;  ///< new primary's gtid_executed read at repointing
  size_t follower = 0;       ///< repointing: index into plan.followers
  size_t taint_index = 0;    ///< steering: index into deps.sites
  static inline const char* name = "failover_executor";
};

using exec_ptr = caf::stateful_actor<executor_state>*;

bool is_connection_error(const std::string& kind) {
  return kind == "refused" || kind == "timeout" || kind == "lost_connection";
}

std::string describe(const mysql_outcome& o) {
  std::string s = o.error_kind.empty() ? std::string("error") : o.error_kind;
  // site_io's texts already start with "<kind> <code>": do not say it twice.
  if (!o.error.empty() && o.error.rfind(s, 0) == 0) return o.error;
  if (o.error_code != 0) s += " " + std::to_string(o.error_code);
  if (!o.error.empty()) s += ": " + o.error;
  return s;
}

nlohmann::json fields(exec_ptr self, const std::string& site) {
  const auto& p = self->state.plan;
  return {{"group", p.group},          {"site", site},
          {"epoch", p.epoch},          {"plan", p.id},
          {"kind", to_string(p.kind)}, {"phase", to_string(self->state.current)}};
}

mono_time now_of(exec_ptr self) {
  return self->clock().now();
}

caf::timespan remaining(exec_ptr self) {
  auto left = self->state.deadline_at - now_of(self);
  return std::max<caf::timespan>(left, std::chrono::milliseconds(1));
}

void start_next(exec_ptr self);

void stop_push_workers(executor_state& st) {
  for (auto& [site, w] : *st.push_workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  st.push_workers->clear();
}

void finish(exec_ptr self) {
  auto& st = self->state;
  st.finished = true;
  ++st.seq;
  stop_push_workers(st);
  if (st.deps.coordinator) self->send(st.deps.coordinator, plan_done_atom::value, st.result);
  self->quit();
}

void fail(exec_ptr self, const std::string& why) {
  auto& st = self->state;
  if (st.finished) return;
  st.result.ok = false;
  st.result.reached = st.current;
  st.result.error = to_string(st.current) + ": " + why;
  auto f = fields(self, st.plan.candidate);
  f["error"] = st.result.error;
  log::error("plan failed", f);
  report_error(self, st.path, st.result.error);
  report_step(self, st.path, "failed: " + st.result.error);
  finish(self);
}

void arm_deadline(exec_ptr self, caf::timespan d) {
  auto& st = self->state;
  st.deadline_at = now_of(self) + d;
  self->delayed_send(self, d, deadline_atom::value, st.seq);
}

/// The current step finished: persist it through the coordinator, then start the next one.
void step_done(exec_ptr self) {
  auto& st = self->state;
  if (st.finished) return;
  st.persisting = true;
  auto seq = ++st.seq;
  arm_deadline(self, st.plan.step_timeout);
  auto f = fields(self, st.plan.candidate);
  log::info("plan step done", f);
  if (!st.deps.coordinator) {
    st.persisting = false;
    ++st.index;
    start_next(self);
    return;
  }
  self->request(st.deps.coordinator, st.plan.step_timeout + request_slack, phase_atom::value,
                st.plan.id, st.current, st.result.promotion_gtid)
      .then(
          [=](bool persisted) {
            auto& s = self->state;
            if (s.finished || s.seq != seq) return;
            if (!persisted) {
              fail(self, "progress not persisted");
              return;
            }
            s.persisting = false;
            ++s.index;
            start_next(self);
          },
          [=](caf::error& e) {
            auto& s = self->state;
            if (s.finished || s.seq != seq) return;
            fail(self, "progress not persisted: " + to_string(e));
          });
}

/// The MySQL target of `site` (operator account), or nullptr after failing the plan.
const mysql_target* target_of(exec_ptr self, const std::string& site) {
  auto& t = self->state.deps.targets;
  auto it = t.find(site);
  if (it == t.end()) {
    fail(self, "no MySQL target for site '" + site + "'");
    return nullptr;
  }
  return &it->second;
}

/// The replication source for CHANGE REPLICATION SOURCE / CLONE: host and port of `site`, the
/// replication account's credentials.
mysql_target source_of(exec_ptr self, const mysql_target& site_target) {
  mysql_target src = self->state.deps.replication;
  src.site = site_target.site;
  src.host = site_target.host;
  src.port = site_target.port;
  return src;
}

/// Sends one command to site_io for the current step; `k` sees the outcome unless the step is
/// over by then. A CAF-level failure (site_io gone) fails the plan.
/// A connection-level failure is retried once at once (not for CLONE, which reconnects by
/// itself): site_io drops a broken session on such an error, so the retry opens a fresh one.
/// Without it a session cached before a server restart would make a live server look dead --
/// and "the old primary is unreachable" is exactly what lets policy Fast promote.
void io(exec_ptr self, mysql_op op, const std::string& site, std::function<void(mysql_outcome&)> k,
        caf::timespan timeout = caf::timespan{0},
        std::function<void(mysql_command&)> adjust = nullptr, int attempt = 1) {
  auto& st = self->state;
  auto t = target_of(self, site);
  if (!t) return;
  mysql_command cmd;
  cmd.op = op;
  cmd.target = *t;
  cmd.timeout =
      timeout.count() > 0 ? timeout : std::min(st.deps.command_timeout, st.plan.step_timeout);
  cmd.source_ssl = st.deps.replication_ssl;
  if (adjust) adjust(cmd);
  auto seq = st.seq;
  self->request(st.deps.site_io, remaining(self) + request_slack, cmd)
      .then(
          [=](mysql_outcome& o) {
            auto& s = self->state;
            if (s.finished || s.seq != seq) return;
            if (!o.ok && attempt == 1 && op != mysql_op::clone &&
                is_connection_error(o.error_kind)) {
              auto f = fields(self, site);
              f["op"] = to_string(op);
              f["error"] = describe(o);
              log::info("retrying command on a fresh connection", f);
              io(self, op, site, k, timeout, adjust, 2);
              return;
            }
            k(o);
          },
          [=](caf::error& e) {
            auto& s = self->state;
            if (s.finished || s.seq != seq) return;
            fail(self, to_string(op) + " on " + site + ": site_io: " + to_string(e));
          });
}

/// Runs `op` on `site`; a failed outcome fails the plan, success continues with `next`.
void io_must(exec_ptr self, mysql_op op, const std::string& site, std::function<void()> next,
             std::function<void(mysql_command&)> adjust = nullptr) {
  io(
      self, op, site,
      [=](mysql_outcome& o) {
        if (!o.ok) {
          fail(self, to_string(op) + " on " + site + " failed: " + describe(o));
          return;
        }
        next();
      },
      caf::timespan{0}, std::move(adjust));
}

// -- failover / switchover steps ----------------------------------------------------------------

void run_fencing_old(exec_ptr self) {
  auto& st = self->state;
  const auto& p = st.plan;
  if (p.kind == plan_kind::recover || p.kind == plan_kind::reclone) {
    // Repairing a site: it is fenced before anything else touches it (seed 004 recovery step 1).
    io_must(self, mysql_op::fence, p.candidate, [=] { step_done(self); });
    return;
  }
  if (p.old_primary.empty()) {
    st.result.fence_outcome = "skipped: no old primary";
    log::warn("old primary fence skipped", fields(self, ""));
    step_done(self);
    return;
  }
  if (!p.old_primary_reachable) {
    st.old_unreachable = true;
    st.result.fence_outcome = "skipped: unreachable (plan)";
    auto f = fields(self, p.old_primary);
    f["reason"] = st.result.fence_outcome;
    log::warn("old primary fence skipped", f);
    step_done(self);
    return;
  }
  io(self, mysql_op::fence, p.old_primary, [=](mysql_outcome& o) {
    auto& s = self->state;
    auto f = fields(self, s.plan.old_primary);
    if (o.ok) {
      s.fenced_old = true;
      s.result.fence_outcome = "fenced";
      log::info("old primary fenced", f);
      step_done(self);
    } else if (is_connection_error(o.error_kind)) {
      s.old_unreachable = true;
      s.result.fence_outcome = "skipped: " + o.error_kind;
      f["reason"] = s.result.fence_outcome;
      f["error"] = describe(o);
      log::warn("old primary fence skipped", f);
      step_done(self);
    } else {
      // Reachable but refusing: promoting now could leave two writable sites (S1/S2).
      fail(self, "fence of old primary " + s.plan.old_primary + " failed: " + describe(o));
    }
  });
}

void run_killing_sessions(exec_ptr self) {
  auto& st = self->state;
  if (!st.fenced_old) {
    log::info("session kill skipped: old primary not fenced by the operator",
              fields(self, st.plan.old_primary));
    step_done(self);
    return;
  }
  io(self, mysql_op::kill_sessions, st.plan.old_primary, [=](mysql_outcome& o) {
    auto f = fields(self, self->state.plan.old_primary);
    if (o.ok) {
      f["killed"] = o.value;
      log::info("old primary sessions killed", f);
    } else {
      // Best effort: the server is already fenced, so a surviving session cannot write.
      f["error"] = describe(o);
      log::warn("old primary session kill failed; continuing", f);
    }
    step_done(self);
  });
}

void evaluate_gate(exec_ptr self) {
  auto& st = self->state;
  const auto& p = st.plan;
  if (p.old_primary.empty()) {
    log::info("promotion gate open: no old primary in the plan", fields(self, p.candidate));
    step_done(self);
    return;
  }
  gate_input in;
  in.operator_fenced_old_primary = st.fenced_old;
  in.old_primary_sidecar_acked = st.old_acked;
  in.old_primary_unreachable = st.old_unreachable;
  for (const auto& s : st.deps.sites)
    if (s != p.old_primary) in.other_sites.push_back(s);
  in.peer_acks = st.peer_acks;
  in.policy = p.policy;
  in.started = st.gate_started;
  in.now = now_of(self);
  in.lease_timeout = st.deps.lease_timeout;
  in.peer_check_interval = st.deps.peer_check_interval;
  in.fence_timeout = st.deps.sidecar_fence_timeout;
  in.request_timeout = st.deps.sidecar_request_timeout;
  in.gate_timeout = p.gate_timeout;
  auto d = promotion_gate(in);
  auto f = fields(self, p.candidate);
  f["rule"] = to_string(d.rule);
  f["reason"] = d.reason;
  f["policy"] = to_string(p.policy);
  switch (d.verdict) {
    case gate_verdict::open:
      log::info("promotion gate open", f);
      opmetrics::observe_promotion_gate_wait(
          {st.deps.namespace_name, p.group}, p.candidate,
          std::chrono::duration<double>(in.now - st.gate_started).count());
      if (!st.push_inflight.empty()) {
        // A deposing view still on its way to a sidecar must not arrive after the promotion:
        // the candidate's sidecar would take it for a view that deposes it too. Wait for every
        // outstanding push to answer (each is bounded by the request timeout), then promote.
        st.gate_opened = true;
        report_step(self, st.path, "gate open; waiting for outstanding view pushes");
        return;
      }
      step_done(self);
      return;
    case gate_verdict::timed_out:
      log::error("promotion gate timed out", f);
      fail(self, "promotion gate timed out");
      return;
    case gate_verdict::wait: {
      auto delay = std::max<caf::timespan>(d.until - in.now, std::chrono::milliseconds(1));
      report_step(self, st.path, "gating: " + d.reason);
      self->delayed_send(self, delay, gate_atom::value, st.seq);
      return;
    }
  }
}

/// The deposing view of this plan: no active site, the old primary being deposed.
topology_view deposing_view(const failover_plan& p) {
  topology_view v;
  v.epoch = p.epoch;
  v.deposing = p.old_primary;
  v.observed_at_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  return v;
}

bool gating_now(exec_ptr self, uint64_t seq) {
  auto& s = self->state;
  return !s.finished && s.seq == seq && s.current == plan_phase::gating && !s.persisting;
}

/// PUT /view of the deposing view to one sidecar; retried every push_retry until it acknowledges
/// or the gate is decided. An acknowledgement is only counted while this gating step runs.
void push_deposing(exec_ptr self, const std::string& site) {
  auto& st = self->state;
  if (st.push_inflight.count(site) || !st.deps.http_worker) return;
  if (site == st.plan.old_primary ? st.old_acked : st.peer_acks.count(site) > 0) return;
  auto addr = st.deps.sidecars.find(site);
  if (addr == st.deps.sidecars.end() || addr->second.empty()) return;
  auto& w = (*st.push_workers)[site];
  if (!w) w = st.deps.http_worker();
  auto view = deposing_view(st.plan);
  auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      st.deps.sidecar_request_timeout);
  auto call = view_push_call(addr->second, st.deps.sidecar_token, view, timeout);
  auto seq = st.seq;
  st.push_inflight.insert(site);
  auto retry = [=] {
    auto& s = self->state;
    s.push_inflight.erase(site);
    if (!gating_now(self, seq)) return;
    if (s.gate_opened) {
      if (s.push_inflight.empty()) step_done(self);
      return;
    }
    self->delayed_send(self, s.deps.push_retry, push_atom::value, site, seq);
  };
  self->request(w, st.deps.sidecar_request_timeout + request_slack, http_call_atom::value, call)
      .then(
          [=](const http_reply& r) {
            auto a = parse_view_ack(site, view, r);
            if (!gating_now(self, seq)) {
              self->state.push_inflight.erase(site);
              return;
            }
            auto f = fields(self, site);
            f["viewEpoch"] = view.epoch;
            if (!a.acked) {
              f["error"] = a.error;
              f["status"] = a.status;
              log::debug("deposing view not acknowledged yet", f);
              retry();
              return;
            }
            auto& s = self->state;
            s.push_inflight.erase(site);
            if (s.gate_opened) {
              if (s.push_inflight.empty()) step_done(self);
              return;
            }
            f["fenced"] = a.fenced;
            f["mysqlReachable"] = a.mysql_reachable;
            if (site == s.plan.old_primary) {
              s.old_acked = true;
              log::info("old primary's sidecar acknowledged the deposing view (gate rule 2)", f);
            } else {
              s.peer_acks[site] = now_of(self);
              log::info("sidecar acknowledged the deposing view", f);
            }
            evaluate_gate(self);
          },
          [=](caf::error&) { retry(); });
}

void run_gating(exec_ptr self) {
  auto& st = self->state;
  st.gate_started = now_of(self);
  if (!st.plan.old_primary.empty())
    for (const auto& site : st.deps.sites) push_deposing(self, site);
  evaluate_gate(self);
}

void run_draining(exec_ptr self) {
  auto& st = self->state;
  auto cand = st.plan.candidate;
  io(self, mysql_op::probe, cand, [=](mysql_outcome& o) {
    auto f = fields(self, cand);
    if (!o.ok) {
      f["error"] = describe(o);
      log::warn("relay drain skipped: candidate probe failed", f);
      step_done(self);
      return;
    }
    // What the candidate has RECEIVED is what it can still apply; without a channel (or an older
    // site_io) its own executed set makes the wait a no-op.
    auto target = o.probe.received_gtid.empty() ? o.probe.gtid_executed : o.probe.received_gtid;
    auto drain = self->state.plan.drain_timeout;
    auto wait = [=] {
      io(
        self, mysql_op::wait_executed, cand,
        [=](mysql_outcome& w) {
          auto g = fields(self, cand);
          g["gtid"] = target;
          if (w.ok && w.value == "reached") {
            log::info("relay log drained", g);
          } else if (w.ok) {
            log::warn("relay drain timed out; continuing", g);
          } else {
            g["error"] = describe(w);
            log::warn("relay drain failed; continuing", g);
          }
          step_done(self);
        },
        drain, [=](mysql_command& c) { c.gtid = target; });
    };
    // A stopped applier (STOP REPLICA SQL_THREAD, an applier error) would leave the relay log
    // unapplied and the drain would only time out: those transactions were acknowledged by the
    // old primary (S3). Start the threads first (the IO thread failing to reach a dead primary is
    // harmless; stopping_replica stops both afterwards).
    if (o.probe.channel_configured && o.probe.sql_state != "ON") {
      f["sqlThread"] = o.probe.sql_state;
      log::warn("candidate's applier is stopped; starting it to drain the relay log", f);
      io(self, mysql_op::start_replica, cand, [=](mysql_outcome& r) {
        if (!r.ok) {
          auto g = fields(self, cand);
          g["error"] = describe(r);
          log::warn("could not start the candidate's applier; draining anyway", g);
        }
        wait();
      });
      return;
    }
    wait();
  });
}

void run_recording_gtid(exec_ptr self) {
  auto cand = self->state.plan.candidate;
  io(self, mysql_op::read_gtid, cand, [=](mysql_outcome& o) {
    if (!o.ok) {
      fail(self, "read_gtid on " + cand + " failed: " + describe(o));
      return;
    }
    self->state.result.promotion_gtid = o.value;
    self->state.plan.promotion_gtid = o.value;
    auto f = fields(self, cand);
    f["promotionGtidExecuted"] = o.value;
    log::info("promotion gtid recorded", f);
    step_done(self);
  });
}

void confirm_probe(exec_ptr self) {
  auto& st = self->state;
  auto cand = st.plan.candidate;
  bool repair = st.plan.kind == plan_kind::recover || st.plan.kind == plan_kind::reclone;
  io(self, mysql_op::probe, cand, [=](mysql_outcome& o) {
    auto& s = self->state;
    if (o.ok && !repair) {
      if (o.probe.writable()) {
        log::info("promotion confirmed writable", fields(self, cand));
        step_done(self);
      } else {
        // S9: nothing is steered towards a site not confirmed writable.
        log::error("promotion succeeded but writable confirmation failed; DNS not flipped",
                   fields(self, cand));
        fail(self, "candidate " + cand + " is not writable after promotion; nothing steered");
      }
      return;
    }
    if (o.ok && o.probe.replicating()) {
      log::info("replica confirmed replicating", fields(self, cand));
      step_done(self);
      return;
    }
    s.last_note =
        o.ok ? "io " + o.probe.io_state + ", sql " + o.probe.sql_state +
                   (o.probe.last_io_error.empty() ? "" : ", io error: " + o.probe.last_io_error) +
                   (o.probe.last_sql_error.empty() ? "" : ", sql error: " + o.probe.last_sql_error)
             : "probe: " + describe(o);
    self->delayed_send(self, confirm_retry_interval, retry_atom::value, s.seq);
  });
}

// -- steering -----------------------------------------------------------------------------------

void steer_taints(exec_ptr self);

void steering_warning(exec_ptr self, const std::string& what, const std::string& site) {
  // The promotion is confirmed; a failed platform write is healed by the reconcile loop, and the
  // followers still need repointing, so the plan goes on.
  auto f = fields(self, site);
  f["error"] = what;
  log::warn("steering call failed; continuing", f);
  report_error(self, self->state.path, "steering: " + what);
}

void steer_dns(exec_ptr self) {
  auto& st = self->state;
  auto cand = st.plan.candidate;
  auto ip = st.deps.lb_ips.count(cand) ? st.deps.lb_ips.at(cand) : std::string();
  if (!st.deps.platform.dns || ip.empty()) {
    log::info("dns update skipped: no dns actor or no lbIP", fields(self, cand));
    steer_taints(self);
    return;
  }
  auto seq = st.seq;
  self->request(st.deps.platform.dns, remaining(self) + request_slack, dns_atom::value,
                st.plan.group, cand, ip)
      .then(
          [=](bool ok) {
            if (self->state.finished || self->state.seq != seq) return;
            if (!ok) {
              steering_warning(self, "dns update refused", cand);
            } else {
              log::info("dns points to the new primary", fields(self, cand));
              // A flip: the record moved away from the deposed primary (a split-brain
              // re-promotion of the same site rewrites the same value).
              const auto& p = self->state.plan;
              if (p.candidate != p.old_primary)
                opmetrics::dns_flips({self->state.deps.namespace_name, p.group}, cand).Increment();
            }
            steer_taints(self);
          },
          [=](caf::error& e) {
            if (self->state.finished || self->state.seq != seq) return;
            steering_warning(self, "dns update: " + to_string(e), cand);
            steer_taints(self);
          });
}

void steer_taints(exec_ptr self) {
  auto& st = self->state;
  // Readers are never tainted; every other non-active site is, the new active one is untainted.
  while (st.taint_index < st.deps.sites.size()) {
    const auto& site = st.deps.sites[st.taint_index];
    auto role = st.deps.roles.count(site) ? st.deps.roles.at(site) : site_role::primary_candidate;
    if (role != site_role::read_only && st.deps.platform.taints) break;
    ++st.taint_index;
  }
  if (st.taint_index >= st.deps.sites.size()) {
    step_done(self);
    return;
  }
  auto site = st.deps.sites[st.taint_index++];
  bool taint = site != st.plan.candidate;
  auto seq = st.seq;
  self->request(st.deps.platform.taints, remaining(self) + request_slack, taint_atom::value,
                st.plan.group, site, taint)
      .then(
          [=](bool ok) {
            if (self->state.finished || self->state.seq != seq) return;
            if (!ok)
              steering_warning(self, std::string(taint ? "taint" : "untaint") + " refused", site);
            else
              opmetrics::taint_operations({self->state.deps.namespace_name, self->state.plan.group},
                                          site, taint ? "taint" : "untaint")
                  .Increment();
            steer_taints(self);
          },
          [=](caf::error& e) {
            if (self->state.finished || self->state.seq != seq) return;
            steering_warning(self, std::string(taint ? "taint: " : "untaint: ") + to_string(e),
                             site);
            steer_taints(self);
          });
}

void run_steering(exec_ptr self) {
  auto& st = self->state;
  st.taint_index = 0;
  auto cand = st.plan.candidate;
  if (!st.deps.platform.router) {
    steer_dns(self);
    return;
  }
  std::vector<std::string> replicas;
  for (const auto& f : st.plan.followers)
    if (f != cand) replicas.push_back(f);
  auto seq = st.seq;
  self->request(st.deps.platform.router, remaining(self) + request_slack, route_atom::value,
                st.plan.group, cand, replicas)
      .then(
          [=](bool ok) {
            if (self->state.finished || self->state.seq != seq) return;
            if (!ok) steering_warning(self, "router update refused", cand);
            steer_dns(self);
          },
          [=](caf::error& e) {
            if (self->state.finished || self->state.seq != seq) return;
            steering_warning(self, "router update: " + to_string(e), cand);
            steer_dns(self);
          });
}

// -- repointing ---------------------------------------------------------------------------------

/// Configures `site` to replicate from `primary` (stop, change source, start); `next` runs after
/// success, `on_error` with the failing command's description otherwise.
void replicate_from(exec_ptr self, const std::string& site, const std::string& primary,
                    bool stop_first, std::function<void()> next,
                    std::function<void(std::string)> on_error) {
  auto pt = target_of(self, primary);
  if (!pt) return;
  auto src = source_of(self, *pt);
  auto step = [=](mysql_op op, std::function<void()> k) {
    io(
        self, op, site,
        [=](mysql_outcome& o) {
          if (!o.ok)
            on_error(to_string(op) + " failed: " + describe(o));
          else
            k();
        },
        caf::timespan{0}, [=](mysql_command& c) { c.source = src; });
  };
  auto change_and_start = [=] {
    step(mysql_op::change_source, [=] { step(mysql_op::start_replica, next); });
  };
  // A repaired site already stopped and reset its replica in earlier steps.
  if (stop_first)
    step(mysql_op::stop_replica, change_and_start);
  else
    change_and_start();
}

/// Reads `site`'s gtid_executed and checks it is contained in self->state.primary_gtid.
/// Calls k(true, "") when contained, k(false, reason) otherwise.
void check_contained(exec_ptr self, const std::string& site,
                     std::function<void(bool, std::string)> k) {
  io(self, mysql_op::read_gtid, site, [=](mysql_outcome& o) {
    if (!o.ok) {
      k(false, "unreachable (" + describe(o) + ")");
      return;
    }
    gtid_parse_error pe;
    auto mine = gtid_set::parse(o.value, &pe);
    auto primary = gtid_set::parse(self->state.primary_gtid);
    if (!mine || !primary) {
      k(false, "unparsable gtid_executed" + (mine ? std::string() : " (" + pe.to_string() + ")"));
      return;
    }
    if (mine->subset_of(*primary)) {
      k(true, "");
      return;
    }
    auto extra = mine->subtract(*primary);
    k(false, "divergent: " + extra.to_compact_string() + " (" + std::to_string(extra.count()) +
                 " transactions not on the new primary)");
  });
}

void repoint_next(exec_ptr self) {
  auto& st = self->state;
  const auto& p = st.plan;
  while (st.follower < p.followers.size() &&
         (p.followers[st.follower] == p.candidate || p.followers[st.follower] == p.old_primary))
    ++st.follower;
  if (st.follower >= p.followers.size()) {
    step_done(self);
    return;
  }
  auto site = p.followers[st.follower++];
  auto skip = [=](std::string reason) {
    auto f = fields(self, site);
    f["reason"] = reason;
    log::warn("follower not repointed", f);
    self->state.result.not_repointed.push_back(site + ": " + reason);
    repoint_next(self);
  };
  check_contained(self, site, [=](bool ok, std::string reason) {
    if (!ok) {
      skip(reason);
      return;
    }
    replicate_from(
        self, site, self->state.plan.candidate, true,
        [=] {
          log::info("follower repointed", fields(self, site));
          repoint_next(self);
        },
        skip);
  });
}

void run_repointing(exec_ptr self) {
  auto& st = self->state;
  bool repair = st.plan.kind == plan_kind::recover || st.plan.kind == plan_kind::reclone;
  auto primary = repair ? st.plan.source : st.plan.candidate;
  io(self, mysql_op::read_gtid, primary, [=](mysql_outcome& o) {
    if (!o.ok) {
      fail(self, "read_gtid on primary " + primary + " failed: " + describe(o));
      return;
    }
    self->state.primary_gtid = o.value;
    if (!repair) {
      self->state.follower = 0;
      repoint_next(self);
      return;
    }
    // Repair: S4 -- never replicate a site whose set the primary does not contain.
    auto site = self->state.plan.candidate;
    check_contained(self, site, [=](bool ok, std::string reason) {
      if (!ok) {
        fail(self, site + " not repointed: " + reason);
        return;
      }
      replicate_from(
          self, site, primary, false, [=] { step_done(self); },
          [=](std::string why) { fail(self, site + ": " + why); });
    });
  });
}

// -- reclone ------------------------------------------------------------------------------------

void run_cloning(exec_ptr self) {
  auto& st = self->state;
  auto pt = target_of(self, st.plan.source);
  if (!pt) return;
  auto src = source_of(self, *pt);
  auto clone_timeout = std::max(st.plan.step_timeout, st.deps.clone_timeout);
  auto site = st.plan.candidate;
  io(
      self, mysql_op::clone, site,
      [=](mysql_outcome& o) {
        if (!o.ok) {
          fail(self, "clone of " + site + " failed: " + describe(o));
          return;
        }
        log::info("site recloned", fields(self, site));
        step_done(self);
      },
      clone_timeout, [=](mysql_command& c) { c.source = src; });
}

// -- driver -------------------------------------------------------------------------------------

void run_step(exec_ptr self) {
  auto& st = self->state;
  const auto& cand = st.plan.candidate;
  switch (st.current) {
    case plan_phase::fencing_old:
      run_fencing_old(self);
      return;
    case plan_phase::killing_sessions:
      run_killing_sessions(self);
      return;
    case plan_phase::gating:
      run_gating(self);
      return;
    case plan_phase::draining:
      run_draining(self);
      return;
    case plan_phase::stopping_replica:
      io_must(self, mysql_op::stop_replica, cand, [=] { step_done(self); });
      return;
    case plan_phase::resetting_replica:
      io_must(self, mysql_op::reset_replica_all, cand, [=] { step_done(self); });
      return;
    case plan_phase::recording_gtid:
      run_recording_gtid(self);
      return;
    case plan_phase::promoting:
      // Through the in-database dead man's switch (SAFETY.md rule 7): super_read_only=OFF,
      // heartbeat, read_only=OFF, retried if the switch fires in between. Safe promotes only
      // onto a server whose switch is armed (event scheduler ON, event ENABLED).
      io_must(
          self, mysql_op::promote_switch, cand,
          [=] {
            log::info("candidate promoted", fields(self, self->state.plan.candidate));
            step_done(self);
          },
          [=](mysql_command& c) {
            c.lease = self->state.deps.lease_timeout;
            c.require_armed = self->state.plan.policy == gate_policy::safe;
          });
      return;
    case plan_phase::confirming:
      confirm_probe(self);
      return;
    case plan_phase::steering:
      run_steering(self);
      return;
    case plan_phase::repointing:
      run_repointing(self);
      return;
    case plan_phase::cloning:
      run_cloning(self);
      return;
    case plan_phase::pending:
    case plan_phase::done:
    case plan_phase::failed:
      fail(self, "not a runnable step");
      return;
  }
}

void start_next(exec_ptr self) {
  auto& st = self->state;
  if (st.finished) return;
  if (st.index >= st.steps.size()) {
    st.current = plan_phase::done;
    st.result.ok = true;
    st.result.reached = plan_phase::done;
    log::info("plan done", fields(self, st.plan.candidate));
    report_step(self, st.path, "done");
    finish(self);
    return;
  }
  st.current = st.steps[st.index];
  st.last_note.clear();
  ++st.seq;
  arm_deadline(self, step_deadline(st.current, st.plan, st.deps.clone_timeout));
  report_step(self, st.path, to_string(st.current));
  log::info("plan step started", fields(self, st.plan.candidate));
  run_step(self);
}

void on_deadline(exec_ptr self) {
  auto& st = self->state;
  if (st.current == plan_phase::draining && !st.persisting) {
    // Seeds: the relay drain has a time limit and is not fatal.
    log::warn("relay drain timed out; continuing", fields(self, st.plan.candidate));
    step_done(self);
    return;
  }
  fail(self,
       "deadline exceeded" + (st.last_note.empty() ? std::string() : " (" + st.last_note + ")"));
}

void begin(exec_ptr self) {
  auto& st = self->state;
  const auto& p = st.plan;
  auto f = fields(self, p.candidate);
  f["oldPrimary"] = p.old_primary;
  f["resumeAfter"] = to_string(p.phase);
  f["policy"] = to_string(p.policy);
  log::info(p.kind == plan_kind::failover ? "initiating failover" : "plan started", f);
  auto r = resume_steps(p.kind, p.phase);
  st.current = p.phase;
  if (!r.ok) {
    fail(self, r.error);
    return;
  }
  bool repair = p.kind == plan_kind::recover || p.kind == plan_kind::reclone;
  if (repair && (p.source.empty() || p.source == p.candidate)) {
    st.current = r.steps.empty() ? p.phase : r.steps.front();
    fail(self, p.source.empty()
                   ? "no active primary to repair " + p.candidate + " from"
                   : "refusing to " + to_string(p.kind) + " the active primary " + p.candidate);
    return;
  }
  if (r.promotion_done) log::info("resuming after promotion; not promoting again", f);
  st.steps = std::move(r.steps);
  st.index = 0;
  start_next(self);
}

caf::behavior executor_actor(caf::stateful_actor<executor_state>* self, failover_plan plan,
                             executor_deps deps) {
  auto& st = self->state;
  st.plan = std::move(plan);
  st.deps = std::move(deps);
  st.path = (st.deps.registry_path.empty() ? "group:" + st.plan.group : st.deps.registry_path) +
            "/executor";
  st.result.id = st.plan.id;
  st.result.promotion_gtid = st.plan.promotion_gtid;
  announce(self, st.path, "failover_executor");
  self->attach_functor([workers = st.push_workers] {
    for (auto& [site, w] : *workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  self->send(self, begin_atom::value);
  return {
      [=](begin_atom) { begin(self); },
      [=](deadline_atom, uint64_t seq) {
        if (self->state.finished || self->state.seq != seq) return;
        on_deadline(self);
      },
      [=](gate_atom, uint64_t seq) {
        if (self->state.finished || self->state.seq != seq) return;
        evaluate_gate(self);
      },
      [=](push_atom, const std::string& site, uint64_t seq) {
        if (!gating_now(self, seq) || self->state.gate_opened) return;
        push_deposing(self, site);
      },
      [=](retry_atom, uint64_t seq) {
        if (self->state.finished || self->state.seq != seq) return;
        confirm_probe(self);
      },
  };
}

}  // namespace

caf::actor spawn_failover_executor(caf::event_based_actor* parent, failover_plan plan,
                                   executor_deps deps) {
  return parent->spawn(executor_actor, std::move(plan), std::move(deps));
}

}  // namespace br
