// Standalone mode's route file `<dir>/<group>.route.json` ({"primary", "replicas", "fenced"}), the
// file HAProxy or another router reads. The executor steers it (primary and replicas, after its
// confirm, S9). Each published status also sets it once the group is settled (an active site, no
// deposing view, the active site's last poll writable: the same rule as the Kubernetes
// reconciler's steering heal), so a group adopted without a plan has a route too. A manually
// fenced site leaves "replicas" (and is listed in "fenced") as soon as the status says so, and
// comes back when unfenced, as the `-replicas` Service follows a fence in Kubernetes.
#pragma once

#include <map>
#include <optional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "messages/group_status.hpp"

namespace br {

/// Pure: the route file's content for a steered route and the manually fenced sites.
nlohmann::json route_file_content(const std::string& primary, const std::vector<std::string>& replicas,
                                  const std::set<std::string>& fenced);

/// Pure: the route a published status asks for; nullopt while the group is not settled (then the
/// file keeps what steering wrote). Replicas: every other site, in the status's order. A Group
/// Replication group (status.groupReplication): from the agreed view only, the primary once the
/// view's active site is the group's PRIMARY ("" while not), the ONLINE secondaries.
struct status_route {
  std::string primary;
  std::vector<std::string> replicas;
};
std::optional<status_route> settled_route(const config::group_status& s);

/// Pure: the manually fenced sites of a status.
std::set<std::string> fenced_sites(const config::group_status& s);

/// The routes of every group, shared by the route file's actor (steering) and the status file's
/// actor (fences); thread-safe, each write atomic (write_file_atomic).
class route_book {
 public:
  explicit route_book(std::string dir) : dir_(std::move(dir)) {}
  /// The executor steered: writes the file; false when the write failed.
  bool steer(const std::string& group, const std::string& primary,
             const std::vector<std::string>& replicas);
  /// The group's status was published: its fenced sites, and its route when settled. The file is
  /// written when that changes what it says; nothing while no route is known.
  void follow(const std::string& group, const config::group_status& status);

 private:
  struct entry {
    std::string primary;
    std::vector<std::string> replicas;  ///< as steered, fenced sites included
    std::set<std::string> fenced;
    std::string written;  ///< the file's content as last written
  };
  bool write(const std::string& group, entry& e);
  std::string path(const std::string& group) const { return dir_ + "/" + group + ".route.json"; }

  std::mutex mx_;
  std::string dir_;
  std::map<std::string, entry> routes_;
};

}  // namespace br
