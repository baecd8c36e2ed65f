// step(): spec.restoreInPlace's arming and freeze (decide/restore_freeze.hpp for the rules). The
// token and the freeze are one durable write (durable_state::restore_freeze), made before the
// active site is fenced; the fence and the unfence follow only once the store holds it.
#include <string>

#include "actors/operator/decide/restore_freeze.hpp"
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

namespace {

restore_freeze_facts facts_of(const context& c) {
  const auto& st = c.st;
  restore_freeze_facts f;
  f.active_site = st.view.active_site;
  if (auto r = st.reports.find(f.active_site); r != st.reports.end()) {
    f.active_writable = r->second.probe_ok && r->second.step.next.state == site_state::writable;
    f.active_known = r->second.step.next.state != site_state::unknown;
  }
  f.plan_running = st.durable.plan_active;
  f.bootstrap_running = st.durable.bootstrap.in_progress();
  f.planned_deferred = st.durable.planned.phase == "Deferred";
  f.now = st.durable.restore_freeze;
  return f;
}

}  // namespace

void on_restore_freeze_request(context& c, const std::string& value) {
  auto& st = c.st;
  bool freeze = false;
  std::string token;
  if (!parse_restore_freeze_request(value, freeze, token)) {
    c.answer = "rejected: a restore-in-place request is freeze:<token> or lift:<token>";
    return;
  }
  if (c.rules.gr.enabled) {  // the group fences and elects itself: the async freeze means nothing there
    c.answer = "rejected: an in-place restore of a Group Replication group is not supported";
    return;
  }
  if (!st.loaded || st.persisting || !st.persist_queue.empty()) {
    c.answer = "busy: the group's durable state is not loaded or being written; try again";
    return;
  }
  auto v = freeze ? check_freeze(facts_of(c), token) : check_lift(facts_of(c), token);
  auto f = c.fields(st.view.active_site);
  f["request"] = value;
  f["reason"] = v.reason;
  if (v.wait) {
    c.answer = "busy: " + v.reason;
    return;
  }
  if (!v.accepted) {
    c.log(log_level::warn, "restore-in-place request refused", f);
    c.answer = "rejected: " + v.reason;
    return;
  }
  c.answer = "accepted: " + v.reason;
  if (!v.changes) return;
  c.log(log_level::info, "restore-in-place request accepted", f);
  persist(c, change_restore_freeze{v.next, st.durable.restore_freeze});
}

void restore_freeze_persisted(context& c, const change_restore_freeze& x, bool ok) {
  if (!ok) {
    c.log(log_level::error, "restore-in-place freeze not recorded; nothing was changed", c.fields());
    return;
  }
  const auto& site = x.record.site;
  if (x.record.frozen && !x.before.frozen) {
    c.emit("Normal", "RestoreInPlaceFrozen",
           "confirm token " + x.record.token + " recorded; no failover, clone, recovery or re-assert until the "
           "restore ends; " + site + " fenced (super_read_only) for the restore",
           site);
    c.fence(site);
    // `restore --replace` refuses a target that serves a replica: the others stop replicating
    // from it until they are recloned from the restored data (the controller waits for it).
    for (const auto& s : c.rules.sites)
      if (s != site) c.out.emplace_back(effect::stop_receiver{s});
  } else if (!x.record.frozen && x.before.frozen) {
    c.emit("Normal", "RestoreInPlaceResumed",
           "the freeze of token " + x.record.token + " is lifted; " + site +
               " is made writable again through the promotion path",
           site);
    c.out.emplace_back(effect::reassert{site, c.rules.policy == gate_policy::safe});
  }
  status_changed(c, true);
}

bool freeze_holds(context& c, const group_evaluation& ev) {
  const auto& fr = c.st.durable.restore_freeze;
  if (!fr.frozen) return false;
  // A writable site other than the restore's target is a stray primary: fenced, whatever the
  // verdict (with the target writable on purpose while the Job loads it, two writable sites read
  // as a split brain, whose rules would start a plan).
  for (const auto& s : ev.writable)
    if (s != fr.site) c.fence(s);
  return true;
}

}  // namespace br::step_detail
