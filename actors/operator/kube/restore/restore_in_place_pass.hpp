// spec.restoreInPlace's part of a restore controller pass (restore_controller.cpp calls it for
// every valid group with spec.restoreInPlace, or with status.restoreInPlace still running or
// Succeeded with reclones to ask). Blocking, like the pass.
#pragma once

#include <caf/actor_system.hpp>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/restore/restore_controller.hpp"
#include "io/kube/events.hpp"
#include "messages/operator.hpp"

namespace br::restore_ctl {

using json = nlohmann::json;

/// Pure: the target is fenced for the load, from probes newer than `since` (RFC 3339, Fencing's
/// start; a site's lastSeen is its latest good probe, while its `replicating` stays from that
/// probe when it becomes unreachable): the target reports read-only (super_read_only ON) in such a
/// probe, every other site is unreachable now (it cannot be checked; it is restore-pending after
/// the load, and `restore --replace` itself refuses a target that still serves a replica) or
/// reports not replicating in such a probe, and no pod of the target carries role=primary.
/// `waits` names what is still waited for.
bool target_fenced(const json& status, const std::string& target, const std::vector<json>& pods,
                   const std::string& since, std::string* waits = nullptr);

class in_place_pass {
 public:
  in_place_pass(const controller_options& o, kube::client& c, kube::event_recorder& events);
  /// One group: `job` is its mysqlrestore-inplace-<group> Job (null when none).
  void run(const json& group_object, config::failover_group g, const json* job, const std::string& now);
  int failures() const { return failures_; }

 private:
  void failed(const char* what, const std::string& name, const std::string& error);
  /// The coordinator's durable record (default when it never stored a state); nullopt: unreadable.
  std::optional<restore_freeze_record> freeze_record(const std::string& ns, const std::string& group);
  std::optional<std::string> ask(const config::failover_group& g, const std::string& key, const std::string& value);

  const controller_options& o_;
  kube::client& c_;
  kube::event_recorder& events_;
  int failures_ = 0;
};

/// controller_options::ask_group through the group source: a blocking request (the controller is
/// detached) bounded by `timeout`; nullopt when it did not answer.
group_asker ask_through(caf::actor_system& sys, group_source_actor source,
                        std::chrono::milliseconds timeout = std::chrono::seconds(15));

}  // namespace br::restore_ctl
