// Manual fence of a site (a DBA isolating a misbehaving server): which requests the coordinator
// accepts, and what a fenced site means to the other rules.
//
// The desired state is a set of site names, recorded in the durable state (manually_fenced).
// Kubernetes: the annotation bloodraven.shipstream.io/fenced-sites=<site>[,<site>...] on the group
// object is the whole set (absent or empty: none). Standalone: `bloodraven fence on|off SITE`
// through the signed admin API changes one site.
//
// A fenced site is treated as a read-only site by every rule (never a promotion candidate, fenced
// when found writable, never re-asserted or adopted), and it leaves the routing Services.
// Refused, each with a one-line reason, changing nothing: an unknown site, an empty name in the
// list, the active primary (a planned failover must move the role first), any change while no
// primary is known or a plan runs, and fencing the last primary candidate other than the active
// primary (no failover target would be left). In a Group Replication group the primary and
// candidate rules are the group's quorum instead (gr::may_fence: never below floor(N/2)+1 ONLINE
// members; the PRIMARY may be fenced, its leave makes the group elect another), and a fence needs
// an agreed view.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "actors/operator/decide/gr_quorum.hpp"
#include "messages/topology.hpp"

namespace br {

/// The annotation that holds the desired set (Kubernetes mode).
inline constexpr const char* fenced_sites_annotation = "bloodraven.shipstream.io/fenced-sites";
/// The coordinator's key for a one-site request (standalone admin API); value "on:<site>" |
/// "off:<site>".
inline constexpr const char* fence_request_key = "fence";

struct manual_fence_facts {
  std::vector<std::string> sites;  ///< declared order
  std::map<std::string, site_role> roles;
  std::string active_site;  ///< "" while no primary is confirmed or a transition runs
  bool plan_running = false;
  std::set<std::string> fenced;  ///< as recorded now
  /// Group Replication groups (issue 23): a fence is STOP GROUP_REPLICATION, so the group's
  /// quorum decides instead of the failover-candidate rule: every member as the agreed view (or
  /// its own word) shows it, and the group size quorum is counted over.
  struct group_replication {
    std::vector<gr::quorum_member> members;
    std::size_t declared = 0;
    bool view_known = false;  ///< a majority agreed on the group's view this round
  };
  std::optional<group_replication> gr;
};

struct manual_fence_verdict {
  bool accepted = false;
  std::string reason;          ///< one line: why not, or what changes
  std::set<std::string> next;  ///< the fenced set once accepted (== facts.fenced when refused)
};

/// The set named by an annotation value; `error` set (one line) when it is malformed.
std::set<std::string> parse_fenced_sites(std::string_view value, std::string& error);

/// The whole desired set (the annotation's value).
manual_fence_verdict check_fenced_set(const manual_fence_facts& f, std::string_view value);

/// One site on (fence) or off (unfence).
manual_fence_verdict check_fence_request(const manual_fence_facts& f, const std::string& site,
                                         bool on);

/// The coordinator's value for a one-site request: "on:b" -> {b, true}; false when malformed.
bool parse_fence_request(std::string_view value, std::string& site, bool& on);

/// The roles every rule uses: a fenced site counts as read-only (never a candidate).
std::map<std::string, site_role> effective_roles(const std::map<std::string, site_role>& roles,
                                                 const std::set<std::string>& fenced);

}  // namespace br
