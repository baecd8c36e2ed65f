// The Dragonfly manager (issue 24): one detached actor per group with spec.dragonfly.enabled, a
// child of the group supervisor. Every `interval` it asks the coordinator for the group's status
// (MySQL's active site, a planned failover in progress), reads every site's cache server
// (cache_io.hpp, in parallel, each bounded), decides with plan_steering
// (decide/dragonfly_steer.hpp) and runs the plan's commands in order, stopping at the first
// that fails (the next poll decides again from what is then true). It never waits on MySQL and
// MySQL never waits on it: the coordinator only answers its status question.
//
// The recorded master lives in memory only: after a restart the manager adopts MySQL's active
// site when it answers as a master, else the only master holding data (rule 1 of the steering).
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "actors/common/supervisor.hpp"
#include "actors/operator/dragonfly/cache_io.hpp"
#include "messages/interfaces.hpp"

namespace br::dragonfly {

/// Kubernetes mode's traffic label: the cache pods' dragonfly-role / dragonfly-traffic labels the
/// active Service selects (decide/dragonfly_labels.hpp; the manager is their only writer). Each
/// returns "" on success, else why. Unset (standalone mode): the manager switches the router's
/// check user (messages/dragonfly.hpp traffic_check_user) with ACL SETUSER on the servers.
struct pod_traffic {
  /// `master`'s pod becomes the only one selected (the others' master role removed first).
  std::function<std::string(const std::string& master)> label_master;
  /// `site`'s pod leaves the active Service (traffic=disabled).
  std::function<std::string(const std::string& site)> strip;
  explicit operator bool() const { return label_master && strip; }
};

struct manager_config {
  std::string namespace_name;  ///< metric label
  std::string group;
  std::string path;  ///< registry path (set by the supervisor)
  std::vector<cache_endpoint> sites;
  std::string password;  ///< "" = no AUTH
  cache_timeouts timeouts;
  caf::timespan interval{std::chrono::seconds(2)};
  int lost_after_polls = 3;
  std::chrono::milliseconds takeover_timeout{std::chrono::seconds(30)};  ///< maxSyncWait
  std::chrono::minutes stale_event_every{5};
  event_actor events;
  pod_traffic pods;  ///< set in Kubernetes mode
  /// Kubernetes mode: status.dragonfly goes there (decide/dragonfly_status.hpp) whenever it
  /// changed; null = not reported (standalone mode: the log and the metrics say it).
  dragonfly_status_actor status;
};

/// The manager as a child of the group supervisor (it finds the coordinator by asking it).
child_spec manager_child(manager_config cfg);

}  // namespace br::dragonfly
