// List+watch loop that never loses a change: resumes dropped watches, relists on 410 Gone.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <string>

#include "io/kube/client.hpp"

namespace br::kube {

struct reflector_options {
  std::string label_selector;
  std::string field_selector;
  std::size_t page_size = 500;
  std::chrono::seconds watch_timeout{300};
  milliseconds backoff_initial{200};
  milliseconds backoff_max{10000};
  double jitter = 0.5;  // each wait is backoff * (1 + jitter * U[0,1))
};

struct reflector_stats {
  std::atomic<std::size_t> lists{0};
  std::atomic<std::size_t> watches{0};
  std::atomic<std::size_t> gone{0};    // 410s answered by a relist
  std::atomic<std::size_t> errors{0};  // failed lists/watches followed by a backoff
};

/// Delivers ADDED/MODIFIED/DELETED for every object of one resource (in `ns`, or all when ""),
/// in order. After a relist the events are the difference between what was delivered and the
/// new list, so the consumer's view converges with nothing missed (intermediate versions of an
/// object may coalesce, as in client-go). Bookmarks only advance the resume point.
class reflector {
 public:
  reflector(client& c, resource_ref r, std::string ns, reflector_options o = {});

  /// Blocks until stop(); call from a dedicated thread or detached actor.
  void run(const std::function<void(const watch_event&)>& on_event);
  void stop();
  const reflector_stats& stats() const { return stats_; }
  std::string resource_version() const;

 private:
  bool relist(const std::function<void(const watch_event&)>& on_event);
  void sleep_backoff(milliseconds& backoff);

  client& c_;
  resource_ref r_;
  std::string ns_;
  reflector_options o_;
  reflector_stats stats_;
  std::atomic<bool> stop_{false};
  mutable std::mutex m_;
  std::condition_variable cv_;
  std::string rv_;
  std::map<std::string, json> known_;  // "ns/name" -> last delivered object
  std::mt19937 rng_{std::random_device{}()};
};

}  // namespace br::kube
