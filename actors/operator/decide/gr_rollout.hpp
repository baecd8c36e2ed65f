// The ordered update (rolling restart) of a Group Replication group, as a pure decision (issue 23):
// one member at a time, SECONDARIES first, the PRIMARY last after the group hands its role to a
// rolled, ONLINE SECONDARY (group_replication_set_as_primary); a member is restarted only while the
// group keeps its majority without it (gr::quorum_of), and the next one only once the restarted
// member is ONLINE in the agreed view again. A member that does not come back within the bound stops
// the rollout with a reason; it goes on only once that member is ONLINE. The caller restarts (the
// Kubernetes reconciler replaces the member's Deployment) and asks the coordinator for the switchover.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actors/operator/decide/gr_view.hpp"
#include "messages/gtid_set.hpp"

namespace br::gr {

/// One member as the rollout sees it: its workload and the agreed view.
struct rollout_member {
  std::string site;
  bool drifted = false;         ///< its workload needs replacing (a restart)
  bool workload_ready = false;  ///< the workload observed its newest template and a pod is ready
  member_state state = member_state::unknown;  ///< in the agreed view (unknown: not in it)
  member_role role = member_role::none;
  int64_t last_seen_ms = 0;  ///< the operator's latest good poll of it (unix ms; 0 = never)
  std::optional<gtid_set> gtid_executed;  ///< at that poll; nullopt = not known
};

struct rollout_facts {
  std::vector<rollout_member> members;  ///< declared order
  std::size_t group_size = 0;           ///< max(declared members, largest agreed view)
  bool view_known = false;              ///< a majority agrees on a view
  bool has_quorum = false;              ///< that view has its majority ONLINE
  bool blocked = false;                 ///< quorum lost / a quorum recovery runs (phase)
  std::string switchover_target;        ///< a set_as_primary in flight ("" = none)
  std::string view_id;                  ///< the agreed view's id now ("" = unknown)
  std::string rolling;                  ///< the member restarted last, until it is back
  /// The agreed view's id when `rolling` was restarted: a restarted member leaves and joins, so
  /// the group's view changes; ONLINE in the same view means it has not restarted yet.
  std::string rolled_view_id;
  int64_t rolled_at_ms = 0;             ///< when it was restarted (unix ms)
  int64_t now_ms = 0;
  int64_t rejoin_timeout_ms = 600'000;  ///< how long a restarted member may take to be ONLINE
};

enum class rollout_move : uint8_t { idle, wait, restart, switchover };

struct rollout_choice {
  rollout_move move = rollout_move::idle;
  std::string site;    ///< restart: the member; switchover: the new primary
  std::string reason;  ///< one line: what it does or waits for
  /// status.updatePhase: "" when nothing is drifted, else UpdatingSecondary | WaitingForMember |
  /// HandingOver | Blocked.
  std::string phase;
  bool rolling_done = false;  ///< facts.rolling is back ONLINE: forget it
  bool stopped = false;       ///< the restarted member missed the bound: the rollout stopped
};

/// Pure: the next step of a Group Replication ordered update.
///  1. A restarted member must be ONLINE in the agreed view, in another view than the one it was
///     restarted in, its workload ready, polled after the restart, before anything else; past `rejoin_timeout_ms` the rollout is stopped (Blocked,
///     `stopped`) until it is.
///  2. Nothing drifted: idle. Quorum lost, no agreed view or a view without quorum, a switchover
///     in flight, any member RECOVERING, or a rolled (not drifted) member whose workload is not
///     ready (its restart is in progress, even one the caller no longer remembers): wait.
///  3. A drifted member that is not ONLINE (not RECOVERING) is restarted first while the ONLINE
///     members keep the majority (it takes nothing from the group).
///  4. Every other member must be ONLINE before one is restarted.
///  5. Drifted ONLINE SECONDARIES in declared order, each only when the ONLINE members left
///     without it are at least quorum_of(group_size).
///  6. Only the PRIMARY left: switchover to the ONLINE SECONDARY that is rolled, ready and holds
///     the most transactions (its gtid_executed contains every other candidate's; declared order
///     breaks ties, unknown sets rank last). It is restarted after the switchover, as a SECONDARY.
///     The PRIMARY itself is never restarted.
rollout_choice next_gr_rollout(const rollout_facts& facts);

std::string_view to_string(rollout_move m);

}  // namespace br::gr
