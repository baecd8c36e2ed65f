// `bloodraven backup run --source A,B,C` on a Group Replication group (issue 23): reads every
// member's own view of the group and its gtid_executed, cross-validates the views
// (decide/gr_view.hpp) and picks the member to dump with decide/gr_backup_source.hpp (an ONLINE
// SECONDARY holding the most transactions; the PRIMARY only without one or when named).
// Blocking: one short session per member (10 s connect, 60 s per statement).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/backup/jobs.hpp"

namespace br::local {

struct gr_backup_pick {
  std::optional<std::size_t> index;  ///< into the members given; nullopt: none usable now
  bool primary = false;
  std::string reason;      ///< the choice's reason, or why none
  std::string group_name;  ///< the chosen member's group
  std::vector<std::string> members;  ///< "host:port STATE ROLE" per member, for the result line
};

/// `override_member` "" or the host:port of one of `members` to use (if ONLINE).
gr_backup_pick pick_gr_backup_source(const std::vector<backup::mysql_target>& members,
                                     const std::string& override_member);

}  // namespace br::local
