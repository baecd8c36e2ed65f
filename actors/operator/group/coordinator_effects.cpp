// Carrying out step()'s effects: the durable store, MySQL commands through site_io, the
// executor, view pushes to the sidecars, Events, log lines, metrics and coalesced status writes.
// Nothing here decides: every reply goes back to step() as an input.
#include "actors/operator/group/coordinator_effects.hpp"

#include <caf/all.hpp>

#include "actors/common/registry.hpp"
#include "actors/operator/decide/overload.hpp"
#include "actors/operator/group/operator_metrics.hpp"
#include "actors/operator/group/planned_metrics.hpp"
#include "actors/operator/group/view_push.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

using self_ptr = coordinator_self;

opmetrics::group_labels labels(self_ptr self) {
  return {self->state.cfg.namespace_name, self->state.cfg.rules.group};
}

nlohmann::json fields(self_ptr self, const std::string& site = "") {
  nlohmann::json f = {{"group", self->state.cfg.rules.group}, {"epoch", self->state.group.view.epoch}};
  if (!site.empty()) f["site"] = site;
  return f;
}

caf::timespan request_timeout(self_ptr self) {
  return self->state.cfg.command_timeout + std::chrono::seconds(1);
}

mysql_command command_for(self_ptr self, mysql_op op, const std::string& site) {
  mysql_command c;
  c.op = op;
  if (auto t = self->state.cfg.deps.targets.find(site); t != self->state.cfg.deps.targets.end())
    c.target = t->second;
  c.target.site = site;
  c.timeout = self->state.cfg.command_timeout;
  c.leader_generation = self->state.cfg.deps.leader_generation;
  // Not started at all once its request (sent right after this) has timed out.
  c.deadline = self->clock().now() + request_timeout(self);
  return c;
}

/// One MySQL command whose outcome (or nullopt when the request failed) becomes an input.
template <class MakeInput>
void mysql_then_step(self_ptr self, mysql_command cmd, MakeInput make) {
  self->request(self->state.cfg.deps.site_io, request_timeout(self), std::move(cmd))
      .then([=](mysql_outcome& o) { step_group(self, make(std::optional<mysql_outcome>(o))); },
            [=](caf::error&) { step_group(self, make(std::optional<mysql_outcome>())); });
}

void persist(self_ptr self, const durable_state& next) {
  auto& st = self->state;
  self->request(st.cfg.deps.platform.store, st.cfg.store_timeout, persist_atom::value,
                st.cfg.rules.group, next)
      .then([=](bool ok) { step_group(self, input::persisted{ok, ""}); },
            [=](caf::error& err) {
              auto text = self->system().render(err);
              report_error(self, self->state.cfg.path, "persist: " + text);
              step_group(self, input::persisted{false, text});
            });
}

/// Tells every sidecar the view just published (PUT /view) when it names an active site, best
/// effort and without retries: the sidecars also pull it every tick. A promoting view reaches the
/// new primary's sidecar before its next pull, so rule 1 there never sees a stale view naming the
/// old primary. The executor's own deposing pushes (with retries and acknowledgements) are what
/// the gate counts; transitional (deposing) views are pushed by it alone, because one arriving at
/// the candidate's sidecar after the promotion would make it fence the new primary.
void push_view_to_sidecars(self_ptr self, const topology_view& view) {
  auto& st = self->state;
  auto keys = st.cfg.deps.keys;
  if (!st.cfg.deps.http_worker || view.active_site.empty() || !keys || !keys->signer) return;
  auto group = st.cfg.deps.authority_group;
  auto signed_view = auth::sign_view(*keys->signer, group, view);
  auto timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(st.cfg.deps.sidecar_request_timeout);
  for (const auto& [site, addr] : st.cfg.deps.sidecars) {
    if (addr.empty() || !st.push_inflight.insert(site).second) continue;
    auto& w = (*st.push_workers)[site];
    if (!w) w = st.cfg.deps.http_worker();
    auto s = site;
    auto nonce = auth::new_nonce();
    self->request(w, st.cfg.deps.sidecar_request_timeout + std::chrono::seconds(1),
                  http_call_atom::value, view_push_call(addr, signed_view, nonce, timeout))
        .then(
            [=](const http_reply& r) {
              self->state.push_inflight.erase(s);
              auto a = parse_view_ack(s, view, nonce, keys->keys_of_site(s), group, r);
              auto f = fields(self, s);
              f["viewEpoch"] = view.epoch;
              f["acked"] = a.acked;
              if (!a.acked) f["error"] = a.error;
              log::debug("view pushed to sidecar", f);
            },
            [=](caf::error&) { self->state.push_inflight.erase(s); });
  }
}

/// super_read_only=ON, then kill application sessions; the result becomes input::fenced.
void fence_site(self_ptr self, const std::string& site) {
  auto io = self->state.cfg.deps.site_io;
  auto done = [=](bool ok) { step_group(self, input::fenced{site, ok}); };
  self->request(io, request_timeout(self), command_for(self, mysql_op::fence, site))
      .then(
          [=](mysql_outcome& out) {
            auto f = fields(self, site);
            if (!out.ok) {
              f["error"] = out.error;
              log::warn("fence failed", f);
              done(false);
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
                      done(true);
                    },
                    [=](caf::error&) { done(true); });
          },
          [=](caf::error& err) {
            auto f = fields(self, site);
            f["error"] = self->system().render(err);
            log::warn("fence failed", f);
            done(false);
          });
}

void start_executor(self_ptr self, const failover_plan& plan) {
  auto& st = self->state;
  if (!st.cfg.topo->has_plan(plan.kind)) {
    // A plan kind the topology does not have: fail the plan rather than run it.
    plan_result r;
    r.id = plan.id;
    r.reached = plan.phase;
    r.error = to_string(plan.kind) + " is not a plan of the " +
              std::string(st.cfg.topo->name) + " topology";
    log::error("plan refused", fields(self, plan.candidate));
    self->send(self, plan_done_atom::value, std::move(r));
    return;
  }
  if (!st.cfg.make_executor) {
    log::error("no executor factory", fields(self));
    return;
  }
  auto deps = st.cfg.deps;
  deps.coordinator = coordinator_actor{self};
  deps.registry_path = st.cfg.path;
  deps.wall_clock = st.cfg.wall_clock;
  st.executor = st.cfg.make_executor(self, plan, deps);
  if (st.executor) self->monitor(st.executor);
}

void status_changed(self_ptr self, bool now) {
  auto& st = self->state;
  if (now) {
    flush_status(self);
    return;
  }
  if (st.status_flush_scheduled) return;
  st.status_flush_scheduled = true;
  self->delayed_send(self, st.cfg.status_coalesce, flush_atom::value);
}

void record_metric(self_ptr self, const effect::metric& m) {
  auto g = labels(self);
  switch (m.kind) {
    case metric_kind::state_transition:
      opmetrics::state_transitions(g, m.site, m.from, m.to).Increment();
      break;
    case metric_kind::site_state:
      opmetrics::set_site_state(g, m.site, m.role, m.to);
      break;
    case metric_kind::probe:
      opmetrics::observe_probe(g, m.site, m.role, m.active, m.probe);
      break;
    case metric_kind::failover:
      opmetrics::failovers(g, m.site).Increment();
      if (m.value >= 0) opmetrics::observe_failover_duration(g, m.site, m.value);
      break;
    case metric_kind::failover_failure:
      opmetrics::failover_failures(g, m.site, m.detail).Increment();
      break;
    case metric_kind::split_brain_resolved:
      opmetrics::split_brain_auto_resolve(g, m.site).Increment();
      break;
    case metric_kind::divergent:
      opmetrics::divergent_transactions(g, m.site).Set(m.value);
      break;
    case metric_kind::reclone:
      opmetrics::reclone_operations(g, m.site).Increment();
      break;
    case metric_kind::reassert:
      opmetrics::primary_reassert(g, m.site).Increment();
      break;
    case metric_kind::transactions_lost:
      opmetrics::transactions_lost(g, m.site, m.detail).Increment(m.value);
      break;
    case metric_kind::bootstrap_phase:
      opmetrics::bootstrap_phase_seconds(g, m.detail).Observe(m.value);
      break;
    case metric_kind::clone_operation:
      opmetrics::clone_operations(g, m.site, m.detail).Increment();
      break;
    case metric_kind::planned_failover:
      planned_metrics::planned_failovers(g, m.site, m.detail).Increment();
      if (m.value >= 0) planned_metrics::observe_duration(g, m.site, m.value);
      break;
    case metric_kind::planned_lag_wait:
      planned_metrics::observe_lag_wait(g, m.site, m.value);
      break;
  }
}

/// A planned failover's cache step: the Dragonfly manager (a detached actor) does the I/O; the
/// answer, or its absence by the deadline, becomes input::dragonfly_report. Never blocks.
void ask_dragonfly(self_ptr self, const effect::dragonfly_handover& x) {
  auto q = x.request;
  auto deadline = x.deadline;
  auto failed = [self, q](std::string why) {
    dragonfly_handover_report rep;
    rep.promote = q.promote;
    rep.request = q.request;
    rep.error = std::move(why);
    step_group(self, input::dragonfly_report{std::move(rep)});
  };
  self->state.dragonfly.with(
      self,
      [=](const dragonfly_manager_actor& m) {
        self->request(m, deadline, handover_atom::value, q)
            .then([=](dragonfly_handover_report& rep) { step_group(self, input::dragonfly_report{std::move(rep)}); },
                  [=](caf::error& err) {
                    failed("no report from the Dragonfly manager within " +
                           std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(deadline).count()) +
                           " ms: " + self->system().render(err));
                  });
      },
      [=] { failed("no Dragonfly manager runs for this group"); });
}

}  // namespace

void carry_out(self_ptr self, const group_effect& e) {
  auto& st = self->state;
  std::visit(
      overload{
          [&](const effect::persist& x) { persist(self, x.next); },
          [&](const effect::publish& x) {
            report_step(self, st.cfg.path,
                        "epoch " + std::to_string(x.view.epoch) + ", active " +
                            (x.view.active_site.empty() ? std::string("none")
                                                        : x.view.active_site));
            push_view_to_sidecars(self, x.view);
          },
          [&](const effect::status& x) { status_changed(self, x.now); },
          [&](const effect::fence& x) { fence_site(self, x.site); },
          [&](const effect::read_gtid& x) {
            auto site = x.site;
            mysql_then_step(self, command_for(self, mysql_op::read_gtid, site),
                            [site](std::optional<mysql_outcome> o) {
                              return input::gtid_read{site, std::move(o)};
                            });
          },
          [&](const effect::heartbeat& x) {
            auto site = x.site;
            auto ensure = x.ensure;
            auto cmd = command_for(self, ensure ? mysql_op::ensure_switch : mysql_op::heartbeat,
                                   site);
            cmd.lease = st.cfg.deps.lease_timeout;
            mysql_then_step(self, std::move(cmd), [site, ensure](std::optional<mysql_outcome> o) {
              return input::heartbeat_done{site, ensure, std::move(o)};
            });
          },
          [&](const effect::reassert& x) {
            // The same promotion path as the executor's (docs/safety.md rule 7): through the
            // dead man's switch, so the switch does not fence the server again a second later.
            auto site = x.site;
            auto cmd = command_for(self, mysql_op::promote_switch, site);
            cmd.lease = st.cfg.deps.lease_timeout;
            cmd.require_armed = x.require_armed;
            auto done = [site](std::optional<mysql_outcome> o) {
              return input::reassert_done{site, std::move(o)};
            };
            if (x.semisync_k == 0) {
              mysql_then_step(self, std::move(cmd), done);
              return;
            }
            // Semi-sync: the source side first (a restarted primary boots with it OFF); a
            // failure is the re-assert's failure, and nothing is unfenced.
            auto ss = command_for(self, mysql_op::semisync_source, site);
            ss.semisync_k = x.semisync_k;
            self->request(st.cfg.deps.site_io, request_timeout(self), std::move(ss))
                .then(
                    [=](mysql_outcome& o) {
                      if (!o.ok) {
                        step_group(self, done(std::optional<mysql_outcome>(o)));
                        return;
                      }
                      mysql_then_step(self, cmd, done);
                    },
                    [=](caf::error&) { step_group(self, done(std::optional<mysql_outcome>())); });
          },
          [&](const effect::start_executor& x) { start_executor(self, x.plan); },
          [&](const effect::start_receiver& x) {
            auto site = x.site;
            mysql_then_step(self, command_for(self, mysql_op::start_replica, site),
                            [site](std::optional<mysql_outcome> o) {
                              return input::receiver_started{site, std::move(o)};
                            });
          },
          [&](const effect::semisync_source& x) {
            auto site = x.site;
            auto cmd = command_for(self, mysql_op::semisync_source, site);
            cmd.semisync_k = x.k;
            self->request(st.cfg.deps.site_io, request_timeout(self), std::move(cmd))
                .then(
                    [=](mysql_outcome& o) {
                      auto f = fields(self, site);
                      if (!o.ok) f["error"] = o.error;
                      if (o.ok)
                        log::info("semi-sync: the primary's source side switched ON", f);
                      else
                        log::warn("semi-sync: switching the primary's source side ON failed", f);
                    },
                    [=](caf::error&) {});
          },
          [&](const effect::stop_receiver& x) {
            auto site = x.site;
            auto cmd = command_for(self, mysql_op::stop_replica, site);
            self->request(st.cfg.deps.site_io, cmd.timeout + std::chrono::seconds(2), std::move(cmd))
                .then(
                    [=](mysql_outcome& o) {
                      if (!o.ok)
                        log::warn("restore freeze: STOP REPLICA failed",
                                  {{"group", self->state.cfg.rules.group}, {"site", site}, {"error", o.error}});
                    },
                    [=](caf::error& e) {
                      log::warn("restore freeze: STOP REPLICA failed",
                                {{"group", self->state.cfg.rules.group}, {"site", site}, {"error", to_string(e)}});
                    });
          },
          [&](const effect::gr_command& x) {
            // Group Replication (decide/gr_step.hpp): the recovery account is the replication
            // account, on the START statement only; START and STOP get the group's own deadline.
            auto site = x.site;
            auto op = x.op;
            auto cmd = command_for(self, op, site);
            cmd.gr = x.settings;
            cmd.member_id = x.member_id;
            cmd.source = st.cfg.deps.replication;
            cmd.timeout = st.cfg.rules.gr.command_timeout;
            cmd.deadline = self->clock().now() + cmd.timeout + std::chrono::seconds(1);
            self->request(st.cfg.deps.site_io, cmd.timeout + std::chrono::seconds(2), std::move(cmd))
                .then(
                    [=](mysql_outcome& o) {
                      step_group(self, input::gr_done{site, op, std::optional<mysql_outcome>(o)});
                    },
                    [=](caf::error&) { step_group(self, input::gr_done{site, op, std::nullopt}); });
          },
          [&](const effect::dragonfly_handover& x) { ask_dragonfly(self, x); },
          [&](const effect::emit& x) {
            if (st.cfg.deps.platform.events)
              self->send(st.cfg.deps.platform.events, event_atom::value, x.event);
          },
          [&](const effect::log& x) {
            log::write(static_cast<log::level>(x.level), x.message, x.fields);
          },
          [&](const effect::metric& x) { record_metric(self, x); },
          [&](const effect::reply& x) {
            auto it = st.phase_replies.find(x.id);
            if (it == st.phase_replies.end()) return;
            auto rp = it->second;
            st.phase_replies.erase(it);
            rp.deliver(x.ok);
          },
      },
      e);
}

}  // namespace br
