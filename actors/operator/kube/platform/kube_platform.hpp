// Options shared by the Kubernetes platform actors of one group (router, DNS, taints, reconciler).
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "actors/operator/kube/core/lease_lock.hpp"
#include "config/failover_group.hpp"
#include "config/render/options.hpp"
#include "io/kube/client.hpp"

namespace br {

/// The group object as the operator last accepted it (spec, name, uid). The group source updates
/// it on every valid edit; platform actors outlive group restarts and read the newest copy.
class kube_group_context {
 public:
  explicit kube_group_context(config::failover_group g = {}) : group_(std::move(g)) {}
  config::failover_group get() const {
    std::lock_guard<std::mutex> lk(mx_);
    return group_;
  }
  void set(config::failover_group g) {
    std::lock_guard<std::mutex> lk(mx_);
    group_ = std::move(g);
  }

 private:
  mutable std::mutex mx_;
  config::failover_group group_;
};

struct kube_platform_options {
  std::shared_ptr<kube::client> client;
  std::string ns;
  std::string group;
  /// Writes only while valid (S8); null = always (tests without an elector).
  std::shared_ptr<op::lease_guard> guard;
  std::shared_ptr<kube_group_context> context;
  std::chrono::milliseconds call_timeout{5000};  ///< deadline of every API call
  render::render_options render;
  bool may_write() const { return !guard || guard->valid(); }
};

}  // namespace br
