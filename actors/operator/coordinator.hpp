// coordinator: one per group; owns the view, the epoch and the durable state; evaluates, decides.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "actors/operator/executor_deps.hpp"
#include "messages/decisions.hpp"
#include "messages/interfaces.hpp"
#include "messages/operator.hpp"

namespace br {

struct coordinator_config {
  std::string group;
  std::string namespace_name;
  std::string path;  ///< registry path
  std::vector<std::string> sites;  ///< declared order
  std::map<std::string, site_role> roles;
  /// sitePriorities, or the legacy preferSite as its single entry.
  std::vector<std::string> site_priorities;
  caf::timespan poll_interval{std::chrono::seconds(2)};
  caf::timespan failover_cooldown{std::chrono::minutes(5)};
  /// After a failed plan, wait this long before starting another automatically.
  caf::timespan plan_retry_delay{std::chrono::seconds(30)};
  /// Status changes are coalesced for this long (view changes are written at once).
  caf::timespan status_coalesce{std::chrono::milliseconds(500)};
  caf::timespan store_timeout{std::chrono::seconds(10)};
  gate_policy policy = gate_policy::safe;
  caf::timespan drain_timeout{std::chrono::seconds(30)};
  caf::timespan step_timeout{std::chrono::seconds(10)};
  caf::timespan gate_timeout{std::chrono::minutes(2)};
  caf::timespan command_timeout{std::chrono::seconds(5)};
  /// Handed to every executor (the coordinator fills in its own handle).
  executor_deps deps;
  executor_factory make_executor;
  /// Wall clock for the cooldown record (injectable so virtual-time tests can drive it).
  std::function<wall_time()> wall_clock;
  size_t max_executor_respawns = 5;
};

struct coordinator_state {
  coordinator_config cfg;
  bool loaded = false;
  durable_state durable;  ///< as last persisted
  topology_view view;     ///< as last published (always == durable.view once loaded)
  std::map<std::string, site_report> reports;
  std::map<std::string, site_probe> good_probes;
  std::map<std::string, int64_t> last_seen_ms;
  /// Persists run one at a time, each applying its change to the state the previous one left.
  std::vector<std::pair<std::function<void(durable_state&)>, std::function<void(bool)>>> persists;
  bool persist_running = false;
  caf::actor executor;
  size_t respawns = 0;
  std::optional<caf::actor_clock::time_point> last_plan_failure;
  std::optional<caf::actor_clock::time_point> plan_started;  ///< failover duration metric
  std::optional<caf::actor_clock::time_point> last_evaluation;
  std::set<std::string> fencing;     ///< fence in flight
  std::set<std::string> recovering;  ///< returning-primary check in flight
  std::set<std::string> alerts;      ///< Events already raised for the current situation
  std::optional<wall_time> last_reassert;
  group_evaluation evaluation;
  bool evaluated = false;
  std::string last_status;
  bool status_flush_scheduled = false;
  // SAFETY.md rule 7: the operator's heartbeat on the site it holds active and is not deposing.
  std::set<std::string> heartbeat_inflight;
  std::map<std::string, caf::actor_clock::time_point> switch_checked;  ///< last ensure_switch
  // Best-effort pushes of every published view to the sidecars (one worker per sidecar).
  /// Shared with the exit hook that stops them (it runs after the state is destroyed).
  std::shared_ptr<std::map<std::string, http_worker_actor>> push_workers =
      std::make_shared<std::map<std::string, http_worker_actor>>();
  std::set<std::string> push_inflight;
  static inline const char* name = "coordinator";
};

/// The coordinator's behaviour; spawn it with spawn_coordinator or from a supervisor with
/// `sup->spawn(coordinator, cfg)` and actor_cast the handle to coordinator_actor. It is an untyped
/// event-based actor internally (the executor factory takes a caf::event_based_actor* parent);
/// its public messages are exactly coordinator_actor's.
caf::behavior coordinator(caf::stateful_actor<coordinator_state>* self, coordinator_config cfg);

coordinator_actor spawn_coordinator(caf::actor_system& sys, coordinator_config cfg);

/// The admin annotation the coordinator understands.
inline constexpr const char* reclone_annotation = "bloodraven.shipstream.io/reclone-site";

}  // namespace br
