// The operator's reading of the Group Replication Pod doorbell (issue 22): a sidecar sets the
// gr-observed annotation on its own Pod on each change of its member's view
// (actors/sidecar/runtime/pod_doorbell.hpp). The operator watches the group's pods; a changed
// value is a wake-up for the group's pollers and nothing else (the value is never read as
// authority: the verdict comes only from the next cross-validated poll, and each poller's wake
// gate limits how often a wake may start one, decide/wake_gate.hpp).
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace br {

/// Pure state machine over the watch events of a group's pods.
class gr_pod_doorbell_tracker {
 public:
  /// One watch event ("ADDED", "MODIFIED", "DELETED") of a pod: true when its gr-observed
  /// annotation now has a value other than the last one seen for that pod (a pod first seen
  /// with one counts: its sidecar may have rung before the watch began). A pod without the
  /// annotation, with the same value, or deleted (forgotten) is no wake.
  bool on_event(const std::string& type, const nlohmann::json& pod);

 private:
  std::map<std::string, std::string> seen_;  ///< pod name -> last annotation value
};

}  // namespace br
