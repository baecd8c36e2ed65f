// status_hub: the groups' status publications -> /ws/status messages (and on to the status writer).
#pragma once

#include <caf/actor_system.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/common/wall_clock.hpp"
#include "io/http/websocket_hub.hpp"
#include "messages/interfaces.hpp"
#include "messages/operator.hpp"

namespace br {

struct status_hub_config {
  std::string namespace_name;
  std::shared_ptr<http::websocket_hub> ws;
  /// The platform's real status writer (file / CR); every publication is forwarded unchanged.
  status_writer_actor forward;
  /// Recent events for the messages' timeline; empty = none.
  std::function<std::vector<group_event>()> events;
  /// A group whose status did not change is re-sent at this cadence (its poll interval), so a
  /// client gets one message per group per poll cycle and sees pollTime advance.
  caf::timespan interval{std::chrono::seconds(2)};
  /// Wall clock for pollTime; empty = system clock.
  wall_source wall_clock;
};

/// The hub stands in for the status writer in the group's platform handles: the coordinator
/// keeps sending (status, group, json) as before. It never waits on a WebSocket client
/// (websocket_hub::publish only posts), so a stalled client cannot slow the coordinator.
/// It also keeps bloodraven_replication_lag_seconds current from each publication.
status_writer_actor spawn_status_hub(caf::actor_system& sys, status_hub_config cfg);

}  // namespace br
