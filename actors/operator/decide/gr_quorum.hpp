// Group Replication quorum arithmetic and the guarded-recovery choice (issue 23), as pure
// functions. The principle: the operator never makes an HA decision the group owns and never
// manufactures a quorum loss, so every action that takes a member out of the group (a manual
// fence, a scale-down) is checked against the group's majority first, and recovering a group
// that lost its majority is never automatic: it is planned here only on a person's request, and
// only when the operator can show which member's data every other known member's data is part of.
//
// Quorum is GR's own: a view of n members makes progress while floor(n/2)+1 of them are ONLINE
// and reachable to each other. `declared` below is the number of members the spec declares (one
// per site); callers that know a larger observed view size pass the larger number.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "actors/operator/decide/gr_view.hpp"
#include "messages/gtid_set.hpp"

namespace br::gr {

/// floor(n/2)+1: how many ONLINE members a group of n needs (1 for n <= 1).
std::size_t quorum_of(std::size_t n);

/// A group-aware PodDisruptionBudget's maxUnavailable: n - quorum_of(n) (0 for n <= 2), so a
/// voluntary disruption never takes the group below its majority.
std::size_t pdb_max_unavailable(std::size_t n);

enum class size_verdict : uint8_t { ok, even_warning, rejected };

struct size_check {
  size_verdict verdict = size_verdict::ok;
  std::string message;  ///< "" when ok
};

/// The declared member count: below one rejected; an even count accepted with a warning (it
/// tolerates no more failures than one member fewer); above GR's 9 rejected.
size_check check_group_size(std::size_t n);

/// One member as the quorum rules see it. In a group without quorum there is no agreed view, so
/// `state` and `role` are the member's own (its own row of replication_group_members).
struct quorum_member {
  std::string site;
  member_state state = member_state::unknown;
  member_role role = member_role::none;
  bool reachable = false;  ///< the operator read it in the latest round
  bool fenced = false;     ///< fenced by hand (STOP GROUP_REPLICATION already done)
  std::optional<gtid_set> gtid_executed;  ///< nullopt: not known this round
  /// It is ONLINE and its own replication_group_members lists a strict majority of its rows
  /// reachable (not UNREACHABLE): its group still has quorum, whatever the operator can reach
  /// (a join in progress, the others cut off from the operator only, or its failure detection
  /// has not yet noticed the others are gone).
  bool sees_majority = false;
  /// Its gtid_executed at the operator's latest good read, whatever round (what an unreachable
  /// member held when it was last seen); nullopt: never read.
  std::optional<gtid_set> last_gtid;
  /// Its server answered the operator this round, even when its member table could not be read
  /// (then `reachable` is false but the member is not known to be down).
  bool answered = false;
};

struct permission {
  bool allowed = false;
  std::string reason;  ///< one line: why refused, or what it leaves
};

/// Members reachable and ONLINE.
std::size_t online_reachable(const std::vector<quorum_member>& members);

/// Whether the group lost its majority: fewer than quorum_of(declared) members are reachable and
/// ONLINE. The group is then Blocked: observed, nothing destructive done.
bool quorum_lost(const std::vector<quorum_member>& members, std::size_t declared);

struct quorum_facts {
  bool bootstrapped = false;        ///< the group was bootstrapped (durable)
  bool all_reported = false;        ///< every declared member was polled at least once
  bool agreed_with_quorum = false;  ///< a majority agreed on a view that has quorum
};

struct quorum_verdict {
  bool blocked = false;
  std::string reason;  ///< one line when blocked
};

/// Whether the group is Blocked by a quorum loss: bootstrapped, every member polled once, no
/// agreed view with quorum, no reachable member that sees a majority of its own view, and fewer
/// than quorum_of(declared) members reachable and ONLINE.
/// While Blocked the operator only observes (no START/STOP, fence, set_as_primary, bootstrap);
/// only a person's recovery request (plan_quorum_recovery) acts.
quorum_verdict quorum_block(const std::vector<quorum_member>& members, std::size_t declared,
                            const quorum_facts& facts);

/// A manual fence of `site` (STOP GROUP_REPLICATION: it leaves the group, super_read_only):
/// refused for an unknown site and when the ONLINE members left would be fewer than
/// quorum_of(declared). Fencing a member that is not ONLINE takes nothing from the majority.
/// Fencing the PRIMARY is allowed: its graceful leave makes the group elect another one.
permission may_fence(const std::vector<quorum_member>& members, std::size_t declared,
                     const std::string& site);

/// A scale-down that removes `site` from the spec (a graceful leave by STOP GROUP_REPLICATION
/// before its workload is deleted): the leave itself needs the current majority
/// (quorum_of(declared) ONLINE, counting the leaver), and the members left must still be a
/// majority of the smaller group (quorum_of(declared - 1)). Never below one member. The PRIMARY
/// may leave (the group elects another).
permission may_remove(const std::vector<quorum_member>& members, std::size_t declared,
                      const std::string& site);

enum class recovery_kind : uint8_t {
  none,           ///< the group has quorum: nothing to recover
  force_members,  ///< SET group_replication_force_members to `site`'s address on `site`
  rebootstrap,    ///< total outage: bootstrap `site` again, the others START and recover from it
  blocked,        ///< not provably safe: stay Blocked, `reason` says why
};

struct recovery_plan {
  recovery_kind kind = recovery_kind::blocked;
  std::string site;                 ///< the safe survivor
  std::vector<std::string> rejoin;  ///< the others, to START after it (declared order)
  std::string reason;               ///< one line, for the condition, the Event and the plugin
  /// force_members / rebootstrap: one line per other member saying what it may lose (the
  /// transactions it held at its last read that `site` lacks, or that it was never read).
  std::vector<std::string> at_risk;
  /// force_members / rebootstrap: a fingerprint of what a person is shown and confirms (kind,
  /// survivor and its GTID set, rejoin, at_risk); a request must name it (review M5), and a plan
  /// recomputed with another digest is refused. "" for none / blocked.
  std::string digest;
  bool operator==(const recovery_plan&) const = default;
};

/// Guarded quorum recovery, computed only when a person asked for it.
/// With ONLINE survivors (reachable members whose own state is ONLINE): the one surviving PRIMARY;
/// else a lone survivor; else the survivor whose GTID set contains every other survivor's (ties
/// broken by declared order); two PRIMARYs, unknown or incomparable sets stay Blocked. The choice is
/// also refused when any reachable member holds known transactions the survivor lacks (forcing
/// would discard them although the operator can see them).
/// A survivor whose own table still shows a majority ONLINE is not forced (Blocked: the group
/// has quorum where the operator cannot see it; forcing would split it).
/// force_members also needs every member left out to be down (review M6): not answering the
/// operator at all, or answering and not ONLINE in a view with quorum; one that answers with an
/// unreadable member table, or whose own table shows a view with quorum, refuses the plan.
/// Total outage (no ONLINE survivor): re-bootstrap only when every declared member is reachable
/// with a known gtid_executed and one member's set contains all of them; otherwise Blocked.
/// `members` in declared order.
recovery_plan plan_quorum_recovery(const std::vector<quorum_member>& members, std::size_t declared);

std::string_view to_string(recovery_kind k);

}  // namespace br::gr
