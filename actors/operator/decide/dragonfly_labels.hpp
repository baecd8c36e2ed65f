// Kubernetes mode's Dragonfly traffic label (pure): the writes to the cache pods' labels that make
// the active Service <g>-dragonfly (selector dragonfly-role=master AND dragonfly-traffic=enabled)
// select the master's pod and nothing else, or take one site's pod out of it.
//
// The Dragonfly manager is the only writer of these two labels (the pod template sets their
// first values; the router and the reconciler never touch a Dragonfly pod's labels). The
// removals come first and the manager stops at the first write that fails, so two pods are never
// selected at once: a pod that cannot be relabelled away from master holds the new master back.
#pragma once

#include <string>
#include <vector>

namespace br::dragonfly {

/// One cache pod as listed (its site label and the two labels' values; "" = absent).
struct cache_pod {
  std::string name;
  std::string site;
  std::string role;
  std::string traffic;
  bool terminating = false;  ///< deletionTimestamp set
};

/// One merge patch of a pod's labels; an empty value leaves that label alone.
struct label_write {
  std::string pod;
  std::string role;
  std::string traffic;
  bool operator==(const label_write&) const = default;
};

struct label_plan {
  std::vector<label_write> writes;  ///< in order; run until the first failure
  std::string problem;              ///< "" or why the plan cannot finish (its writes still run)
};

/// `master`'s pod becomes the only one the active Service selects: every other pod whose role is
/// not replica gets role=replica first (traffic untouched: a stripped stale master stays
/// stripped), then the master's pod gets role=master and traffic=enabled (only the labels that
/// differ; nothing when all are right). No pod for `master`, or only a terminating one: the
/// removals only, and `problem` says so.
label_plan plan_master_labels(const std::vector<cache_pod>& pods, const std::string& master);

/// `site`'s pods leave the active Service: traffic=disabled (role untouched) where it differs.
label_plan plan_strip_labels(const std::vector<cache_pod>& pods, const std::string& site);

/// The values the manager writes.
inline constexpr const char* role_master = "master";
inline constexpr const char* role_replica = "replica";
inline constexpr const char* traffic_enabled = "enabled";
inline constexpr const char* traffic_disabled = "disabled";

}  // namespace br::dragonfly
