// gr_watcher: the sidecar's Group Replication change detector (issue 22). Every GR_WATCH_INTERVAL
// it reads the local member's view of its group through the sidecar's MySQL worker (a detached
// actor: the blocking call never runs on a scheduler thread; every request has a deadline) and,
// on any change (gr_change.hpp), rings the operator's doorbell: a POST /sidecar/report of kind
// "gr-observed", signed with the site's key, at most one per `min_report_gap` (changes in
// between are coalesced into the next report, which carries the newest observation). In
// Kubernetes mode (GR_POD_DOORBELL) each report also sets the gr-observed annotation on the
// sidecar's own Pod (pod_doorbell.hpp), one patch at a time, the newest token winning.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "actors/sidecar/common/sidecar_handles.hpp"
#include "actors/sidecar/fencing/signed_answers.hpp"
#include "actors/sidecar/runtime/gr_change.hpp"
#include "actors/sidecar/runtime/pod_doorbell.hpp"
#include "messages/interfaces.hpp"

namespace br::sidecar {

struct gr_watcher_options {
  authority auth;                ///< signs the reports (site key); names site and group
  std::string site, pod_namespace, group;
  std::string operator_address;  ///< host:port; "" = no operator: changes are only logged
  caf::timespan interval = std::chrono::milliseconds(250);
  caf::timespan min_report_gap = std::chrono::milliseconds(100);
  caf::timespan probe_timeout = std::chrono::seconds(2);
  caf::timespan request_timeout = std::chrono::seconds(2);
  /// The own-Pod doorbell; client null = not in Kubernetes mode.
  pod_doorbell_options pod;
};

struct gr_watcher_state {
  static inline const char* name = "gr_watcher";
  gr_watcher_options opts;
  std::shared_ptr<sidecar_handles> h;
  std::optional<gr_observation> last;  ///< the newest observation
  bool unreported = false;             ///< `last` differs from what was last reported
  std::optional<std::chrono::steady_clock::time_point> last_sent;
  int64_t last_sent_at_ms = 0;  ///< the last report's sentAtMs (strictly increasing)
  bool probe_inflight = false;
  bool post_inflight = false;
  bool report_timer = false;
  pod_doorbell_actor pod;            ///< the detached patcher (null without pod.client)
  bool pod_inflight = false;
  std::optional<std::string> pod_pending;  ///< the newest token waiting for the patch in flight
  std::string pod_result;                  ///< the last patch's outcome, logged when it changes
  int pod_failures = 0;  ///< failed patches in a row (pod_doorbell_retry_delay)
  /// A failed token to try again once the tick sees `pod_retry_at` passed (none: nothing failed).
  std::optional<std::string> pod_retry;
  std::chrono::steady_clock::time_point pod_retry_at;
  uint64_t changes = 0, reports = 0;
};

using gr_watcher_self = gr_watcher_actor::stateful_pointer<gr_watcher_state>;

gr_watcher_actor::behavior_type gr_watcher(gr_watcher_self self, gr_watcher_options opts,
                                           std::shared_ptr<sidecar_handles> handles);

/// The body of a gr-observed report (kind, site, namespace, group, sentAtMs, gr).
nlohmann::json gr_report_body(const gr_watcher_options& o, const gr_observation& obs,
                              int64_t sent_at_ms);

}  // namespace br::sidecar
