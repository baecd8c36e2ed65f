// What a failover executor needs from its group: I/O, platform, coordinator and the spec values.
#pragma once

#include "actors/common/authority.hpp"

#include <caf/actor.hpp>
#include <caf/local_actor.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "messages/interfaces.hpp"
#include "messages/operator.hpp"
#include "messages/mysql.hpp"
#include "messages/topology.hpp"
#include "actors/common/wall_clock.hpp"

namespace br {

/// Handed to every executor the coordinator spawns (also when it re-spawns one to resume a plan).
/// Everything is a value or a handle: the executor never reads the spec itself.
struct executor_deps {
  site_io_actor site_io;
  platform_handles platform;
  coordinator_actor coordinator;
  std::string group;
  std::string namespace_name;  ///< "" in standalone mode; metric/event labels only
  /// Operator account per site (site, host, port, user, password).
  std::map<std::string, mysql_target> targets;
  /// Replication account used in CHANGE REPLICATION SOURCE (site/host/port unused: the source's
  /// host/port come from `targets`).
  mysql_target replication;
  bool replication_ssl = false;  ///< spec.replication.tls
  /// spec.tls: SOURCE_SSL_CA of every CHANGE REPLICATION SOURCE (verified); "" = none.
  std::string replication_ssl_ca;
  /// spec.sites[].lbIP per site (DNS target once the candidate is confirmed writable).
  std::map<std::string, std::string> lb_ips;
  /// spec.sites in declared order.
  std::vector<std::string> sites;
  std::map<std::string, site_role> roles;
  /// CAF request timeout for a site_io call: the command's own timeout plus this slack is used
  /// for long commands (wait_executed, clone); short commands use request_timeout as is.
  caf::timespan request_timeout{std::chrono::seconds(6)};
  /// Deadline of one short MySQL command (fence, promote, probe, ...).
  caf::timespan command_timeout{std::chrono::seconds(5)};
  /// The leadership generation the group runs under: every command carries it (S8).
  uint64_t leader_generation = 0;
  /// spec.cloneTimeout (CLONE INSTANCE deadline).
  caf::timespan clone_timeout{std::chrono::seconds(3600)};
  /// Sidecars (docs/safety.md promotion gate rules 2-3): site -> "host:port" of its sidecar API
  /// (spec.sites[].sidecarAddress); a site without one never acknowledges.
  std::map<std::string, std::string> sidecars;
  /// The operator's keys for this group (docs/safety.md "Threat model"): views leave signed,
  /// acknowledgements count only when their site's key signed them. Null: no pushes.
  std::shared_ptr<const auth::key_ring> keys;
  std::string authority_group;  ///< "<namespace>/<group>": what signed statements name
  /// A detached HTTP worker for view pushes (one per sidecar per executor; the executor stops
  /// them when it ends). Empty: no pushes (only rule 1 and Fast can open the gate).
  std::function<http_worker_actor()> http_worker;
  /// Rule 3's wait inputs, as the sidecars run them (lease already clamped like the sidecar
  /// clamps it) and the lease of the in-database dead man's switch.
  caf::timespan lease_timeout{std::chrono::seconds(20)};
  caf::timespan peer_check_interval{std::chrono::seconds(5)};
  caf::timespan sidecar_fence_timeout{std::chrono::seconds(20)};
  caf::timespan sidecar_request_timeout{std::chrono::seconds(2)};
  /// Pause between pushes to a sidecar that has not acknowledged yet.
  caf::timespan push_retry{std::chrono::seconds(1)};
  /// Registry path of the coordinator; the executor reports its steps under
  /// "<coordinator_path>/executor".
  std::string registry_path;
  /// Wall clock for observedAt of the views it pushes (empty = system clock).
  wall_source wall_clock;
};

/// How the coordinator starts an executor; injectable so tests can stub it. Production uses
/// spawn_failover_executor (actors/operator/group/failover_executor.hpp).
/// `parent` is the coordinator (any local actor can spawn).
using executor_factory =
    std::function<executor_actor(caf::local_actor* parent, failover_plan plan, executor_deps deps)>;

}  // namespace br
