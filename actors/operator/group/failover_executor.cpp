// The failover executor actor (see failover_executor.hpp): one plan, step by step, with deadlines.
// This file is the driver: where a plan resumes, which step runs next, the deadline of each, and
// the behaviour. The steps themselves are in executor_{fence_gate,promote,steer,repair}.cpp.
#include "actors/operator/group/failover_executor.hpp"

#include "actors/common/registry.hpp"
#include "actors/operator/decide/plan_steps.hpp"
#include "actors/operator/group/executor_core.hpp"
#include "io/log/log.hpp"

namespace br {

namespace executor {

namespace {

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
      run_stopping_replica(self);
      return;
    case plan_phase::resetting_replica:
      run_sql_must(self, mysql_op::reset_replica_all, cand, [=] { step_done(self); });
      return;
    case plan_phase::recording_gtid:
      run_recording_gtid(self);
      return;
    case plan_phase::promoting:
      run_promoting(self);
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
      run_auto_cloning(self);  // auto_clone and reclone
      return;
    case plan_phase::verifying_accounts:
      run_verifying_accounts(self);
      return;
    case plan_phase::restarting:
      run_restarting(self);
      return;
    case plan_phase::pending:
    case plan_phase::done:
    case plan_phase::failed:
      fail(self, "not a runnable step");
      return;
  }
}

}  // namespace

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
  st.step_started = now_of(self);
  st.last_note.clear();
  ++st.seq;
  arm_deadline(self, step_deadline(st.current, st.plan, st.deps.clone_timeout));
  report_step(self, st.path, to_string(st.current));
  log::info("plan step started", fields(self, st.plan.candidate));
  run_step(self);
}

namespace {

void on_deadline(exec_ptr self) {
  auto& st = self->state;
  if (st.current == plan_phase::draining && !st.persisting &&
      st.plan.kind == plan_kind::switchover) {
    // The candidate did not catch up with the fenced source within maxLagWait: promoting it
    // would lose acknowledged writes (S3). Roll back instead (fail() keeps the source).
    fail(self, "LagTimeout: the candidate did not execute the source's transactions within "
               "maxLagWait" + (st.last_note.empty() ? std::string() : " (" + st.last_note + ")"));
    return;
  }
  if (st.current == plan_phase::draining && !st.persisting) {
    // The relay drain has a time limit and is not fatal.
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
  bool repair = is_repair_kind(p.kind);
  if (repair && (p.source.empty() || p.source == p.candidate)) {
    st.current = r.steps.empty() ? p.phase : r.steps.front();
    fail(self, p.source.empty()
                   ? "no active primary to repair " + p.candidate + " from"
                   : "refusing to " + to_string(p.kind) + " the active primary " + p.candidate);
    return;
  }
  if (r.promotion_done) log::info("resuming after promotion; not promoting again", f);
  st.promotion_done = r.promotion_done;
  st.steps = std::move(r.steps);
  st.index = 0;
  start_next(self);
}

executor_actor::behavior_type executor(exec_ptr self, failover_plan plan, executor_deps deps) {
  auto& st = self->state;
  st.plan = std::move(plan);
  st.deps = std::move(deps);
  st.path = (st.deps.registry_path.empty() ? "group:" + st.plan.group : st.deps.registry_path) +
            "/executor";
  st.result.id = st.plan.id;
  st.result.promotion_gtid = st.plan.promotion_gtid;
  st.result.source_gtid = st.plan.source_gtid;
  st.result.losses = st.plan.losses;
  announce(self, st.path, "failover_executor");
  self->attach_functor([workers = st.push_workers] {
    for (auto& [site, w] : *workers) caf::anon_send_exit(w, caf::exit_reason::user_shutdown);
  });
  self->send(self, begin_atom::value);
  return {
      [=](begin_atom) { begin(self); },
      [=](deadline_atom, uint64_t seq) {
        if (!stale(self, seq)) on_deadline(self);
      },
      [=](gate_atom, uint64_t seq) {
        if (!stale(self, seq)) evaluate_gate(self);
      },
      [=](push_atom, const std::string& site, uint64_t seq) {
        if (!gating_now(self, seq) || self->state.gate_opened) return;
        push_deposing(self, site);
      },
      [=](retry_atom, uint64_t seq) {
        if (stale(self, seq)) return;
        if (self->state.current == plan_phase::restarting)
          run_restarting(self);
        else if (self->state.current == plan_phase::cloning)
          run_auto_cloning(self);
        else
          confirm_probe(self);
      },
  };
}

}  // namespace

}  // namespace executor

executor_actor spawn_failover_executor(caf::local_actor* parent, failover_plan plan,
                                       executor_deps deps) {
  return parent->spawn(executor::executor, std::move(plan), std::move(deps));
}

}  // namespace br
