#include "actors/operator/decide/gr_quorum.hpp"

#include <algorithm>

#include "actors/operator/decide/site_order.hpp"
#include "config/replication_mode.hpp"
#include "messages/fnv1a.hpp"

namespace br::gr {

namespace {

constexpr std::size_t max_members = 9;  // GR's limit

bool is_online(const quorum_member& m) {
  return m.reachable && m.state == member_state::online;
}

const quorum_member* find_site(const std::vector<quorum_member>& members, const std::string& site) {
  auto it = std::find_if(members.begin(), members.end(),
                         [&](const quorum_member& m) { return m.site == site; });
  return it == members.end() ? nullptr : &*it;
}

std::string count_text(std::size_t online, std::size_t need, std::size_t of) {
  return std::to_string(online) + " ONLINE, " + std::to_string(need) + " needed of " +
         std::to_string(of);
}

/// Reachable members (other than `chosen`) whose known set holds transactions `chosen` lacks.
std::vector<std::string> ahead_of(const std::vector<quorum_member>& members,
                                  const quorum_member& chosen) {
  std::vector<std::string> out;
  for (const auto& m : members) {
    if (m.site == chosen.site || !m.reachable || !m.gtid_executed) continue;
    if (!chosen.gtid_executed || !chosen.gtid_executed->contains(*m.gtid_executed))
      out.push_back(m.site);
  }
  return out;
}

/// The first member (in order) whose known set contains every other candidate's known set;
/// nullptr when a set is unknown or none contains all (incomparable).
const quorum_member* dominant(const std::vector<const quorum_member*>& candidates,
                              std::string& why) {
  for (const auto* c : candidates)
    if (!c->gtid_executed) {
      why = "the gtid_executed of " + c->site + " is not known";
      return nullptr;
    }
  for (const auto* c : candidates) {
    bool all = std::all_of(candidates.begin(), candidates.end(), [&](const quorum_member* o) {
      return c->gtid_executed->contains(*o->gtid_executed);
    });
    if (all) return c;
  }
  why = "no member's transactions include every other's (incomparable GTID sets)";
  return nullptr;
}

/// What `m` may lose when the group is recovered from `chosen`, in one line.
std::string risk_of(const quorum_member& m, const quorum_member& chosen) {
  if (m.reachable && m.gtid_executed)
    return m.site + ": nothing (its transactions are all on " + chosen.site + ")";
  const auto& last = m.gtid_executed ? m.gtid_executed : m.last_gtid;
  if (!last) return m.site + ": unknown (never read); whatever it committed may be lost";
  const auto& mine = chosen.gtid_executed ? chosen.gtid_executed : chosen.last_gtid;
  if (!mine)
    return m.site + ": unknown (" + chosen.site + "'s transactions are not known)";
  auto lost = last->subtract(*mine);
  if (lost.empty())
    return m.site + ": nothing at its last read; anything it committed after that is lost";
  return m.site + ": " + std::to_string(lost.count()) + " transaction(s) at its last read (" +
         lost.to_compact_string() + "), and anything it committed after that";
}

/// The plan's fingerprint: everything `kubectl bloodraven group recover` shows, one field a line.
std::string digest_of(const recovery_plan& p, const quorum_member& chosen) {
  std::string text = std::string{to_string(p.kind)} + "\n" + p.site + "\n" +
                     (chosen.gtid_executed ? chosen.gtid_executed->to_compact_string() : "?") + "\n";
  for (const auto& r : p.rejoin) text += "rejoin " + r + "\n";
  for (const auto& r : p.at_risk) text += "risk " + r + "\n";
  return fnv1a64_hex(text);
}

/// Force_members leaves every member but `chosen` out: each must be down (review M6).
std::string not_down(const std::vector<quorum_member>& members, const quorum_member& chosen) {
  for (const auto& m : members) {
    if (m.site == chosen.site) continue;
    if (m.answered && !m.reachable)
      return m.site + " answers but its member table could not be read: it is not known to be "
                      "down, and forcing a membership without it could split the group";
    if (m.reachable && m.sees_majority)
      return m.site + " is ONLINE in a view with quorum: forcing a membership without it would "
                      "split the group";
  }
  return {};
}

recovery_plan blocked(std::string why) {
  recovery_plan p;
  p.kind = recovery_kind::blocked;
  p.reason = std::move(why);
  return p;
}

/// `kind` from `chosen`, unless a reachable member holds known transactions it lacks (or its own
/// set is unknown while theirs are known): then Blocked.
recovery_plan planned(recovery_kind kind, const quorum_member& chosen,
                      const std::vector<quorum_member>& members, std::string why) {
  auto ahead = ahead_of(members, chosen);
  if (!ahead.empty() && !chosen.gtid_executed)
    return blocked("refused: the gtid_executed of " + chosen.site +
                   " is not known, so it cannot be compared with " + join_names(ahead) + "'s");
  if (!ahead.empty())
    return blocked("refused: " + join_names(ahead) + " holds transactions " + chosen.site +
                   " lacks; recovering from " + chosen.site + " would discard them");
  if (kind == recovery_kind::force_members)
    if (auto why_not = not_down(members, chosen); !why_not.empty())
      return blocked("refused: " + why_not);
  recovery_plan p;
  p.kind = kind;
  p.site = chosen.site;
  for (const auto& m : members)
    if (m.site != chosen.site) {
      p.rejoin.push_back(m.site);
      p.at_risk.push_back(risk_of(m, chosen));
    }
  p.reason = std::move(why);
  p.digest = digest_of(p, chosen);
  return p;
}

}  // namespace

std::size_t quorum_of(std::size_t n) { return config::gr_quorum_of(n); }

std::size_t pdb_max_unavailable(std::size_t n) { return config::gr_pdb_max_unavailable(n); }

size_check check_group_size(std::size_t n) {
  if (n < 1) return {size_verdict::rejected, "a group needs at least one member"};
  if (n > max_members)
    return {size_verdict::rejected, "Group Replication allows at most 9 members, " +
                                        std::to_string(n) + " declared"};
  if (n % 2 == 0)
    return {size_verdict::even_warning,
            std::to_string(n) + " members tolerate " + std::to_string(pdb_max_unavailable(n)) +
                " failure(s), no more than " + std::to_string(n - 1) +
                " would: an odd member count is recommended"};
  return {};
}

std::size_t online_reachable(const std::vector<quorum_member>& members) {
  return static_cast<std::size_t>(std::count_if(members.begin(), members.end(), is_online));
}

bool quorum_lost(const std::vector<quorum_member>& members, std::size_t declared) {
  return online_reachable(members) < quorum_of(declared);
}

quorum_verdict quorum_block(const std::vector<quorum_member>& members, std::size_t declared,
                            const quorum_facts& facts) {
  if (!facts.bootstrapped || !facts.all_reported || facts.agreed_with_quorum) return {};
  if (std::any_of(members.begin(), members.end(),
                  [](const quorum_member& m) { return m.reachable && m.sees_majority; }))
    return {};  // the group's own view still has quorum
  const std::size_t online = online_reachable(members);
  const std::size_t need = quorum_of(declared);
  if (online >= need) return {};
  return {true, "quorum lost: " + count_text(online, need, declared) +
                    " reachable; the operator only observes until a person asks for a recovery "
                    "(kubectl bloodraven group recover)"};
}

permission may_fence(const std::vector<quorum_member>& members, std::size_t declared,
                     const std::string& site) {
  const auto* m = find_site(members, site);
  if (!m) return {false, "unknown member " + site};
  if (m->fenced) return {true, site + " is already fenced"};
  const std::size_t online = online_reachable(members);
  const std::size_t left = is_online(*m) ? online - 1 : online;
  const std::size_t need = quorum_of(declared);
  if (left < need)
    return {false, "fencing " + site + " would leave " + count_text(left, need, declared) +
                       " (below quorum)"};
  return {true, "leaves " + count_text(left, need, declared)};
}

permission may_remove(const std::vector<quorum_member>& members, std::size_t declared,
                      const std::string& site) {
  const auto* m = find_site(members, site);
  if (!m) return {false, "unknown member " + site};
  if (declared <= 1) return {false, "the last member cannot be removed"};
  const std::size_t online = online_reachable(members);
  if (online < quorum_of(declared))
    return {false, "the group has no quorum (" + count_text(online, quorum_of(declared), declared) +
                       "): a leave cannot be agreed"};
  const std::size_t left = is_online(*m) ? online - 1 : online;
  if (left < quorum_of(declared - 1))
    return {false, "removing " + site + " would leave " +
                       count_text(left, quorum_of(declared - 1), declared - 1) + " (below quorum)"};
  return {true, "leaves " + count_text(left, quorum_of(declared - 1), declared - 1)};
}

recovery_plan plan_quorum_recovery(const std::vector<quorum_member>& members, std::size_t declared) {
  if (!quorum_lost(members, declared)) {
    recovery_plan p;
    p.kind = recovery_kind::none;
    p.reason = "the group has quorum (" +
               count_text(online_reachable(members), quorum_of(declared), declared) +
               "): nothing to recover";
    return p;
  }
  std::vector<const quorum_member*> survivors;
  for (const auto& m : members)
    if (is_online(m)) survivors.push_back(&m);

  if (!survivors.empty()) {
    for (const auto* s : survivors)
      if (s->sees_majority)
        return blocked("refused: " + s->site +
                       " still sees a majority of its group reachable: the group has quorum where "
                       "the operator cannot see it; forcing a membership would split it");
    std::vector<const quorum_member*> primaries;
    for (const auto* s : survivors)
      if (s->role == member_role::primary) primaries.push_back(s);
    if (primaries.size() > 1)
      return blocked("refused: more than one survivor reports itself PRIMARY (" +
                     primaries[0]->site + ", " + primaries[1]->site + ")");
    if (primaries.size() == 1)
      return planned(recovery_kind::force_members, *primaries[0], members,
                     "force the membership to the surviving PRIMARY " + primaries[0]->site);
    if (survivors.size() == 1)
      return planned(recovery_kind::force_members, *survivors[0], members,
                     "force the membership to the lone survivor " + survivors[0]->site);
    std::string why;
    const auto* d = dominant(survivors, why);
    if (!d) return blocked("refused: " + why);
    return planned(recovery_kind::force_members, *d, members,
                   "force the membership to " + d->site +
                       ", whose transactions include every other survivor's");
  }

  // Total outage: every declared member must answer with its set, one must contain all.
  std::vector<std::string> missing;
  for (const auto& m : members)
    if (!m.reachable) missing.push_back(m.site);
  if (members.size() < declared) missing.push_back("(" + std::to_string(declared - members.size()) + " never read)");
  if (!missing.empty())
    return blocked("refused: no member is ONLINE and " + join_names(missing) +
                   " cannot be read; a re-bootstrap needs every member's transactions");
  std::vector<const quorum_member*> all;
  for (const auto& m : members) all.push_back(&m);
  std::string why;
  const auto* d = dominant(all, why);
  if (!d) return blocked("refused: " + why);
  return planned(recovery_kind::rebootstrap, *d, members,
                 "bootstrap the group again from " + d->site +
                     ", whose transactions include every member's");
}

std::string_view to_string(recovery_kind k) {
  switch (k) {
    case recovery_kind::none: return "none";
    case recovery_kind::force_members: return "forceMembers";
    case recovery_kind::rebootstrap: return "rebootstrap";
    case recovery_kind::blocked: return "blocked";
  }
  return "blocked";
}

}  // namespace br::gr
