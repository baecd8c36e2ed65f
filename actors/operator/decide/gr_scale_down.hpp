// The scale-down of a Group Replication group, as a pure decision (issue 23): a member whose site
// was removed from the spec but that is still in the group ("leaving") is taken out with STOP
// GROUP_REPLICATION (a graceful leave) before its workload is deleted, one member at a time and
// never below the majority of the smaller group; the PRIMARY is first handed over to a staying
// member (group_replication_set_as_primary), as the rolling restart does. The caller records the
// leave durably (phase Stopping) BEFORE it sends the STOP, records Stopped once the member is out
// of every other member's view, and only then deletes the site's workload.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "actors/operator/decide/gr_quorum.hpp"
#include "actors/operator/decide/gr_view.hpp"

namespace br::gr {

/// The durable phases of a leave (durable_state.gr.leaving, status.groupReplication.leaving).
inline constexpr std::string_view leave_stopping = "Stopping";  ///< recorded; STOP sent or due
inline constexpr std::string_view leave_stopped = "Stopped";    ///< out of the group: delete

/// One member whose site is no longer in the spec.
struct leaving_member {
  std::string site;
  std::string phase;  ///< the durable record: "" (none yet) | Stopping | Stopped
  /// Its MEMBER_ID is known (read from it, this run or in the record): else the agreed view may
  /// list it without the operator telling, so it is never judged out of the group.
  bool identified = false;
  bool reachable = false;  ///< the operator read its own view this round
  member_state own_state = member_state::unknown;  ///< its own word (OFFLINE after the STOP)
  bool in_view = false;  ///< the agreed view lists it (any state)
  member_state state = member_state::unknown;  ///< in the agreed view
  member_role role = member_role::none;        ///< in the agreed view
  bool listed_by_others = false;  ///< a reachable staying member's own table still lists it
};

struct scale_down_facts {
  /// The declared (staying) members as the quorum rules see them (state and role from the agreed
  /// view, `reachable` = read this round); declared order.
  std::vector<quorum_member> staying;
  std::vector<leaving_member> leaving;  ///< in the order the leaves are taken
  bool view_known = false;              ///< a majority agrees on a view
  bool has_quorum = false;              ///< that view has its majority ONLINE
  bool blocked = false;                 ///< quorum lost / a recovery runs (phase)
  std::size_t view_size = 0;            ///< members in the agreed view (0 when unknown)
  std::string switchover_target;        ///< a set_as_primary in flight ("" = none)
};

enum class scale_down_move : uint8_t {
  idle,        ///< nobody leaves
  wait,        ///< `reason` says why
  record,      ///< persist `site` as Stopping, then send STOP GROUP_REPLICATION
  stop,        ///< `site` is recorded Stopping and still in the group: STOP (again)
  switchover,  ///< `site` is the PRIMARY: hand it to `target` first
  stopped,     ///< `site` is out of the group: persist Stopped (its workload may go)
};

struct scale_down_choice {
  scale_down_move move = scale_down_move::idle;
  std::string site;    ///< the leaving member concerned
  std::string target;  ///< switchover: the staying member to become PRIMARY
  std::string reason;  ///< one line, for the status and the condition
  /// stopped: the group's size after the leave (the quorum denominator starts again from it).
  std::size_t new_size = 0;
};

/// The quorum denominator while leaves run: max(the agreed view's size, the staying members plus
/// the leaving members not yet Stopped), so a member already expelled (down) still counts.
std::size_t scale_down_size(const scale_down_facts& f);

/// Pure: the next step of a scale-down. Members Stopped are skipped; the first other one decides:
///  1. Out of the group (identified, the view is agreed and does not list it, no staying member's
///     own table lists it, and its own state is OFFLINE or it does not answer): stopped.
///  2. Otherwise wait while: the group is Blocked, no agreed view, the view has no quorum, a
///     switchover is in flight, a staying member is RECOVERING, or the member cannot be read
///     (or was never identified).
///  3. gr::may_remove over N = scale_down_size: the ONLINE members must be a majority of N, and
///     those that stay ONLINE a majority of N - 1; else wait (the reason names the counts).
///  4. The ONLINE PRIMARY with other members ONLINE: switchover to the staying ONLINE SECONDARY
///     holding the most transactions (gtid_rank.hpp; declared order breaks ties); none: wait.
///  5. No record yet: record (Stopping, then STOP); recorded Stopping: stop. A member whose own
///     state is already OFFLINE while others still list it: wait for them to drop it.
scale_down_choice next_gr_scale_down(const scale_down_facts& f);

std::string_view to_string(scale_down_move m);

}  // namespace br::gr
