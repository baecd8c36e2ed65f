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
#include <mutex>
#include <string>
#include <vector>

#include "messages/interfaces.hpp"
#include "messages/operator.hpp"

namespace br {

/// (pollstats) -> poll_stats: the poller's cadence record (for tools/bench scale).
using poll_stats_atom = caf::atom_constant<caf::atom("pollstats")>;

struct poll_stats {
  uint64_t ticks = 0;
  uint64_t probes = 0;
  uint64_t overlaps = 0;          ///< ticks that found the previous probe still running
  std::vector<int64_t> jitter_us; ///< last samples: tick arrival minus its schedule (>= 0)
  int64_t p50_us = 0;
  int64_t p99_us = 0;
  int64_t max_us = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, poll_stats& x) {
  return f(caf::meta::type_name("poll_stats"), x.ticks, x.probes, x.overlaps, x.jitter_us,
           x.p50_us, x.p99_us, x.max_us);
}

/// Where a poller sends its reports. The group supervisor restarts the coordinator with a new
/// handle; pollers read the current one from this slot on every report instead of holding a stale
/// handle (set by the coordinator's child_spec, read from poller threads: hence the mutex).
class coordinator_slot {
 public:
  void set(coordinator_actor h) {
    std::lock_guard<std::mutex> g(mx_);
    h_ = std::move(h);
  }
  coordinator_actor get() const {
    std::lock_guard<std::mutex> g(mx_);
    return h_;
  }

 private:
  mutable std::mutex mx_;
  coordinator_actor h_;
};

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
  /// What each poll runs (the topology's observation).
  mysql_op probe = mysql_op::probe;
};

struct site_poller_state {
  site_poller_config cfg;
  site_io_actor io;
  std::shared_ptr<coordinator_slot> coordinator;
  debounce_state debounced;
  bool in_flight = false;
  bool missed_tick = false;  ///< a tick came while probing: probe again as soon as it returns
  caf::actor_clock::time_point probe_sent{};
  caf::actor_clock::time_point next_due{};
  uint64_t ticks = 0, probes = 0, overlaps = 0;
  std::vector<int64_t> jitter_ring;
  size_t jitter_next = 0;
  std::string last_step;
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

caf::behavior site_poller(caf::stateful_actor<site_poller_state>* self, site_poller_config cfg,
                          site_io_actor io, std::shared_ptr<coordinator_slot> coordinator);

}  // namespace br
