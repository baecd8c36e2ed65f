// Group Replication's pure decisions (see gr_view.hpp).
#include "actors/operator/decide/gr_view.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace br::gr {

member_state parse_member_state(std::string_view t) {
  if (t == "ONLINE") return member_state::online;
  if (t == "RECOVERING") return member_state::recovering;
  if (t == "OFFLINE") return member_state::offline;
  if (t == "ERROR") return member_state::error;
  if (t == "UNREACHABLE") return member_state::unreachable;
  return member_state::unknown;
}

member_role parse_member_role(std::string_view t) {
  if (t == "PRIMARY") return member_role::primary;
  if (t == "SECONDARY") return member_role::secondary;
  return member_role::none;
}

std::string_view to_string(member_state s) {
  switch (s) {
    case member_state::online: return "ONLINE";
    case member_state::recovering: return "RECOVERING";
    case member_state::offline: return "OFFLINE";
    case member_state::error: return "ERROR";
    case member_state::unreachable: return "UNREACHABLE";
    case member_state::unknown: break;
  }
  return "UNKNOWN";
}

std::string_view to_string(member_role r) {
  switch (r) {
    case member_role::primary: return "PRIMARY";
    case member_role::secondary: return "SECONDARY";
    case member_role::none: break;
  }
  return "";
}

namespace {

// A claim: the view id and the whole table, rows in MEMBER_ID order (host/port are descriptive and
// not part of what must agree).
using claim_row = std::tuple<std::string, member_state, member_role>;
using claim = std::pair<std::string, std::vector<claim_row>>;

claim claim_of(const member_report& r) {
  claim c{r.view_id, {}};
  for (const auto& m : r.rows) c.second.emplace_back(m.member_id, m.state, m.role);
  std::sort(c.second.begin(), c.second.end());
  return c;
}

// Counts as a vote: the reporter lists itself ONLINE and ONLINE rows are a strict majority of its
// table (GR's quorum over its own view).
bool quorate_online_reporter(const member_report& r) {
  if (!r.reachable || r.rows.empty()) return false;
  std::size_t online = 0;
  bool self_online = false;
  for (const auto& m : r.rows) {
    if (m.state != member_state::online) continue;
    ++online;
    if (m.member_id == r.reporter) self_online = true;
  }
  return self_online && online * 2 > r.rows.size();
}

}  // namespace

group_view cross_validate(const std::vector<member_report>& reports, std::size_t configured_members,
                          std::size_t observed_view_max_before) {
  group_view v;
  v.observed_view_max = observed_view_max_before;
  const std::size_t denominator = std::max(configured_members, observed_view_max_before);

  std::set<std::string> reachable;
  std::map<std::string, const member_report*> voters;  // one vote per reporter (first report wins)
  for (const auto& r : reports) {
    if (!r.reachable || r.reporter.empty()) continue;
    reachable.insert(r.reporter);
    if (quorate_online_reporter(r)) voters.emplace(r.reporter, &r);
  }
  if (voters.empty()) {
    v.reason = "no reachable member is ONLINE in a quorate view (" + std::to_string(reachable.size()) +
               " of " + std::to_string(denominator) + " reachable)";
    return v;
  }

  std::map<claim, std::vector<std::string>> tally;
  for (const auto& [id, r] : voters) tally[claim_of(*r)].push_back(id);
  const auto best = std::max_element(tally.begin(), tally.end(), [](const auto& a, const auto& b) {
    return a.second.size() < b.second.size();
  });
  const std::size_t votes = best->second.size();
  const auto ties = std::count_if(tally.begin(), tally.end(),
                                  [&](const auto& e) { return e.second.size() == votes; });
  if (ties > 1) {
    v.reason = "tie: " + std::to_string(ties) + " different claims with " + std::to_string(votes) +
               " vote(s) each";
    return v;
  }
  if (votes * 2 <= voters.size()) {
    v.reason = "no claim holds a majority of the " + std::to_string(voters.size()) + " votes (best " +
               std::to_string(votes) + ")";
    return v;
  }
  if (votes * 2 <= denominator) {
    v.reason = "best claim has " + std::to_string(votes) + " vote(s), not a majority of " +
               std::to_string(denominator) + " members";
    return v;
  }

  const member_report& sample = *voters.at(best->second.front());
  std::vector<std::string> primaries;
  std::size_t online = 0;
  for (const auto& m : sample.rows) {
    v.members.push_back({m.member_id, m.host, m.port, m.state, m.role, reachable.count(m.member_id) > 0});
    if (m.state != member_state::online) continue;
    ++online;
    if (m.role == member_role::primary) primaries.push_back(m.member_id);
  }
  std::sort(v.members.begin(), v.members.end(),
            [](const view_member& a, const view_member& b) { return a.member_id < b.member_id; });
  if (primaries.size() > 1) {
    v.members.clear();
    v.reason = "the agreed table has " + std::to_string(primaries.size()) +
               " ONLINE PRIMARY members (multi-primary is not supported)";
    return v;
  }
  for (const auto& [c, ids] : tally) {
    if (&c == &best->first) continue;
    v.outvoted.insert(v.outvoted.end(), ids.begin(), ids.end());
  }
  std::sort(v.outvoted.begin(), v.outvoted.end());
  v.known = true;
  v.votes = votes;
  v.view_id = sample.view_id;
  v.primary_member = primaries.empty() ? "" : primaries.front();
  v.observed_view_max = std::max(observed_view_max_before, sample.rows.size());
  v.has_quorum = online * 2 > std::max(configured_members, v.observed_view_max);
  v.reason = std::to_string(votes) + " of " + std::to_string(voters.size()) + " votes agree on view " +
             v.view_id + (v.primary_member.empty() ? ", no ONLINE PRIMARY" : ", primary " + v.primary_member);
  if (!v.outvoted.empty()) v.reason += "; outvoted " + std::to_string(v.outvoted.size());
  return v;
}

// ---- bootstrap ----------------------------------------------------------------------------------

namespace {

bool reports_group(const bootstrap_probe& p) {
  return p.reachable && p.plugin_loaded &&
         (p.self_state != member_state::offline || p.rows > 1 || p.online_rows > 0);
}

}  // namespace

bootstrap_decision decide_gr_bootstrap(const bootstrap_facts& f) {
  bootstrap_decision d;
  const bootstrap_probe* in_group = nullptr;
  bool any_online = false;
  for (const auto& p : f.members) {
    if (!reports_group(p)) continue;
    if (in_group == nullptr) in_group = &p;
    if (p.self_state == member_state::online || p.online_rows > 0) any_online = true;
  }
  if (f.bootstrapped) {
    if (any_online) {
      d.action = bootstrap_action::join;
      d.reason = "group bootstrapped: members join with a plain START";
    } else {
      d.reason = "group bootstrapped but no member reports an ONLINE member: waiting (a second bootstrap "
                 "would create a second group; quorum recovery is a guarded, confirmed action)";
    }
    return d;
  }
  if (in_group != nullptr) {
    d.mark_bootstrapped = any_online;
    d.action = any_online ? bootstrap_action::join : bootstrap_action::wait;
    d.reason = "member " + in_group->name + " reports a group (state " +
               std::string(to_string(in_group->self_state)) + "): never bootstrap a second one" +
               (any_online ? "; recording bootstrapped, members join" : "; waiting for it to be ONLINE");
    return d;
  }
  const auto it = std::find_if(f.members.begin(), f.members.end(),
                               [&](const bootstrap_probe& p) { return p.name == f.designated; });
  if (f.designated.empty() || it == f.members.end()) {
    d.reason = "no designated bootstrap member among the declared members";
    return d;
  }
  if (!it->reachable) {
    d.reason = "designated member " + it->name + " is unreachable: waiting";
    return d;
  }
  if (!it->plugin_loaded || it->self_state != member_state::offline) {
    d.reason = "designated member " + it->name + " is not an OFFLINE member with the plugin loaded (state " +
               std::string(to_string(it->self_state)) + "): waiting";
    return d;
  }
  d.action = bootstrap_action::bootstrap;
  d.member = it->name;
  d.reason = "no member reports a group and the group was never bootstrapped: " + it->name + " bootstraps";
  return d;
}

// ---- provisioning gate --------------------------------------------------------------------------

provision_decision gr_provision_gate(const group_view& view, const std::vector<joiner_probe>& members) {
  provision_decision d;
  if (!view.known) {
    d.reason = "group view unknown: " + view.reason;
    return d;
  }
  if (!view.has_quorum) {
    d.reason = "the group has no quorum";
    return d;
  }
  std::map<std::string, member_state> in_view;
  bool donor = false;
  for (const auto& m : view.members) {
    in_view[m.member_id] = m.state;
    if (m.state == member_state::online) donor = true;
    if (m.state == member_state::recovering) {
      d.reason = "member " + m.member_id + " is RECOVERING: one joiner at a time";
      return d;
    }
  }
  if (!donor) {
    d.reason = "no ONLINE donor";
    return d;
  }
  for (const auto& m : members) {
    if (m.reachable && m.self_state == member_state::recovering) {
      d.reason = m.name + " is RECOVERING: one joiner at a time";
      return d;
    }
  }
  std::string skipped;
  for (const auto& m : members) {
    const auto it = in_view.find(m.member_id);
    if (it != in_view.end() && it->second == member_state::online) continue;  // already a member
    if (!m.reachable) continue;
    if (m.self_state != member_state::offline) {
      skipped += (skipped.empty() ? "" : ", ") + m.name + " " + std::string(to_string(m.self_state));
      continue;
    }
    d.admit = m.name;
    d.reason = "admit " + m.name + " (quorum, ONLINE donor, nobody recovering)";
    return d;
  }
  d.reason = skipped.empty() ? "nothing to admit" : "nothing to admit (not OFFLINE: " + skipped + ")";
  return d;
}

}  // namespace br::gr
