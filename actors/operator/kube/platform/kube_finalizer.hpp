// Deleting a group: remove its node taints, then its graceful-shutdown finalizer.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/platform/kube_platform.hpp"
#include "config/group_spec.hpp"

namespace br {

/// Pure: `finalizers` without `name`, or nullopt when it is not there (nothing to write).
std::optional<nlohmann::json> without_finalizer(const nlohmann::json& finalizers,
                                                std::string_view name);

/// Blocking: removes the group's readonly taint from the nodes of every site's taintNodeSelector
/// (readers included: a taint left behind would evict applications forever), then removes the
/// finalizer so the API server can delete the group (its owned objects, the DNSEndpoint among
/// them, go by garbage collection). The finalizer stays when a taint could not be removed, so
/// a retry finds it. `before_release` runs once the taints are gone and before the finalizer is
/// released (the closing GracefulShutdown Event, recorded while the group still exists).
/// "" on success, else what failed.
std::string finalize_group(kube::client& c, const kube_platform_options& o,
                           const config::group_spec& spec,
                           const std::function<void()>& before_release = {});

}  // namespace br
