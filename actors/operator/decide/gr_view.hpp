// Group Replication (issue 22): the operator's three pure decisions about a group, before any wiring.
//
// The group owns membership, certification and primary election; the operator only observes and
// mirrors. It must never judge the group through one member (an isolated, stale or lying member can
// report anything), so:
//
// 1. cross_validate: every reachable member's own copy of performance_schema.replication_group_members
//    (and its VIEW_ID) is a vote, counted only when the reporter lists itself ONLINE and its table is
//    quorate (ONLINE rows are a strict majority of the rows: GR's own quorum over its view). Votes are
//    grouped by their whole claim (view id + every row's member/state/role). The winning claim must
//    hold a strict majority of the votes cast AND a strict majority of the quorum denominator
//    (max(configured members, observedViewMax)), so a lone member claiming a one-member group, a stale
//    view and a tie all give "unknown": never a guess. The primary is the claim's ONLINE PRIMARY
//    only (a killed primary stays listed UNREACHABLE/PRIMARY until it is expelled).
// 2. decide_gr_bootstrap: exactly-once bootstrap. Only while `bootstrapped` (sticky, durable) is
//    false, the designated member answers with the plugin stopped (OFFLINE), and no reachable member
//    reports any group; otherwise join or wait, with the reason. A group found while `bootstrapped`
//    is still false (the operator died between START and its write) is adopted: mark it, never
//    bootstrap again.
// 3. gr_provision_gate: one joiner at a time, only while the verdict is known, the group has quorum,
//    an ONLINE donor exists and nobody is RECOVERING.
//
// Measured behaviour behind these rules: docs/group-replication.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace br::gr {

enum class member_state : uint8_t { online, recovering, offline, error, unreachable, unknown };
enum class member_role : uint8_t { primary, secondary, none };

/// MEMBER_STATE / MEMBER_ROLE text as MySQL prints it ("ONLINE", "PRIMARY", "" ...); anything else
/// is unknown / none.
member_state parse_member_state(std::string_view text);
member_role parse_member_role(std::string_view text);
std::string_view to_string(member_state s);
std::string_view to_string(member_role r);

/// One row of replication_group_members as one member reports it.
struct member_row {
  std::string member_id;  ///< MEMBER_ID (the member's server_uuid)
  std::string host;
  uint16_t port = 0;
  member_state state = member_state::unknown;
  member_role role = member_role::none;
};

/// What the operator read from one member (or failed to read).
struct member_report {
  std::string reporter;    ///< MEMBER_ID of the member read
  bool reachable = false;  ///< false: no answer; rows and view_id are then ignored
  std::string view_id;     ///< replication_group_member_stats.VIEW_ID of the reporter ("" when none)
  std::vector<member_row> rows;
};

struct view_member {
  std::string member_id;
  std::string host;
  uint16_t port = 0;
  member_state state = member_state::unknown;
  member_role role = member_role::none;
  bool reachable = false;  ///< the operator read this member itself in this round
};

/// The cross-validated verdict (status.groupReplication's observed part).
struct group_view {
  bool known = false;              ///< false: no majority claim; nothing below may be acted on
  std::string reason;              ///< one line: what was agreed, or why unknown
  std::string primary_member;      ///< MEMBER_ID of the ONLINE PRIMARY; "" when none
  bool has_quorum = false;         ///< ONLINE members are a strict majority of the denominator
  std::string view_id;             ///< the agreed view id
  std::size_t observed_view_max = 0;  ///< sticky: max(before, agreed view size)
  std::size_t votes = 0;           ///< reporters behind the verdict
  std::vector<view_member> members;     ///< the agreed table, MEMBER_ID order
  std::vector<std::string> outvoted;    ///< quorate ONLINE reporters whose claim lost, sorted
};

/// Pure. `configured_members`: members the spec declares; `observed_view_max_before`: the sticky
/// value from status (0 at first).
group_view cross_validate(const std::vector<member_report>& reports, std::size_t configured_members,
                          std::size_t observed_view_max_before);

// ---- exactly-once bootstrap -------------------------------------------------------------------

/// One member as probed for the bootstrap decision.
struct bootstrap_probe {
  std::string name;  ///< the site / member name the operator uses
  bool reachable = false;
  bool plugin_loaded = false;  ///< replication_group_members has the member's own row
  member_state self_state = member_state::unknown;  ///< its own row's MEMBER_STATE
  std::size_t rows = 0;         ///< rows in its replication_group_members
  std::size_t online_rows = 0;  ///< of which ONLINE
};

struct bootstrap_facts {
  bool bootstrapped = false;  ///< sticky, from the durable state; never goes back to false
  std::string designated;     ///< the one member allowed to bootstrap
  std::vector<bootstrap_probe> members;
};

enum class bootstrap_action : uint8_t { bootstrap, join, wait };

struct bootstrap_decision {
  bootstrap_action action = bootstrap_action::wait;
  std::string member;               ///< bootstrap: the designated member
  bool mark_bootstrapped = false;   ///< a group exists: persist bootstrapped=true (sticky)
  std::string reason;               ///< one line
};

/// Pure.
bootstrap_decision decide_gr_bootstrap(const bootstrap_facts& f);

// ---- provisioning gate ------------------------------------------------------------------------

/// A member that should be in the group, as probed (declared order = admission order).
struct joiner_probe {
  std::string name;
  std::string member_id;  ///< its server_uuid ("" when unknown)
  bool reachable = false;
  member_state self_state = member_state::unknown;
};

struct provision_decision {
  std::string admit;   ///< the one member to START now; "" for none
  std::string reason;  ///< one line
};

/// Pure. `view`: this round's cross_validate verdict; `members`: every declared member.
provision_decision gr_provision_gate(const group_view& view, const std::vector<joiner_probe>& members);

}  // namespace br::gr
