// step(): manual fence of sites (decide/manual_fence.hpp for the acceptance rules). The set is
// durable (durable_state::manually_fenced); a fenced site counts as read-only for every rule
// (context::role_of, roles_now), so it is never a candidate and is fenced when found writable.
#include <algorithm>
#include <string>

#include "actors/operator/decide/manual_fence.hpp"
#include "actors/operator/decide/step_context.hpp"

namespace br::step_detail {

namespace {

manual_fence_facts facts_of(const context& c) {
  manual_fence_facts f;
  f.sites = c.rules.sites;
  f.roles = c.rules.roles;
  f.active_site = c.st.view.active_site;
  f.plan_running = c.st.durable.plan_active;
  f.fenced = c.st.durable.manually_fenced;
  if (c.rules.gr.enabled) {
    f.gr.emplace();
    f.gr->members = gr_quorum_members(c);
    f.gr->declared = std::max<std::size_t>(c.rules.sites.size(),
                                           static_cast<std::size_t>(c.st.durable.gr.observed_view_max));
    f.gr->view_known = c.st.gr.evaluated && c.st.gr.view.known;
  }
  return f;
}

bool writing(const group_state& st) { return st.persisting.has_value() || !st.persist_queue.empty(); }

/// Why the annotation is not applied: said once per reason (Event + status), changes nothing.
void annotation_refused(context& c, const std::string& value, const std::string& reason) {
  if (c.st.fence_note == reason) return;
  c.st.fence_note = reason;
  auto f = c.fields();
  f["value"] = value;
  f["reason"] = reason;
  c.log(log_level::warn, "fenced-sites annotation refused", f);
  c.emit("Warning", "FenceRejected",
         std::string(fenced_sites_annotation) + "=" + value + " refused: " + reason);
  status_changed(c, true);
}

void apply(context& c, const manual_fence_verdict& v) {
  auto f = c.fields();
  f["change"] = v.reason;
  c.log(log_level::info, "manual fence changed", f);
  if (!c.st.fence_note.empty()) c.st.fence_note.clear();
  persist(c, change_manual_fence{v.next, c.st.durable.manually_fenced});
}

}  // namespace

std::map<std::string, site_role> roles_now(const context& c) {
  auto held = c.st.durable.manually_fenced;  // restore-pending sites too (decide/restore_freeze.hpp)
  held.insert(c.st.durable.restore_freeze.pending.begin(), c.st.durable.restore_freeze.pending.end());
  return effective_roles(c.rules.roles, held);
}

void on_fence_annotation(context& c, const std::string& value) {
  auto& st = c.st;
  if (!st.loaded) {
    c.answer = "busy: the group's durable state is not loaded yet; try again";
    return;
  }
  st.fence_annotation = value;
  auto v = check_fenced_set(facts_of(c), value);
  if (!v.accepted) {
    annotation_refused(c, value, v.reason);
    c.answer = "rejected: " + v.reason;
    return;
  }
  c.answer = "accepted: " + v.reason;
  reconcile_fence(c);
}

void on_fence_request(context& c, const std::string& value) {
  auto& st = c.st;
  std::string site;
  bool on = false;
  if (!parse_fence_request(value, site, on)) {
    c.answer = "rejected: a fence request is on:<site> or off:<site>";
    return;
  }
  if (st.fence_annotation) {
    c.answer = std::string("rejected: this group's fence is set by the annotation ") +
               fenced_sites_annotation + "; edit it instead";
    return;
  }
  if (!st.loaded || writing(st)) {
    c.answer = "busy: the group's durable state is not loaded or being written; try again";
    return;
  }
  auto v = check_fence_request(facts_of(c), site, on);
  auto f = c.fields(site);
  f["reason"] = v.reason;
  if (!v.accepted) {
    c.log(log_level::warn, "fence request refused", f);
    c.emit("Warning", "FenceRejected",
           std::string(on ? "fence" : "unfence") + " of " + site + " refused: " + v.reason, site);
    c.answer = "rejected: " + v.reason;
    return;
  }
  c.answer = "accepted: " + v.reason;
  if (v.next != st.durable.manually_fenced) apply(c, v);
}

void reconcile_fence(context& c) {
  auto& st = c.st;
  if (!st.fence_annotation || !st.loaded || writing(st)) return;
  auto v = check_fenced_set(facts_of(c), *st.fence_annotation);
  if (!v.accepted) {
    annotation_refused(c, *st.fence_annotation, v.reason);
    return;
  }
  if (v.next != st.durable.manually_fenced) {
    apply(c, v);
  } else if (!st.fence_note.empty()) {
    st.fence_note.clear();
    status_changed(c, true);
  }
}

void fence_persisted(context& c, const change_manual_fence& x, bool ok) {
  if (!ok) {
    c.log(log_level::error, "manual fence not recorded; the request must be made again", c.fields());
    return;
  }
  for (const auto& s : x.sites)
    if (!x.before.count(s)) {
      c.emit("Normal", "SiteFenced",
             s + " fenced by request: never a failover candidate, out of the routing Services, "
                 "super_read_only stays ON",
             s);
      // Whatever it was: super_read_only ON, application sessions ended. A Group Replication
      // member is fenced by STOP GROUP_REPLICATION instead, sent by gr_evaluate (one command at a
      // time; it also sets super_read_only).
      if (!c.rules.gr.enabled) c.fence(s);
    }
  for (const auto& s : x.before)
    if (!x.sites.count(s))
      c.emit("Normal", "SiteUnfenced",
             s + " unfenced by request: back in routing when healthy, a candidate if its role is",
             s);
  status_changed(c, true);
}

}  // namespace br::step_detail
