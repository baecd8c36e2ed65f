// coordinator: the actor around step(). Each message or reply becomes a group_input, step()
// returns the next state and the effects, and coordinator_effects.cpp carries them out.
#include "actors/operator/group/coordinator.hpp"

#include "actors/operator/decide/gr_step.hpp"

#include <caf/all.hpp>

#include "actors/common/registry.hpp"
#include "actors/operator/group/coordinator_effects.hpp"
#include "actors/operator/group/epoch_recovery.hpp"
#include "actors/operator/group/gr_metrics.hpp"
#include "actors/operator/decide/admin_handoff.hpp"
#include "actors/operator/decide/coordinator_decide.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

using self_ptr = coordinator_self;

config::group_status status_of(self_ptr self) {
  const auto& st = self->state;
  const auto& g = st.group;
  status_inputs in;
  in.sites = st.cfg.rules.sites;
  in.roles = st.cfg.rules.roles;
  in.reports = g.reports;
  in.good_probes = g.good_probes;
  in.last_seen_ms = g.last_seen_ms;
  in.durable = g.durable;
  in.view = g.view;
  in.evaluation = g.evaluation;
  in.evaluated = g.evaluated;
  in.bootstrap_note = g.bootstrap_note;
  in.fence_note = g.fence_note;
  in.planned = g.planned;
  in.planned_refused = g.planned_refused;
  if (st.cfg.rules.gr.enabled) in.group_replication = gr_status_of(st.cfg.rules, g);
  return build_group_status(in);
}

handoff_facts handoff_facts_of(const group_state& g) {
  return {g.durable.plan_active, g.durable.plan, g.planned};
}

}  // namespace

wall_time coordinator_wall_now(coordinator_self self) {
  return wall_now(self->state.cfg.wall_clock);
}

std::optional<std::string> step_group(coordinator_self self, const group_input& in) {
  auto& st = self->state;
  step_clock clock{self->clock().now(), coordinator_wall_now(self)};
  auto res = st.cfg.topo->step(st.cfg.rules, std::move(st.group), in, clock);
  st.group = std::move(res.state);
  for (auto& e : res.effects) carry_out(self, e);
  if (!st.group.executor_running) st.executor = nullptr;
  return std::move(res.answer);
}

void flush_status(coordinator_self self) {
  auto& st = self->state;
  st.status_flush_scheduled = false;
  auto status = status_of(self);
  if (st.last_status && status == *st.last_status) return;
  st.last_status = status;
  if (status.group_replication)
    gr_metrics::set_from_status({st.cfg.namespace_name, st.cfg.rules.group},
                                *status.group_replication);
  if (st.cfg.deps.platform.status)
    self->send(st.cfg.deps.platform.status, status_atom::value, st.cfg.rules.group, std::move(status));
}

coordinator_actor::behavior_type coordinator(coordinator_self self, coordinator_config cfg) {
  self->state.cfg = std::move(cfg);
  auto& st = self->state;
  announce(self, st.cfg.path, "coordinator");
  report_step(self, st.cfg.path, "loading state");
  self->attach_functor([workers = st.push_workers] {
    for (auto& [site, w] : *workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  st.dragonfly = child_ref<dragonfly_manager_actor>(st.cfg.supervisor, "dragonfly");
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& s = self->state;
    if (s.dragonfly.on_down(dm)) return;
    if (!s.executor || dm.source != s.executor.address()) return;
    s.executor = nullptr;
    step_group(self, input::executor_down{self->system().render(dm.reason)});
  });
  self->request(st.cfg.deps.platform.store, st.cfg.store_timeout, load_atom::value, st.cfg.rules.group)
      .then([=](durable_state& d) { load_after_epoch_recovery(self, std::move(d)); },
            [=](caf::error& err) {
              nlohmann::json f = {{"group", self->state.cfg.rules.group}};
              f["error"] = self->system().render(err);
              log::error("durable state load failed", f);
              report_error(self, self->state.cfg.path, "load: " + self->system().render(err));
              self->quit(err);
            });
  return {
      [=](observe_atom, site_report& r) { step_group(self, input::report{std::move(r)}); },
      [=](view_atom) { return self->state.group.view; },
      [=](status_atom) { return status_of(self); },
      [=](phase_atom, uint64_t id, plan_phase phase, plan_facts& facts) -> caf::result<bool> {
        auto& s = self->state;
        auto reply = s.next_reply++;
        auto rp = self->make_response_promise<bool>();
        s.phase_replies.emplace(reply, rp);
        step_group(self, input::phase{id, phase, std::move(facts), reply});
        return rp;
      },
      [=](plan_done_atom, plan_result& r) { step_group(self, input::plan_done{std::move(r)}); },
      [=](annotate_atom, std::string& key, std::string& value) -> std::string {
        // A request handed again (same id) is answered, not acted on twice (admin_handoff.hpp).
        auto req = split_handoff_key(key);
        auto& s = self->state;
        auto again = answer_again(s.taken, req.annotation, value, req.id, handoff_facts_of(s.group));
        auto answer = again ? *again
                            : step_group(self, input::annotate{req.annotation, std::move(value)})
                                  .value_or("rejected: no answer");
        s.taken = remember_taken(s.taken, req.annotation, req.id, answer, handoff_facts_of(s.group));
        return answer;
      },
      [=](switchover_atom, std::string& target) -> std::string {
        return step_group(self, input::switchover{std::move(target)})
            .value_or("rejected: no answer");
      },
      [=](flush_atom) { flush_status(self); },
  };
}

coordinator_actor spawn_coordinator(caf::actor_system& sys, coordinator_config cfg) {
  return sys.spawn(coordinator, std::move(cfg));
}

}  // namespace br
