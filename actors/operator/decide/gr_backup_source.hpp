// Which member a backup reads from in Group Replication mode (issue 23), pure. Shared by the
// standalone `bloodraven backup run --source A,B,C` and the Kubernetes backup controller.
//
// The rule (docs/backup.md, "Group Replication"):
//  - only from an agreed view with quorum (decide/gr_view.hpp cross_validate): without one nobody
//    can say which member is current, so the backup waits;
//  - an ONLINE SECONDARY that the caller reached, holding the most transactions (its gtid_executed
//    contains every other candidate's; declared order breaks ties and decides among incomparable or
//    unknown sets): the dump's long read transaction then runs beside the group's certification
//    on a member that takes no client writes;
//  - never a RECOVERING, ERROR, OFFLINE or UNREACHABLE member (its data is incomplete or stale);
//  - the ONLINE PRIMARY only when no ONLINE SECONDARY is reachable (a one-member group, or every
//    secondary recovering), or when the override names it (`sourceSiteOverride`, `--source-member`):
//    mysqldump --single-transaction blocks no writer, so a backup from the primary is still
//    consistent, only heavier on the member serving the writes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "actors/operator/decide/gr_view.hpp"
#include "messages/gtid_set.hpp"

namespace br::gr {

/// One declared member as the agreed view shows it.
struct backup_member {
  std::string name;  ///< site name (Kubernetes) or host:port (the standalone tool)
  member_state state = member_state::unknown;  ///< in the agreed view; unknown: not in it
  member_role role = member_role::none;
  bool reachable = false;  ///< read by the caller in this round
  std::optional<gtid_set> gtid_executed;  ///< nullopt: not known
};

struct backup_source_facts {
  bool view_known = false;  ///< a majority of members agreed on a view
  bool has_quorum = false;  ///< and it has quorum
  std::vector<backup_member> members;  ///< declared order
  std::string override_name;           ///< "" or the member the request names
};

struct backup_source {
  std::string name;      ///< "" = no usable source now
  bool primary = false;  ///< the chosen member is the PRIMARY
  std::string reason;    ///< one line: why this member, or why none
};

backup_source choose_backup_source(const backup_source_facts& facts);

}  // namespace br::gr
