// step(): spec.restoreInPlace's arming and freeze (decide/restore_freeze.hpp for the rules). The
// token and the freeze are one durable write (durable_state::restore_freeze), made before the
// active site is fenced; the fence and the unfence follow only once the store holds it.
#include <string>

#include "actors/operator/decide/restore_freeze.hpp"
#include "actors/operator/decide/site_order.hpp"
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

namespace {

restore_freeze_facts facts_of(const context& c) {
  const auto& st = c.st;
  restore_freeze_facts f;
  f.sites = c.rules.sites;
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

/// The fence of the target and the other sites' STOP REPLICA (`restore --replace` refuses a
/// target that serves a replica): sent when the freeze is stored, and again on each request of the
/// same freeze (the controller asks on every Fencing pass until a fresh probe confirms them).
void fence_for_restore(context& c, const std::string& site) {
  c.fence(site);
  for (const auto& s : c.rules.sites)
    if (s != site) c.out.emplace_back(effect::stop_receiver{s});
}

void on_restore_freeze_request(context& c, const std::string& value) {
  auto& st = c.st;
  restore_freeze_request rq;
  if (!parse_restore_freeze_request(value, rq)) {
    c.answer = "rejected: a restore-in-place request is freeze:<token>:<site>, lift:<token>, cancel:<token> or "
               "abandon:<token>";
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
  auto v = rq.verb == restore_freeze_verb::freeze ? check_freeze(facts_of(c), rq.token, rq.site)
                                                   : check_unfreeze(facts_of(c), rq.verb, rq.token);
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
  if (v.refence) fence_for_restore(c, st.durable.restore_freeze.site);
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
    fence_for_restore(c, site);
  } else if (!x.record.frozen && x.before.frozen && restore_pending(x.record, site)) {
    c.emit("Warning", "RestoreInPlaceAbandoned",
           "the freeze of token " + x.record.token + " is lifted after a failed restore; " + site +
               " stays fenced and every site is restore-pending (no failover, no replication) until a newer "
               "confirm restores " + site + " again",
           site);
  } else if (!x.record.frozen && x.before.frozen) {
    c.emit("Normal", "RestoreInPlaceResumed",
           "the freeze of token " + x.record.token + " is lifted; " + site +
               " is made writable again through the promotion path" +
               (x.record.pending.empty() ? std::string()
                                         : "; restore-pending until recloned from it: " + join_names(x.record.pending)),
           site);
    c.out.emplace_back(effect::reassert{site, c.rules.policy == gate_policy::safe,
                                                   c.rules.semisync_k});
  }
  status_changed(c, true);
}

bool freeze_holds(context& c, const group_evaluation& ev) {
  const auto& fr = c.st.durable.restore_freeze;
  // An abandoned restore (a person lifted a Failed one) holds its half-loaded target fenced and
  // every other site restore-pending: nothing may be promoted, re-asserted or repointed either.
  const bool abandoned = !fr.frozen && !fr.site.empty() && restore_pending(fr, fr.site);
  if (!fr.frozen && !abandoned) return false;
  // A writable site other than the restore's target is a stray primary: fenced, whatever the
  // verdict (with the target writable on purpose while the Job loads it, two writable sites read
  // as a split brain, whose rules would start a plan). Abandoned: the target too.
  for (const auto& s : ev.writable)
    if (s != fr.site || abandoned) c.fence(s);
  return true;
}

}  // namespace br::step_detail
