// Dragonfly's Kubernetes objects for a group with spec.dragonfly.enabled: per site a StatefulSet,
// a Service and a PodDisruptionBudget `<g>-dragonfly-<site>`, and the active Service
// `<g>-dragonfly`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "config/render/group_objects.hpp"

namespace br::render {

/// Pod labels the Dragonfly manager sets; the pod template starts them at replica / enabled.
inline constexpr std::string_view label_dragonfly_role = "shipstream.io/dragonfly-role";
inline constexpr std::string_view label_dragonfly_traffic = "shipstream.io/dragonfly-traffic";
inline constexpr std::string_view dragonfly_container = "dragonfly";
/// The container's environment variable holding the auth Secret's password.
inline constexpr std::string_view dragonfly_password_env = "DRAGONFLY_PASSWORD";

/// "<g>-dragonfly-<site>": the site's StatefulSet, Service and PodDisruptionBudget.
std::string dragonfly_site_name(std::string_view group, std::string_view site);
/// "<g>-dragonfly": the active Service (the master that carries traffic).
std::string dragonfly_active_service_name(std::string_view group);
/// The standard labels with app.kubernetes.io/name=dragonfly.
nlohmann::json dragonfly_labels(std::string_view group, std::string_view site = {});

/// Pure. Nothing when spec.dragonfly.enabled is false. Otherwise, in apply order: per site the
/// StatefulSet (replicas 1, emptyDir /data, the site's zone, the group's readonly taint
/// tolerated, TCP probes on the client port), the ClusterIP Service and the PDB
/// (minAvailable 1); then the active Service selecting dragonfly-role=master AND
/// dragonfly-traffic=enabled. Errors (objects empty): a derived name over 63 characters.
render_result render_dragonfly(const config::failover_group& g, const render_options& opts);

/// Pure: names of the group's Dragonfly objects of `kind` in `live` (a list response of that
/// kind, already selected by dragonfly_selector(group)) that `desired` (render_dragonfly's
/// objects) does not hold: all of them once Dragonfly is disabled, a removed site's otherwise.
std::vector<std::string> stale_dragonfly_objects(const nlohmann::json& live, std::string_view kind,
                                                 const std::vector<nlohmann::json>& desired);

/// "app.kubernetes.io/name=dragonfly,shipstream.io/failover-group=<g>,app.kubernetes.io/managed-by=bloodraven".
std::string dragonfly_selector(std::string_view group);

}  // namespace br::render
