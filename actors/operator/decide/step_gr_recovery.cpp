// step(): Group Replication quorum loss and guarded recovery (issue 23; decide/gr_quorum.hpp for
// the rules). A group whose reachable ONLINE members are fewer than its majority is Blocked: the
// operator observes and does nothing that changes the group. Only a person's request
// (bloodraven.shipstream.io/force-quorum-recovery = <request id>@<plan digest>) acts, and only on
// the plan the operator computes itself at that moment (never the client's), and only when that
// plan is the one the person confirmed (its digest, as published): force_members on the safe
// survivor, or a re-bootstrap of the member every other member's transactions are part of. The
// request and the plan are recorded durably before the command is sent, so a restarted operator
// never sends it twice; it only clears group_replication_force_members and closes the record.
#include <algorithm>
#include <string>

#include "actors/operator/decide/step_context.hpp"
#include "messages/gtid_set.hpp"

namespace br::step_detail {

namespace {

/// Every declared member for the recovery rules: the quorum view (gr_quorum_members) plus its
/// gtid_executed this round, its last read one, and whether its own table shows a majority.
std::vector<gr::quorum_member> recovery_members(const context& c) {
  auto members = gr_quorum_members(c);
  for (auto& m : members) {
    if (auto r = c.st.reports.find(m.site); r != c.st.reports.end()) m.answered = r->second.probe_ok;
    if (auto p = c.st.good_probes.find(m.site); p != c.st.good_probes.end())
      m.last_gtid = gtid_set::parse(p->second.gtid_executed);
    const gr_snapshot* s = gr_snapshot_of(c, m.site);
    if (!s) continue;
    m.gtid_executed = gtid_set::parse(c.st.reports.at(m.site).probe.gtid_executed);
    m.sees_majority = in_quorate_view(*s);
  }
  return members;
}

void set_outcome(context& c, const std::string& reason, const std::string& message) {
  auto& g = c.st.gr;
  g.recovery_reason = reason;
  g.recovery_message = message;
  status_changed(c, true);
}

/// The request `<id>@<plan digest>`: the id (any text) and the digest of the published plan the
/// person confirmed (status.groupReplication.recoveryPlan.digest), split at the last '@'.
struct recovery_request {
  std::string id, digest, error;
};

recovery_request parse_request(const std::string& value) {
  recovery_request r;
  const auto at = value.rfind('@');
  if (at == std::string::npos || at == 0 || at + 1 == value.size()) {
    r.error = "the request must name the plan it confirms: <id>@<recoveryPlan.digest> "
              "(kubectl bloodraven group recover sends it)";
    return r;
  }
  r.id = value.substr(0, at);
  r.digest = value.substr(at + 1);
  if (r.id.size() > 128) r.error = "the request's id is 1-128 characters (a timestamp, a ticket)";
  return r;
}

std::string risk_text(const gr::recovery_plan& p) {
  std::string out;
  for (const auto& r : p.at_risk) out += (out.empty() ? "" : "; ") + r;
  return out;
}

}  // namespace

std::size_t gr_declared(const context& c) {
  return std::max<std::size_t>(c.rules.sites.size(),
                               static_cast<std::size_t>(c.st.durable.gr.observed_view_max));
}

void gr_check_quorum(context& c) {
  auto& g = c.st.gr;
  const bool all_reported = std::all_of(c.rules.sites.begin(), c.rules.sites.end(),
                                        [&](const std::string& s) { return c.st.reports.count(s) > 0; });
  auto members = recovery_members(c);
  gr::quorum_facts facts;
  facts.bootstrapped = c.st.durable.gr.bootstrapped;
  facts.all_reported = all_reported;
  facts.agreed_with_quorum = g.view.known && g.view.has_quorum;
  // Counted over the largest view the group agreed on (a group still growing after its
  // bootstrap is judged by its own size, not Blocked while its members join one by one).
  const auto view_max = static_cast<std::size_t>(c.st.durable.gr.observed_view_max);
  auto v = gr::quorum_block(members, view_max > 0 ? view_max : c.rules.sites.size(), facts);
  std::optional<gr::recovery_plan> preview;
  if (v.blocked) preview = gr::plan_quorum_recovery(members, gr_declared(c));
  if (v.blocked == g.blocked && v.reason == g.blocked_reason && preview == g.preview) return;
  if (v.blocked != g.blocked) {
    auto f = c.fields();
    f["blocked"] = v.blocked;
    f["reason"] = v.reason;
    c.log(v.blocked ? log_level::warn : log_level::info,
          v.blocked ? "group blocked: quorum lost" : "group no longer blocked", f);
  }
  if (!v.blocked && g.note == g.blocked_reason) g.note.clear();  // no longer what it waits for
  g.blocked = v.blocked;
  g.blocked_reason = v.reason;
  g.preview = std::move(preview);
  status_changed(c, true);
}

std::string on_gr_recovery(context& c, const std::string& value) {
  auto& st = c.st;
  auto& g = st.gr;
  const auto& d = st.durable.gr;
  if (value.empty() || value.size() > 256)
    return "rejected: the request's value is <id>@<plan digest> (at most 256 characters)";
  const auto parsed = parse_request(value);
  const std::string request = parsed.error.empty() ? parsed.id : value;
  if (!st.loaded || st.persisting || !st.persist_queue.empty())
    return "busy: the group's durable state is not loaded or being written; try again";
  if (request == d.recovery_request)
    return "rejected: request " + request + " was already taken (" + d.recovery_kind + " on " +
           d.recovery_site + "); a new request needs a new id";
  if (d.recovery_open)
    return "rejected: the recovery of request " + d.recovery_request + " (" + d.recovery_kind +
           " on " + d.recovery_site + ") has not ended";
  if (!g.command_site.empty()) return "busy: a group replication command runs on " + g.command_site;
  auto refuse = [&](const std::string& why) {
    const std::string msg = "request " + request + " refused: " + why;
    auto f = c.fields();
    f["request"] = request;
    f["reason"] = why;
    c.log(log_level::warn, "quorum recovery refused", f);
    c.emit("Warning", "QuorumRecoveryRefused", msg);
    set_outcome(c, "QuorumRecoveryRefused", msg);
    return "rejected: " + why;
  };
  if (!parsed.error.empty()) return refuse(parsed.error);
  if (!d.bootstrapped) return refuse("the group was never bootstrapped: nothing to recover");
  if (!g.evaluated) return "busy: the group has not been observed yet; try again";
  // The plan is computed here, from this round's reads, whatever the requester was shown.
  auto plan = gr::plan_quorum_recovery(recovery_members(c), gr_declared(c));
  if (plan.kind == gr::recovery_kind::none) return refuse(plan.reason);
  if (!g.blocked)
    return refuse("the group is not Blocked by a quorum loss" +
                  (g.view.known ? std::string{} : " (" + g.view.reason + ")"));
  if (plan.kind == gr::recovery_kind::blocked) return refuse(plan.reason);
  // Only the plan the person was shown and confirmed (review M5).
  if (plan.digest != parsed.digest)
    return refuse("the plan changed since it was confirmed (confirmed " + parsed.digest +
                  ", now " + plan.digest + ": " + plan.reason + "); read the new plan and ask again");
  // Recorded before anything is sent: exactly once, also across operator restarts.
  change_gr x;
  x.gr = d;
  x.gr.recovery_request = request;
  x.gr.recovery_kind = std::string{gr::to_string(plan.kind)};
  x.gr.recovery_site = plan.site;
  x.recovery_begin = true;
  x.at_ms = c.wall_ms();
  persist(c, std::move(x));
  const std::string msg = "request " + request + ": " + plan.reason + "; may be lost: " +
                          risk_text(plan) + "; the others rejoin with START as they come back";
  auto f = c.fields(plan.site);
  f["request"] = request;
  f["kind"] = std::string{gr::to_string(plan.kind)};
  c.log(log_level::warn, "quorum recovery started", f);
  c.emit("Warning", "QuorumRecoveryStarted", msg, plan.site);
  set_outcome(c, "QuorumRecoveryStarted", msg);
  return "accepted: " + plan.reason;
}

void gr_recovery_persisted(context& c, const change_gr& x, bool ok) {
  if (x.recovery_begin) {
    if (!ok) {
      const std::string msg = "request " + x.gr.recovery_request +
                              ": the request could not be recorded, so nothing was done; ask "
                              "again with a new id";
      c.emit("Warning", "QuorumRecoveryFailed", msg);
      set_outcome(c, "QuorumRecoveryFailed", msg);
      return;
    }
    gr_send(c, x.gr.recovery_site,
            x.gr.recovery_kind == gr::to_string(gr::recovery_kind::rebootstrap)
                ? mysql_op::gr_bootstrap
                : mysql_op::gr_force_members);
    return;
  }
  if (!ok)
    c.log(log_level::error, "quorum recovery end not recorded; it is closed again next round",
          c.fields(x.gr.recovery_site));
  status_changed(c, true);
}

bool gr_recovery_interrupted(context& c) {
  auto& g = c.st.gr;
  const auto& d = c.st.durable.gr;
  if (!d.recovery_open) return false;
  if (!g.command_site.empty() || busy(c.st)) return true;  // its command or record is under way
  if (gr_snapshot_of(c, d.recovery_site) == nullptr) {
    g.note = "the recovery of request " + d.recovery_request + " was interrupted; waiting for " +
             d.recovery_site + " to answer to clear group_replication_force_members";
    return true;
  }
  g.recovery_cleanup = true;
  c.alert_once("gr-recovery-interrupted:" + d.recovery_request, "Warning",
               "QuorumRecoveryInterrupted",
               "the recovery of request " + d.recovery_request + " (" + d.recovery_kind + " on " +
                   d.recovery_site +
                   ") was interrupted (operator restart); it is not sent again: "
                   "group_replication_force_members is cleared and the record closed",
               d.recovery_site);
  gr_send(c, d.recovery_site, mysql_op::gr_force_members, /*reset_only=*/true);
  return true;
}

bool on_gr_recovery_done(context& c, const input::gr_done& in) {
  auto& g = c.st.gr;
  const auto& d = c.st.durable.gr;
  if (!d.recovery_open || in.site != d.recovery_site) return false;
  if (in.op != mysql_op::gr_force_members && in.op != mysql_op::gr_bootstrap) return false;
  const bool ok = in.outcome && in.outcome->ok;
  const bool cleanup = g.recovery_cleanup;
  g.recovery_cleanup = false;
  change_gr x;
  x.gr = d;
  x.recovery_end = true;
  x.at_ms = c.wall_ms();
  const std::string error =
      in.outcome ? in.outcome->error_kind + ": " + in.outcome->error : std::string{"no answer"};
  auto f = c.fields(in.site);
  f["request"] = d.recovery_request;
  f["ok"] = ok;
  if (cleanup) {
    // Whether the command ran before the restart: the survivor's own table says.
    const gr_snapshot* s = gr_snapshot_of(c, d.recovery_site);
    if (ok && s && in_majority_view(*s)) x.view_max_after = s->rows.size();
    const std::string msg =
        "request " + d.recovery_request + ": interrupted recovery closed" +
        (ok ? "" : " (clearing group_replication_force_members failed: " + error + ")") +
        (x.view_max_after ? "; " + d.recovery_site + " is in a majority view of " +
                                std::to_string(*x.view_max_after)
                          : std::string{"; ask again if the group is still Blocked"});
    set_outcome(c, "QuorumRecoveryFailed", msg);
    c.log(log_level::warn, "interrupted quorum recovery closed", f);
  } else if (ok) {
    // The forced membership (or the new group) is the survivor alone: the quorum denominator
    // starts again from it and grows as the others rejoin (README Known problems M1).
    x.view_max_after = 1;
    const std::string msg = "request " + d.recovery_request + ": " + d.recovery_kind + " on " +
                            d.recovery_site + " done; " + d.recovery_site +
                            " serves the group alone until the others rejoin (START as they come back)";
    c.log(log_level::warn, "quorum recovered", f);
    c.emit("Normal", "QuorumRecovered", msg, d.recovery_site);
    set_outcome(c, "QuorumRecovered", msg);
  } else {
    g.last_failure = c.clock.now;
    const std::string msg = "request " + d.recovery_request + ": " + d.recovery_kind + " on " +
                            d.recovery_site + " failed: " + error;
    f["error"] = error;
    c.log(log_level::warn, "quorum recovery failed", f);
    c.emit("Warning", "QuorumRecoveryFailed", msg, d.recovery_site);
    set_outcome(c, "QuorumRecoveryFailed", msg);
  }
  persist(c, std::move(x));
  return true;
}

}  // namespace br::step_detail
