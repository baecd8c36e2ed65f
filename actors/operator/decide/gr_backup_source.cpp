// The backup source of a Group Replication group (see gr_backup_source.hpp).
#include "actors/operator/decide/gr_backup_source.hpp"

#include "actors/operator/decide/gtid_rank.hpp"

namespace br::gr {

namespace {

std::string state_text(const backup_member& m) {
  std::string s{to_string(m.state)};
  if (m.role != member_role::none) s += " " + std::string{to_string(m.role)};
  return s;
}

}  // namespace

backup_source choose_backup_source(const backup_source_facts& f) {
  if (!f.view_known)
    return {"", false, "no agreed view of the group (a majority of the members must agree on one)"};
  if (!f.has_quorum) return {"", false, "the group's agreed view has no quorum"};
  if (!f.override_name.empty()) {
    for (const auto& m : f.members) {
      if (m.name != f.override_name) continue;
      if (m.state != member_state::online)
        return {"", false, "the requested source " + m.name + " is " + state_text(m) +
                               ": a backup reads only an ONLINE member"};
      if (!m.reachable) return {"", false, "the requested source " + m.name + " does not answer"};
      return {m.name, m.role == member_role::primary,
              "requested: ONLINE " + std::string{to_string(m.role)}};
    }
    return {"", false, "the requested source " + f.override_name + " is not a member of the group"};
  }
  std::vector<const backup_member*> secondaries;
  std::vector<const std::optional<gtid_set>*> sets;
  for (const auto& m : f.members) {
    if (m.state != member_state::online || m.role != member_role::secondary || !m.reachable) continue;
    secondaries.push_back(&m);
    sets.push_back(&m.gtid_executed);
  }
  if (auto i = most_advanced(sets)) {
    const auto* m = secondaries[*i];
    return {m->name, false,
            secondaries.size() == 1
                ? "the ONLINE SECONDARY"
                : "the ONLINE SECONDARY holding the most transactions (of " +
                      std::to_string(secondaries.size()) + ")"};
  }
  for (const auto& m : f.members)
    if (m.state == member_state::online && m.role == member_role::primary && m.reachable)
      return {m.name, true, "the PRIMARY: no reachable ONLINE SECONDARY"};
  return {"", false, "no reachable ONLINE member"};
}

}  // namespace br::gr
