// group_supervisor: one supervisor per group whose children are the coordinator and the pollers.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/common/supervisor.hpp"
#include "actors/operator/dragonfly/dragonfly_manager.hpp"
#include "actors/operator/group/coordinator.hpp"
#include "actors/operator/group/executor_deps.hpp"
#include "actors/operator/group/site_poller.hpp"
#include "config/group_spec.hpp"
#include "messages/interfaces.hpp"
#include "actors/common/wall_clock.hpp"

namespace br {

/// Accounts the group uses; passed in by the caller (Secrets / standalone file come later).
struct group_credentials {
  std::string operator_user;
  std::string operator_password;
  std::string replication_user;  ///< "" = use the operator account (reference default)
  std::string replication_password;
  /// Kubernetes mode: the group's keys (Secret mysql-<g>-keys); null = the process-wide
  /// group_runtime::keys.
  std::shared_ptr<const auth::key_ring> keys;
  /// spec.dragonfly's requirepass ("" = none); standalone: BLOODRAVEN_DRAGONFLY_PASSWORD.
  std::string dragonfly_password;
  /// spec.tls (issue 26), Kubernetes mode: a file holding the group's CA (the TLS Secret's
  /// ca.crt) the operator verifies MySQL against; "" = spec.tls.caFile (standalone mode).
  std::string mysql_tls_ca_file{};  // `{}`: brace-initialisers may stop before it
};

/// Process-wide collaborators a group runs against.
struct group_runtime {
  site_io_actor site_io;
  platform_handles platform;
  /// Empty = spawn_failover_executor.
  executor_factory make_executor;
  /// The group's replication topology (what pollers observe, how it decides, which plans exist);
  /// null = async replication.
  const topology* topo = nullptr;
  /// Empty = system clock.
  wall_source wall_clock;
  std::string namespace_name;
  caf::timespan command_timeout{std::chrono::seconds(5)};
  /// The leadership generation the group runs under (Kubernetes mode: counted by the leadership
  /// actor; 0 in standalone mode). Every MySQL command of the group carries it, and site_io
  /// refuses it once that leadership has ended (docs/safety.md S8).
  uint64_t leader_generation = 0;
  caf::timespan status_coalesce{std::chrono::milliseconds(500)};
  /// The operator's keys (--keys-dir); null = no signed views leave this process, so the
  /// sidecars adopt nothing from it and only gate rule 1 (and Fast) can open.
  std::shared_ptr<const auth::key_ring> keys;
  /// Spawns a detached HTTP worker for view pushes; empty = no pushes.
  std::function<http_worker_actor()> http_worker;
  /// More children started after the pollers (Kubernetes mode: the reconciler); they find the
  /// coordinator by asking the group supervisor for (child, "coordinator"). Empty = none.
  std::function<std::vector<child_spec>()> extra_children;
  /// Kubernetes mode: why the group waits for its restore from backup (group_rules::restore_hold;
  /// the group source restarts the group when it changes). "" = nothing held.
  std::string restore_hold;
  /// Kubernetes mode: the Dragonfly manager's traffic label (the cache pods' labels) and where
  /// it reports status.dragonfly; unset in standalone mode.
  dragonfly::pod_traffic dragonfly_pods;
  dragonfly_status_actor dragonfly_status;
  /// Group Replication, Kubernetes mode: sites no longer in the spec whose workload still exists
  /// (site -> its MySQL address): polled and taken out of the group by the scale-down
  /// (decide/gr_scale_down.hpp) before the reconciler deletes their workload.
  std::map<std::string, config::address_spec> gr_leaving;
};

/// The Group Replication rules of a groupReplication spec (enabled, designated member, addresses,
/// settings, a freshly generated group name used only if neither spec nor state has one).
gr_rules gr_rules_of(const config::group_spec& spec);

/// The coordinator configuration a spec yields (exposed for tests and tools).
coordinator_config make_coordinator_config(const std::string& group, const config::group_spec& spec,
                                           const group_credentials& creds,
                                           const group_runtime& rt, const std::string& path);

/// site -> operator-account target: spec.sites[].address when set, else "<site>" on 3306 (the
/// Kubernetes Service name is filled in by the Kubernetes layer later).
std::map<std::string, mysql_target> site_targets(const config::group_spec& spec,
                                                 const group_credentials& creds);

/// Children in start order: coordinator first (its handle goes into the slot the pollers read),
/// then one poller per site. `path` is the group supervisor's own path.
std::vector<child_spec> group_children(const std::string& group, const config::group_spec& spec,
                                       const group_credentials& creds, const group_runtime& rt,
                                       const std::string& path);

caf::actor spawn_group_supervisor(caf::actor_system& sys, const std::string& path,
                                  const std::string& group, const config::group_spec& spec,
                                  const group_credentials& creds, const group_runtime& rt,
                                  restart_policy policy = {});

/// The same as a child of another supervisor (named "group:<group>").
child_spec group_supervisor_child(const std::string& group, const config::group_spec& spec,
                                  const group_credentials& creds, const group_runtime& rt,
                                  restart_policy policy = {});

}  // namespace br
