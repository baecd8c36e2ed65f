// site_poller: one per site; probes it every pollInterval through site_io, debounces, reports.
#pragma once

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/timespan.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "actors/common/child_lookup.hpp"
#include "actors/operator/decide/wake_gate.hpp"
#include "messages/interfaces.hpp"
#include "messages/operator.hpp"
#include "actors/common/wall_clock.hpp"

namespace br {

struct site_poller_config {
  std::string group;
  std::string namespace_name;
  std::string site;
  std::string path;  ///< registry path ("root/group:orders/poller:a")
  mysql_target target;
  caf::timespan interval{std::chrono::seconds(2)};
  caf::timespan command_timeout{std::chrono::seconds(5)};
  uint32_t failure_threshold = 3;
  uint32_t recovery_threshold = 2;
  /// Jitter samples kept (a ring).
  size_t jitter_samples = 1024;
  /// Wall clock for the reports' polledAt (empty = system clock).
  wall_source wall_clock;
  /// What each poll runs (the topology's observation).
  mysql_op probe = mysql_op::probe;
  /// The leadership generation the group runs under (mysql_command::leader_generation).
  uint64_t leader_generation = 0;
  /// Wake-ups (a sidecar's doorbell) start at most one probe per this gap (decide/wake_gate.hpp).
  caf::timespan wake_min_gap{std::chrono::milliseconds(250)};
};

struct site_poller_state {
  site_poller_config cfg;
  site_io_actor io;
  /// The group's coordinator, found by asking the group supervisor (a restart gives it a new
  /// handle: the old one goes down and the next report asks again).
  child_ref<coordinator_actor> coordinator;
  debounce_state debounced;
  bool in_flight = false;
  bool missed_tick = false;  ///< a tick came while probing: probe again as soon as it returns
  caf::actor_clock::time_point probe_sent{};
  caf::actor_clock::time_point next_due{};
  uint64_t ticks = 0, probes = 0, overlaps = 0;
  std::vector<int64_t> jitter_ring;
  size_t jitter_next = 0;
  std::string last_step;
  wake_gate_state wake;
  bool wake_waits_for_probe = false;  ///< a coalesced wake is asked again when the probe returns
  uint64_t wake_probes = 0;  ///< probes a wake started
  static inline const char* name = "site_poller";
};

/// The request timeout a poller uses for a command with `command_timeout`: slightly above it, so
/// the worker's own deadline normally fires first and names the failure.
caf::timespan poll_request_timeout(caf::timespan command_timeout);

/// A probe still running this long when a tick comes (90% of max(pollInterval, 1 s)) counts as
/// that tick's failed poll, so a hung server (SIGSTOP, a black-holed network) is declared
/// unreachable after about failureThreshold x pollInterval like a dead one, not after
/// failureThreshold x the 5 s probe timeout. The one-second floor keeps a short pollInterval from
/// turning a merely slow answer into a failure.
caf::timespan probe_overdue_after(caf::timespan interval);

/// Turns a site_io outcome into the debounce input.
poll_result classify_poll(const mysql_outcome& out);

/// "writable", "unreachable (3 failures)", "read-only (1 failure)"...
std::string poller_step_text(const debounce_state& d);

using site_poller_self = site_poller_actor::stateful_pointer<site_poller_state>;

/// `supervisor` is the group supervisor: it answers (child, "coordinator").
site_poller_actor::behavior_type site_poller(site_poller_self self, site_poller_config cfg,
                                             site_io_actor io, caf::actor supervisor);

}  // namespace br
