// The sidecar's Group Replication change detector (issue 22, "change detection"): what of the
// member's own view counts as a change worth ringing the operator's doorbell, and how often a
// report may go. Pure: the watcher (gr_watcher.hpp) feeds it probe outcomes and a clock.
//
// A doorbell is a wake-up, never authority: the operator re-reads every member itself before it
// changes anything, so nothing here is trusted by the operator beyond "look now".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/mysql.hpp"

namespace br::sidecar {

/// One member row as far as a change is concerned: identity, state and role (host, port and
/// version are not part of the group's decisions).
struct gr_seen_member {
  std::string member_id;
  std::string state;
  std::string role;
  bool operator==(const gr_seen_member&) const = default;
};

/// What the member says of its group, normalised (rows sorted by member id, so the order the
/// server returns them in is no change). `reachable` false: the local server did not answer
/// (then nothing else is set).
struct gr_observation {
  bool reachable = false;
  std::string member_id;
  std::string group_name;
  std::string self_state;
  std::string view_id;
  std::vector<gr_seen_member> members;
  bool operator==(const gr_observation&) const = default;
};

/// The observation of one probe outcome of the local server.
gr_observation observe_gr(const mysql_outcome& out);

/// A change is reported when there was no observation yet, or when reachability, the member
/// set, any member's state or role, the view id, the own state or the group name differs. A
/// set_as_primary switch keeps the view id and changes only roles: it is a change.
bool gr_changed(const std::optional<gr_observation>& last, const gr_observation& now);

/// When the next report may go: at once, unless the last one went less than `min_gap` ago
/// (then at last + min_gap). Changes seen in between are coalesced into that one report, which
/// carries the newest observation.
std::chrono::steady_clock::time_point next_report_at(
    std::optional<std::chrono::steady_clock::time_point> last_sent,
    std::chrono::steady_clock::time_point now, std::chrono::nanoseconds min_gap);

/// The `gr` member of a gr-observed report (POST /sidecar/report, kind "gr-observed").
nlohmann::json gr_observation_json(const gr_observation& o);

/// A short token for the Kubernetes doorbell annotation: the view id and a digest of the whole
/// observation, so any change (also a role-only one) changes the value.
std::string gr_observation_token(const gr_observation& o);

}  // namespace br::sidecar
