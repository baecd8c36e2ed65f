// One leader-election attempt on a coordination.k8s.io/v1 Lease (client-go's algorithm, blocking).
#pragma once

#include <atomic>
#include <chrono>
#include <memory>
#include <string>

#include "io/kube/client.hpp"

namespace br::op {

using steady = std::chrono::steady_clock;

struct election_config {
  std::string ns = "default";
  std::string name = "bloodraven.shipstream.io";
  std::string identity;  // holderIdentity: the pod name
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  bool release_on_stop = true;  // clean shutdown hands the lease over at once
};

/// Until when this process may act as leader, on the local monotonic clock. Shared by the
/// elector (which extends and clears it) and by anything that writes on the leader's behalf:
/// check valid() before a write and bound the write's timeout by remaining().
class lease_guard {
 public:
  bool valid() const { return steady::now().time_since_epoch().count() < until_.load(); }
  std::chrono::milliseconds remaining() const {
    const auto left = until_.load() - steady::now().time_since_epoch().count();
    return left <= 0 ? std::chrono::milliseconds{0}
                     : std::chrono::duration_cast<std::chrono::milliseconds>(steady::duration{left});
  }
  void set_until(steady::time_point t) { until_.store(t.time_since_epoch().count()); }
  void clear() { until_.store(0); }
  steady::time_point until() const { return steady::time_point{steady::duration{until_.load()}}; }

 private:
  std::atomic<steady::rep> until_{0};
};

class lease_lock {
 public:
  lease_lock(std::shared_ptr<br::kube::client> c, election_config cfg);

  /// Reads the Lease and takes or renews it when free, ours, or unchanged for its duration
  /// since we first observed it (observed on our monotonic clock: clocks of other machines are
  /// never compared). Blocks at most about `budget`. True when we hold it afterwards.
  bool try_acquire_or_renew(std::chrono::milliseconds budget);
  /// Gives the lease up (holder "") when we hold it.
  bool release(std::chrono::milliseconds budget);
  /// When the last successful write was sent (the lease can be no older than this).
  steady::time_point last_success_sent() const { return last_sent_; }
  const election_config& config() const { return cfg_; }

 private:
  std::shared_ptr<br::kube::client> c_;
  election_config cfg_;
  nlohmann::json observed_;  // the last lease spec we saw
  steady::time_point observed_at_{};
  steady::time_point last_sent_{};
};

}  // namespace br::op
