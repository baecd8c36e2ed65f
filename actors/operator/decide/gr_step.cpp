// Group Replication's step: observation, exactly-once bootstrap, joins, switchover, routing.
#include "actors/operator/decide/gr_step.hpp"

#include <algorithm>

#include "actors/operator/decide/manual_fence.hpp"
#include "actors/operator/decide/planned_failover.hpp"
#include "actors/operator/decide/step_context.hpp"
#include "config/replication_mode.hpp"
#include "messages/gtid_set.hpp"

namespace br {

gr_durable merge_gr(const gr_durable& before, const gr_durable& next) {
  gr_durable d = before;
  if (d.group_name.empty()) d.group_name = next.group_name;
  d.bootstrapped = before.bootstrapped || next.bootstrapped;
  d.observed_view_max = std::max(before.observed_view_max, next.observed_view_max);
  if (d.bootstrap_started.empty()) d.bootstrap_started = next.bootstrap_started;
  return d;
}

namespace {

/// The one site a MEMBER_ID belongs to, from each site's latest good probe: the only site claiming
/// it, or among several claimants (a copied auto.cnf, a restored snapshot: review finding H3) the
/// only one that is in a group by its own word (not OFFLINE); "" when none or ambiguous. A row of
/// the agreed view is mapped to a site only through this, so a site claiming another member's
/// identity never takes its state, role or primary.
std::string owner_of(const std::vector<std::string>& sites,
                     const std::map<std::string, site_probe>& probes, const std::string& member_id) {
  if (member_id.empty()) return {};
  std::vector<std::string> claim, in_group;
  for (const auto& site : sites) {
    auto it = probes.find(site);
    if (it == probes.end() || it->second.gr.member_id != member_id) continue;
    claim.push_back(site);
    const auto& own = it->second.gr.self_state;
    if (!own.empty() && own != "OFFLINE") in_group.push_back(site);
  }
  if (claim.size() == 1) return claim.front();
  return in_group.size() == 1 ? in_group.front() : std::string{};
}

/// Whether more than one site claims `member_id`.
bool claimed_twice(const std::vector<std::string>& sites,
                   const std::map<std::string, site_probe>& probes, const std::string& member_id) {
  int n = 0;
  for (const auto& site : sites) {
    auto it = probes.find(site);
    if (it != probes.end() && !member_id.empty() && it->second.gr.member_id == member_id) ++n;
  }
  return n > 1;
}

}  // namespace

namespace step_detail {
namespace {

std::string group_name(const context& c) {
  if (!c.st.durable.gr.group_name.empty()) return c.st.durable.gr.group_name;
  if (!c.rules.gr.spec_group_name.empty()) return c.rules.gr.spec_group_name;
  return c.rules.gr.generated_name;
}

/// The site's latest snapshot when its latest poll read one.
const gr_snapshot* snapshot_of(const context& c, const std::string& site) {
  auto it = c.st.reports.find(site);
  if (it == c.st.reports.end() || !it->second.probe_ok || it->second.probe.gr.member_id.empty())
    return nullptr;
  return &it->second.probe.gr;
}

/// The member's own state; no row of its own (the plugin stopped before it ever ran) is OFFLINE.
gr::member_state own_state(const gr_snapshot& s) {
  return s.self_state.empty() ? gr::member_state::offline : gr::parse_member_state(s.self_state);
}

/// A member of another group (a name that is not ours, while it is in a group) never votes.
bool foreign(const context& c, const gr_snapshot& s) {
  // Before a name is on record (or pinned by the spec) no group is foreign: the one found is
  // adopted under the name its members report.
  if (c.st.durable.gr.group_name.empty() && c.rules.gr.spec_group_name.empty()) return false;
  return !s.group_name.empty() && s.group_name != group_name(c) && !s.self_state.empty() &&
         s.self_state != "OFFLINE";
}

std::string site_of_member(const context& c, const std::string& member_id) {
  return owner_of(c.rules.sites, c.st.good_probes, member_id);
}

/// Every member that may be in the group votes: the declared ones and those leaving after a
/// scale-down (still members until they are out; decide/gr_scale_down.hpp).
std::vector<std::string> voters(const context& c) {
  auto out = c.rules.sites;
  for (const auto& site : c.rules.gr.leaving)
    if (std::find(out.begin(), out.end(), site) == out.end()) out.push_back(site);
  return out;
}

std::vector<gr::member_report> member_reports(context& c) {
  std::vector<gr::member_report> out;
  for (const auto& site : voters(c)) {
    gr::member_report r;
    const gr_snapshot* s = snapshot_of(c, site);
    if (s && foreign(c, *s)) {
      c.alert_once("gr-foreign:" + site, "Warning", "ForeignGroup",
                   "member " + site + " is in group " + s->group_name + ", not " + group_name(c) +
                       ": it is not counted",
                   site);
      s = nullptr;
    }
    if (s == nullptr) {
      auto it = c.st.good_probes.find(site);
      r.reporter = it != c.st.good_probes.end() ? it->second.gr.member_id : site;
      out.push_back(std::move(r));
      continue;
    }
    if (claimed_twice(c.rules.sites, c.st.good_probes, s->member_id)) {
      c.alert_once("gr-dup:" + s->member_id, "Warning", "DuplicateMemberId",
                   "more than one site reports member id " + s->member_id + " (a copied auto.cnf?): " +
                       "only the one in the group is counted; give each server its own server_uuid",
                   site);
      if (owner_of(c.rules.sites, c.st.good_probes, s->member_id) != site) {
        r.reporter = site + "#duplicate";  // no vote, and it cannot displace the owner's
        out.push_back(std::move(r));
        continue;
      }
    }
    r.reporter = s->member_id;
    r.reachable = true;
    r.view_id = s->view_id;
    for (const auto& row : s->rows)
      r.rows.push_back({row.member_id, row.host, row.port, gr::parse_member_state(row.state),
                        gr::parse_member_role(row.role)});
    out.push_back(std::move(r));
  }
  return out;
}

gr_settings settings_for(const context& c, const std::string& site) {
  gr_settings s;
  s.group_name = group_name(c);
  auto it = c.rules.gr.local_address.find(site);
  if (it != c.rules.gr.local_address.end()) s.local_address = it->second;
  for (const auto& other : c.rules.sites) {
    auto a = c.rules.gr.local_address.find(other);
    if (a == c.rules.gr.local_address.end() || a->second.empty()) continue;
    s.group_seeds += (s.group_seeds.empty() ? "" : ",") + a->second;
  }
  s.consistency = c.rules.gr.consistency;
  s.exit_state_action = c.rules.gr.exit_state_action;
  s.auto_rejoin_tries = c.rules.gr.auto_rejoin_tries;
  s.recovery_ssl = c.rules.gr.recovery_ssl;
  s.ssl_ca = c.rules.gr.ssl_ca;
  return s;
}

std::string op_name(mysql_op op) {
  switch (op) {
    case mysql_op::gr_bootstrap: return "bootstrap";
    case mysql_op::gr_start: return "START GROUP_REPLICATION";
    case mysql_op::gr_stop: return "STOP GROUP_REPLICATION";
    case mysql_op::gr_set_primary: return "group_replication_set_as_primary";
    case mysql_op::gr_force_members: return "group_replication_force_members";
    default: return to_string(op);
  }
}

void send(context& c, const std::string& site, mysql_op op, const std::string& member_id = {}) {
  auto& g = c.st.gr;
  g.command_site = site;
  g.command_op = op;
  auto f = c.fields(site);
  f["command"] = op_name(op);
  c.log(log_level::info, "group replication command", f);
  c.out.emplace_back(effect::gr_command{site, op, member_id, settings_for(c, site)});
}

bool quiet(const context& c) {
  const auto& g = c.st.gr;
  if (!g.command_site.empty()) return true;
  return g.last_command_end && c.clock.now - *g.last_command_end < 2 * c.rules.poll_interval;
}

/// Why the group must not be bootstrapped on `member` now ("" = it may). Every declared member
/// must answer (an unreachable one may hold a group or data the operator cannot see: review
/// finding 1), be OFFLINE with no other member in its table, and hold nothing the bootstrap member
/// lacks (a bootstrap from a member missing transactions would strand them: finding 2).
std::string bootstrap_refusal(const context& c, const std::string& member) {
  const gr_snapshot* seed = snapshot_of(c, member);
  auto seed_probe = c.st.reports.find(member);
  if (seed == nullptr || seed_probe == c.st.reports.end())
    return "the bootstrap member " + member + " does not answer";
  auto seed_set = gtid_set::parse(seed_probe->second.probe.gtid_executed);
  if (!seed_set) return "the bootstrap member's gtid_executed cannot be read";
  if (const auto& d = c.st.durable.gr; d.group_name.empty() && d.bootstrap_started.empty()) {
    // A first bootstrap makes a new group: a member that already holds transactions of the name
    // (restored from that group's backup, or the group's record lost) would give the new group's
    // writes GTIDs the old group used too (issue 23: a restore bootstraps under a new name).
    gtid_set of_name;
    const std::string name = group_name(c);
    if (config::is_uuid(name)) of_name.add(name, "", 1, gtid_set::max_gno);
    if (!seed_set->intersect(of_name).empty())
      return member + " already holds transactions of group " + name +
             " (restored from its backup?): a new group under that name would reuse its GTIDs "
             "(refused); leave spec.replication.groupReplication.groupName unset so a new name is "
             "generated";
  }
  for (const auto& site : c.rules.sites) {
    const gr_snapshot* s = snapshot_of(c, site);
    if (s == nullptr) return "waiting until every member answers (" + site + " does not)";
    if (!s->self_state.empty() && s->self_state != "OFFLINE")
      return site + " is " + s->self_state + ": it is in a group";
    if (s->rows.size() > 1) return site + " lists other members: it knows a group";
    if (site == member) continue;
    auto set = gtid_set::parse(c.st.reports.at(site).probe.gtid_executed);
    if (!set) return site + "'s gtid_executed cannot be read";
    if (!seed_set->contains(*set))
      return site + " holds transactions " + member +
             " lacks; bootstrapping " + member + " would strand them (refused)";
  }
  return {};
}

void start_bootstrap(context& c, const std::string& member) {
  auto& d = c.st.durable.gr;
  // A repeated bootstrap goes to the member on record (finding 12), never to another one.
  const std::string& target = d.bootstrap_started.empty() ? member : d.bootstrap_started;
  if (auto why = bootstrap_refusal(c, target); !why.empty()) {
    c.st.gr.note = "bootstrap of " + target + " waits: " + why;
    if (why.find("refused") != std::string::npos)
      c.alert_once("gr-bootstrap-refused", "Warning", "BootstrapRefused", c.st.gr.note, target);
    return;
  }
  if (d.bootstrap_started.empty() || d.group_name.empty()) {
    // The name and the member are on record before any START (exactly once).
    change_gr x;
    x.gr = d;
    x.gr.group_name = group_name(c);
    x.gr.bootstrap_started = target;
    x.start_bootstrap = true;
    x.before_bootstrapped = d.bootstrapped;
    x.at_ms = c.wall_ms();
    persist(c, std::move(x));
    return;
  }
  send(c, target, mysql_op::gr_bootstrap);
}

/// The group name the ONLINE members report, when the operator has none on record yet (a group
/// adopted, not bootstrapped by it: finding 3); "" when they do not agree.
std::string reported_group_name(const context& c) {
  std::string name;
  for (const auto& site : c.rules.sites) {
    const gr_snapshot* s = snapshot_of(c, site);
    if (s == nullptr || s->self_state != "ONLINE" || s->group_name.empty()) continue;
    if (!name.empty() && name != s->group_name) return {};
    name = s->group_name;
  }
  return name;
}

}  // namespace

bool stop_fenced_members(context& c);  // below

const gr_snapshot* gr_snapshot_of(const context& c, const std::string& site) {
  return snapshot_of(c, site);
}

gr::member_state gr_own_state(const gr_snapshot& s) { return own_state(s); }

void gr_send(context& c, const std::string& site, mysql_op op, bool reset_only) {
  send(c, site, op);
  if (reset_only) std::get<effect::gr_command>(c.out.back()).settings.local_address.clear();
}

gr_settings gr_settings_for(const context& c, const std::string& site) {
  return settings_for(c, site);
}

void gr_evaluate(context& c) {
  auto& st = c.st;
  auto& g = st.gr;
  st.last_evaluation = c.clock.now;
  // The quorum denominator is the largest view the group has agreed on (sticky), so a group that
  // is still growing after its bootstrap is judged by its own size, and a member that lost the
  // others can never be judged alone (decide/gr_view.hpp).
  auto view = gr::cross_validate(member_reports(c), 1,
                                 static_cast<std::size_t>(st.durable.gr.observed_view_max));
  bool changed = !g.evaluated || view.known != g.view.known ||
                 view.primary_member != g.view.primary_member ||
                 view.has_quorum != g.view.has_quorum || view.view_id != g.view.view_id ||
                 view.members.size() != g.view.members.size();
  g.view = std::move(view);
  g.evaluated = true;
  if (changed) {
    auto f = c.fields();
    f["known"] = g.view.known;
    f["primaryMember"] = g.view.primary_member;
    f["hasQuorum"] = g.view.has_quorum;
    f["viewId"] = g.view.view_id;
    f["reason"] = g.view.reason;
    c.log(log_level::info, "group view", f);
    status_changed(c, true);
  }
  gr_check_quorum(c);  // Blocked on a quorum loss (step_gr_recovery.cpp)
  gr_warn_group_size(c);
  if (g.blocked)
    c.alert_once("gr-quorum", "Warning", "QuorumLost", g.blocked_reason);
  else if (g.view.known && !g.view.has_quorum)
    c.alert_once("gr-quorum", "Warning", "QuorumLost",
                 "the group has no quorum: " + g.view.reason + " (the operator only observes)");
  else if (g.view.known)
    st.alerts.erase("gr-quorum");

  const auto& d = st.durable.gr;
  // The mode is immutable: a group with async history (a view, no GR record) is never run as a
  // Group Replication group (review finding 6).
  if (st.durable.view.epoch > 0 && d == gr_durable{}) {
    g.note = "this group has run as async replication (epoch " +
             std::to_string(st.durable.view.epoch) +
             "): spec.replication.mode is immutable; nothing is done";
    c.alert_once("gr-mode", "Warning", "ReplicationModeChanged", g.note);
    return;
  }
  // A spec groupName edited after the group exists: the name never changes (sticky); the view
  // still follows the group, but no command is sent to its members.
  const bool name_mismatch = !c.rules.gr.spec_group_name.empty() && !d.group_name.empty() &&
                             c.rules.gr.spec_group_name != d.group_name;
  if (name_mismatch)
    c.alert_once("gr-name", "Warning", "GroupNameMismatch",
                 "spec.replication.groupReplication.groupName " + c.rules.gr.spec_group_name +
                     " differs from the group's name " + d.group_name +
                     ": the name never changes; only observation continues");
  if (busy(st)) return;  // one durable write at a time; its follow-up evaluates again

  // The group's own decisions, recorded: the largest agreed view, bootstrapped, the primary.
  gr::bootstrap_facts facts;
  facts.bootstrapped = d.bootstrapped;
  facts.designated = c.rules.gr.designated;
  for (const auto& site : c.rules.sites) {
    gr::bootstrap_probe p;
    p.name = site;
    if (const gr_snapshot* s = snapshot_of(c, site)) {
      p.reachable = true;
      p.plugin_loaded = s->plugin_loaded;
      p.self_state = own_state(*s);
      p.rows = s->rows.size();
      p.online_rows = static_cast<std::size_t>(std::count_if(
          s->rows.begin(), s->rows.end(), [](const auto& r) { return r.state == "ONLINE"; }));
    }
    facts.members.push_back(p);
  }
  auto decision = gr::decide_gr_bootstrap(facts);
  gr_durable next = d;
  if (g.view.known && g.view.observed_view_max > next.observed_view_max)
    next.observed_view_max = g.view.observed_view_max;
  if (decision.mark_bootstrapped) {
    next.bootstrapped = true;
    if (next.group_name.empty()) {
      auto reported = reported_group_name(c);
      if (reported.empty()) {
        g.note = "a group was found but its ONLINE members report no single name: waiting";
        return;
      }
      if (!c.rules.gr.spec_group_name.empty() && reported != c.rules.gr.spec_group_name) {
        g.note = "the group found is named " + reported + ", not spec...groupName " +
                 c.rules.gr.spec_group_name + ": it is not adopted";
        c.alert_once("gr-name", "Warning", "GroupNameMismatch", g.note);
        return;
      }
      next.group_name = reported;
    }
  }
  std::string primary = g.view.known ? site_of_member(c, g.view.primary_member) : std::string{};
  std::optional<std::string> active;
  if (!primary.empty() && primary != st.durable.view.active_site) active = primary;
  if (!(next == d) || active) {
    change_gr x;
    x.gr = next;
    x.active = active;
    x.from = st.durable.view.active_site;
    x.before_bootstrapped = d.bootstrapped;
    x.at_ms = c.wall_ms();
    persist(c, std::move(x));
    return;
  }
  if (!g.switchover_target.empty() && g.switchover_deadline &&
      c.clock.now >= *g.switchover_deadline) {
    c.emit("Warning", "SwitchoverTimedOut",
           "the group did not make " + g.switchover_target + " its primary within " +
               "maxSwitchoverDelay; the request is cleared",
           g.switchover_target);
    g.switchover_target.clear();
    g.switchover_deadline.reset();
    status_changed(c, true);
  }

  if (name_mismatch) {
    g.note = "spec groupName " + c.rules.gr.spec_group_name + " differs from the group's name " +
             d.group_name + ": no command is sent (restore the spec's groupName)";
    return;
  }
  // A recovery left open by an operator that stopped mid-way is closed first (never resent).
  if (gr_recovery_interrupted(c)) return;
  if (g.blocked) {
    // Quorum lost: observe only. No fence, START, STOP, set_as_primary or bootstrap; only a
    // person's recovery request acts (on_gr_recovery).
    g.note = g.blocked_reason;
    return;
  }
  reconcile_fence(c);  // the fenced-sites annotation, checked again against this view
  if (busy(st)) return;
  if (quiet(c)) return;
  if (g.last_failure && c.clock.now - *g.last_failure < c.rules.gr.retry_delay) return;
  if (d.bootstrapped && stop_fenced_members(c)) return;
  if (d.bootstrapped && gr_scale_down(c)) return;  // step_gr_scale_down.cpp
  switch (decision.action) {
    case gr::bootstrap_action::bootstrap:
      g.note = decision.reason;
      start_bootstrap(c, decision.member);
      return;
    case gr::bootstrap_action::join: {
      std::vector<gr::joiner_probe> joiners;
      for (const auto& site : c.rules.sites) {
        if (st.durable.manually_fenced.count(site)) continue;  // fenced: stays out of the group
        gr::joiner_probe j;
        j.name = site;
        if (const gr_snapshot* s = snapshot_of(c, site)) {
          j.member_id = s->member_id;
          j.reachable = true;
          j.self_state = own_state(*s);
        }
        joiners.push_back(j);
      }
      auto p = gr::gr_provision_gate(g.view, joiners);
      g.note = p.admit.empty() ? p.reason : std::string{};
      if (!p.admit.empty()) send(c, p.admit, mysql_op::gr_start);
      return;
    }
    case gr::bootstrap_action::wait:
      g.note = decision.reason;
      return;
  }
}

void gr_persisted(context& c, const change_gr& x, bool ok) {
  auto& g = c.st.gr;
  if (x.recovery_begin || x.recovery_end) gr_recovery_persisted(c, x, ok);
  if (x.leave_update) gr_leave_persisted(c, x, ok);
  if (!ok) return;  // the next evaluation decides again
  if (x.active) {
    const std::string& site = *x.active;
    if (site == g.switchover_target) {
      c.emit("Normal", "SwitchoverCompleted",
             "the group made " + site + " its primary (group_replication_set_as_primary)", site);
      g.switchover_target.clear();
      g.switchover_deadline.reset();
    } else if (!x.from.empty()) {
      c.emit("Warning", "FailoverObserved",
             "the group elected " + site + " as its primary (was " + x.from +
                 "); routing follows",
             site);
      c.metric(metric_kind::failover, site, -1);
    } else {
      c.emit("Normal", "PrimaryObserved", "the group's primary is " + site, site);
    }
  }
  if (x.gr.bootstrapped && !x.before_bootstrapped)
    c.emit("Normal", "GroupBootstrapped",
           "group " + x.gr.group_name + " is bootstrapped (a member is ONLINE); every later member "
           "joins with a plain START");
  if (x.start_bootstrap && !c.st.durable.gr.bootstrapped)
    send(c, x.gr.bootstrap_started, mysql_op::gr_bootstrap);
}

void on_gr_done(context& c, const input::gr_done& in) {
  auto& g = c.st.gr;
  if (in.site != g.command_site || in.op != g.command_op) {
    c.log(log_level::warn, "stray group replication reply", c.fields(in.site));
    return;
  }
  g.command_site.clear();
  g.last_command_end = c.clock.now;
  if (on_gr_recovery_done(c, in)) return;
  bool ok = in.outcome && in.outcome->ok;
  auto f = c.fields(in.site);
  f["command"] = op_name(in.op);
  if (ok) {
    f["state"] = in.outcome->value;
    c.log(log_level::info, "group replication command done", f);
    g.last_failure.reset();
    return;
  }
  std::string error = in.outcome ? in.outcome->error_kind + ": " + in.outcome->error
                                 : std::string{"no answer"};
  f["error"] = error;
  c.log(log_level::warn, "group replication command failed", f);
  g.last_failure = c.clock.now;
  const char* reason = in.op == mysql_op::gr_bootstrap     ? "GroupBootstrapFailed"
                       : in.op == mysql_op::gr_set_primary ? "SwitchoverFailed"
                       : in.op == mysql_op::gr_stop        ? "MemberStopFailed"
                                                           : "MemberStartFailed";
  c.emit("Warning", reason, op_name(in.op) + " on " + in.site + " failed: " + error, in.site);
  if (in.op == mysql_op::gr_set_primary) {
    g.switchover_target.clear();
    g.switchover_deadline.reset();
  }
  status_changed(c, true);
}

std::string on_gr_switchover(context& c, const std::string& request) {
  auto& g = c.st.gr;
  std::string site = request.substr(0, request.find(':'));
  if (site == "!cancel") return "rejected: nothing to cancel: a switchover is one call to the group";
  if (std::find(c.rules.sites.begin(), c.rules.sites.end(), site) == c.rules.sites.end())
    return "rejected: " + site + " is not a site of this group";
  if (!c.st.durable.gr.bootstrapped) return "rejected: the group is not bootstrapped yet";
  if (!g.view.known) return "rejected: the group view is unknown (" + g.view.reason + ")";
  if (site == c.st.durable.view.active_site) return "accepted: skipped: " + site + " is already the primary";
  auto it = c.st.good_probes.find(site);
  const gr::view_member* target = nullptr;
  if (it != c.st.good_probes.end())
    for (const auto& m : g.view.members)
      if (m.member_id == it->second.gr.member_id) target = &m;
  if (!target || target->state != gr::member_state::online ||
      target->role != gr::member_role::secondary)
    return "rejected: " + site + " is not an ONLINE SECONDARY of the group (" +
           (target ? std::string{gr::to_string(target->state)} + " " +
                         std::string{gr::to_string(target->role)}
                   : std::string{"not in the agreed view"}) +
           ")";
  if (!g.switchover_target.empty())
    return "rejected: a switchover to " + g.switchover_target + " is running";
  if (!g.command_site.empty())
    return "rejected: busy: " + op_name(g.command_op) + " runs on " + g.command_site +
           "; try again";
  g.switchover_target = site;
  g.switchover_deadline = c.clock.now + c.rules.gr.max_switchover_delay;
  c.emit("Normal", "SwitchoverStarted",
         "group_replication_set_as_primary(" + target->member_id + ") for " + site, site);
  send(c, site, mysql_op::gr_set_primary, target->member_id);
  status_changed(c, true);
  return "accepted: switchover to " + site + " through group_replication_set_as_primary";
}

std::vector<gr::quorum_member> gr_quorum_members(const context& c) {
  const auto& g = c.st.gr;
  std::vector<gr::quorum_member> out;
  for (const auto& site : c.rules.sites) {
    gr::quorum_member m;
    m.site = site;
    m.fenced = c.st.durable.manually_fenced.count(site) > 0;
    if (const gr_snapshot* s = snapshot_of(c, site)) {
      m.reachable = true;
      m.state = own_state(*s);
      m.role = gr::member_role::none;
      for (const auto& r : s->rows)
        if (r.member_id == s->member_id) m.role = gr::parse_member_role(r.role);
      if (g.evaluated && g.view.known &&
          owner_of(c.rules.sites, c.st.good_probes, s->member_id) == site)
        for (const auto& v : g.view.members)
          if (v.member_id == s->member_id) {
            m.state = v.state;
            m.role = v.role;
          }
    }
    out.push_back(std::move(m));
  }
  return out;
}

/// A fenced member still in the group (ONLINE, RECOVERING, ERROR) is sent STOP
/// GROUP_REPLICATION, one at a time; true when a command went out.
bool stop_fenced_members(context& c) {
  for (const auto& site : c.rules.sites) {
    if (!c.st.durable.manually_fenced.count(site)) continue;
    const gr_snapshot* s = snapshot_of(c, site);
    if (!s || own_state(*s) == gr::member_state::offline) continue;
    c.st.gr.note = site + " is fenced: STOP GROUP_REPLICATION";
    send(c, site, mysql_op::gr_stop);
    return true;
  }
  return false;
}

}  // namespace step_detail

config::group_replication_status gr_status_of(const group_rules& rules, const group_state& st) {
  config::group_replication_status s;
  const auto& g = st.gr;
  s.group_name = st.durable.gr.group_name;
  s.bootstrapped = st.durable.gr.bootstrapped;
  s.observed_view_max = static_cast<std::int64_t>(st.durable.gr.observed_view_max);
  s.view_known = g.evaluated && g.view.known;
  s.has_quorum = s.view_known && g.view.has_quorum;
  s.view_id = s.view_known ? g.view.view_id : std::string{};
  s.message = !g.note.empty() ? g.note : g.view.reason;
  s.switchover_target = g.switchover_target;
  const auto& d = st.durable.gr;
  s.phase = d.recovery_open ? "Recovering"
            : g.blocked     ? "Blocked"
            : !d.bootstrapped ? "Pending"
                              : "Running";
  if (g.blocked) s.message = g.blocked_reason;
  if (g.blocked && g.preview) {
    config::gr_recovery_plan_status p;
    p.kind = std::string{gr::to_string(g.preview->kind)};
    p.survivor = g.preview->site;
    p.rejoin = g.preview->rejoin;
    p.reason = g.preview->reason;
    p.at_risk = g.preview->at_risk;
    p.digest = g.preview->digest;
    s.recovery_plan = std::move(p);
  }
  if (!g.recovery_reason.empty() || !d.recovery_request.empty()) {
    config::gr_last_recovery_status r;
    r.request = d.recovery_request;
    r.result = g.recovery_reason;
    r.message = g.recovery_message;
    if (r.result.empty()) r.result = d.recovery_open ? "QuorumRecoveryStarted" : "Recorded";
    s.last_recovery = std::move(r);
  }
  for (const auto& site : rules.sites) {
    config::gr_member_status m;
    m.name = site;
    auto p = st.good_probes.find(site);
    if (p != st.good_probes.end()) m.member_id = p->second.gr.member_id;
    auto r = st.reports.find(site);
    m.reachable = r != st.reports.end() && r->second.probe_ok;
    m.state = "UNKNOWN";
    const bool owner = owner_of(rules.sites, st.good_probes, m.member_id) == site;
    if (s.view_known && owner)
      for (const auto& v : g.view.members)
        if (!m.member_id.empty() && v.member_id == m.member_id) {
          m.state = std::string{gr::to_string(v.state)};
          m.role = std::string{gr::to_string(v.role)};
        }
    if (m.state == "UNKNOWN" && m.reachable && r->second.probe.gr.self_state == "OFFLINE")
      m.state = "OFFLINE";  // not in the group: its own word is enough for that
    if (s.view_known && m.role == "PRIMARY" && m.state == "ONLINE") s.primary_member = site;
    s.members.push_back(std::move(m));
  }
  s.leaving = step_detail::gr_leaving_status_of(rules, st);
  return s;
}

step_result gr_step(const group_rules& rules, group_state state, const group_input& in,
                    const step_clock& clock) {
  using namespace step_detail;
  return stepped(rules, std::move(state), clock, [&](context& c) {
  std::visit(overload{
                 [&](const input::loaded& x) { on_loaded(c, x.durable); },
                 [&](const input::report& x) { on_report(c, x.report); },
                 [&](const input::persisted& x) { on_persisted(c, x); },
                 [&](const input::switchover& x) { c.answer = on_gr_switchover(c, x.target); },
                 [&](const input::gr_done& x) { on_gr_done(c, x); },
                 [&](const input::annotate& x) {
                   if (x.key == planned_failover_annotation)
                     c.answer = on_gr_switchover(c, x.value);
                   else if (x.key == fenced_sites_annotation)
                     on_fence_annotation(c, x.value);
                   else if (x.key == fence_request_key)
                     on_fence_request(c, x.value);
                   else if (x.key == force_quorum_recovery_annotation)
                     c.answer = on_gr_recovery(c, x.value);
                   else
                     c.answer = "rejected: " + x.key +
                                " does not apply to a Group Replication group (the clone plugin's "
                                "distributed recovery provisions members)";
                 },
                 [&](const auto&) {
                   c.log(log_level::warn, "input of the async topology in a Group Replication group",
                         c.fields());
                 },
             },
             in);
  });
}

}  // namespace br
