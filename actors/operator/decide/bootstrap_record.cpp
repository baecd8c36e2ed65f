// status.bootstrap bookkeeping (see bootstrap_record.hpp).
#include "actors/operator/decide/bootstrap_record.hpp"

namespace br {

namespace {

bootstrap_site* find(bootstrap_record& r, const std::string& name) {
  for (auto& s : r.sites)
    if (s.name == name) return &s;
  return nullptr;
}

bool tracked(plan_kind k) {
  return k == plan_kind::bootstrap || k == plan_kind::auto_clone || k == plan_kind::reclone;
}

}  // namespace

std::string overall_phase(const bootstrap_record& r) {
  bool all_done = true, failed = false;
  for (const auto& s : r.sites) {
    if (s.action == "divergent") continue;
    if (s.phase == "Promoting" || s.phase == "Cloning" || s.phase == "WaitingForRestart" ||
        s.phase == "SetupReplication")
      return s.phase;
    if (s.phase == "Failed") failed = true;
    if (s.phase != "Done") all_done = false;
  }
  if (all_done) return "Done";
  return failed ? "Failed" : "Pending";
}

std::string site_phase_after(plan_kind kind, plan_phase phase) {
  if (kind == plan_kind::bootstrap) return "Promoting";
  switch (phase) {
    case plan_phase::pending:
      return "Cloning";
    case plan_phase::fencing_old:
      return "Cloning";  // auto_clone and reclone fence the recipient first, then clone
    case plan_phase::cloning:
      return "WaitingForRestart";
    case plan_phase::done:
      return "Done";
    case plan_phase::failed:
      return "Failed";
    default:
      return "SetupReplication";
  }
}

void record_plan_started(bootstrap_record& r, const failover_plan& plan, int64_t at_ms) {
  if (!tracked(plan.kind)) return;
  if (plan.kind == plan_kind::reclone) {
    r = bootstrap_record{};
    r.source = "reclone";
    r.seed = plan.source;
    r.started_ms = at_ms;
    r.sites.push_back({plan.candidate, "clone", "Pending", "", 0, 0, 0});
  }
  auto* s = find(r, plan.candidate);
  if (!s) return;
  s->phase = plan.kind == plan_kind::bootstrap ? "Promoting" : "Cloning";
  s->message.clear();
  s->started_ms = at_ms;
  s->finished_ms = 0;
  ++s->attempts;
  r.phase = overall_phase(r);
  r.finished_ms = 0;
}

void record_plan_phase(bootstrap_record& r, const failover_plan& plan, plan_phase phase) {
  if (!tracked(plan.kind)) return;
  if (auto* s = find(r, plan.candidate)) s->phase = site_phase_after(plan.kind, phase);
  r.phase = overall_phase(r);
}

void record_plan_done(bootstrap_record& r, const failover_plan& plan, const plan_result& res,
                      int64_t at_ms) {
  if (!tracked(plan.kind)) return;
  auto* s = find(r, plan.candidate);
  if (!s) return;
  s->finished_ms = at_ms;
  if (res.ok) {
    s->phase = "Done";
    s->message = plan.kind == plan_kind::bootstrap ? "promoted; the seed is the active site"
                 : res.clone_outcome.empty()       ? "replicating"
                                                   : "replicating (" + res.clone_outcome + ")";
  } else {
    s->phase = "Failed";
    s->message = res.error;
  }
  r.phase = overall_phase(r);
  r.message = res.ok ? "" : plan.candidate + ": " + res.error;
  if (r.phase == "Done") r.finished_ms = at_ms;
}

void note_promoted_during_bootstrap(bootstrap_record& r, const std::string& site, int64_t at_ms) {
  if (r.source != "fresh-deploy" || r.phase == "Done") return;
  auto* s = find(r, site);
  if (!s || s->phase == "Done" || s->action == "seed") return;
  s->phase = "Done";
  s->message = "promoted by a failover during the bootstrap";
  s->finished_ms = at_ms;
  r.phase = overall_phase(r);
  if (r.phase == "Done") r.finished_ms = at_ms;
}

}  // namespace br
