// Semi-synchronous replication (issue 25): is the active primary blocked waiting for
// acknowledgements? One Warning Event (SemiSyncWaiting) per episode; pure, table-tested
// (tests/unit/semisync_waiting_test.cpp), applied per poll of the active site (group_step.cpp).
#pragma once

#include <cstdint>
#include <string>

#include "messages/mysql.hpp"

namespace br {

/// The episode memory, about one primary.
struct semisync_waiting_episode {
  std::string site;            ///< the primary this memory is about ("" = none yet)
  uint32_t polls_blocked = 0;  ///< consecutive polls that showed it blocked
  bool raised = false;         ///< this episode's Event was raised
  bool operator==(const semisync_waiting_episode&) const = default;
};

struct semisync_waiting_verdict {
  semisync_waiting_episode next;
  bool raise = false;   ///< raise SemiSyncWaiting now (the episode's first)
  std::string message;  ///< set when `raise`: the site and the numbers
};

/// Polls in a row that must show the primary blocked before the Event (one poll may catch an
/// ordinary commit in its acknowledgement round trip).
inline constexpr uint32_t semisync_waiting_polls = 2;

/// One poll of the active primary `site`. Blocked: its source side is on (not fallen back) and
/// commits wait for acknowledgements now, or fewer semi-sync receivers are connected than it waits
/// for (rpl_semi_sync_source_wait_for_replica_count; with wait_no_replica ON its next commit
/// waits). An episode is `semisync_waiting_polls` polls in a row blocked; it ends with the first
/// poll not blocked (or another primary), so the next episode raises again.
semisync_waiting_verdict judge_semisync_waiting(const semisync_waiting_episode& prev,
                                                const std::string& site, const site_semisync& s);

}  // namespace br
