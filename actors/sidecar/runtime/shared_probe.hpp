// One MySQL probe shared by concurrent HTTP status requests (/health, /status, /primary,
// /replica): a burst of requests queues at most one probe on the sidecar's MySQL worker, so it
// cannot starve fences and heartbeats, and a result younger than `max_age` is reused.
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "actors/sidecar/common/sidecar_handles.hpp"
#include "messages/mysql.hpp"

namespace br::sidecar {

class shared_probe : public std::enable_shared_from_this<shared_probe> {
 public:
  using callback = std::function<void(std::optional<mysql_outcome>)>;  ///< nullopt = no answer
  struct options {
    /// HAProxy's checks (every 500 ms) read the site's role from this result, so an old one
    /// delays steering after a promotion (at 1000 ms: steering median 985 ms instead of 143 ms,
    /// `tools/bench/run-rto.sh`). At 100 ms a flood still costs at most 10 probes a second.
    std::chrono::milliseconds max_age{100};
    std::chrono::milliseconds timeout{2000};
    std::size_t max_waiters = 128;  ///< beyond: answered at once with nullopt (503)
  };

  shared_probe(caf::actor_system& sys, std::shared_ptr<sidecar_handles> h, options o);

  /// Calls `cb` exactly once: with a fresh-enough result, when the probe in flight answers, or
  /// with nullopt when the worker is not running, the probe fails or too many are waiting.
  void get(callback cb);

  /// Probes started so far (for tests).
  std::size_t probes_started() const;

 private:
  void finish(std::optional<mysql_outcome> r);

  caf::actor_system& sys_;
  std::shared_ptr<sidecar_handles> h_;
  options o_;
  mutable std::mutex m_;
  bool inflight_ = false;
  std::vector<callback> waiters_;
  std::optional<mysql_outcome> last_;
  std::chrono::steady_clock::time_point last_at_{};
  std::size_t started_ = 0;
};

}  // namespace br::sidecar
