// Kubernetes DNS: the group's external-dns DNSEndpoint bloodraven-<g>, written after a confirmed promotion.
#pragma once

#include <caf/actor_system.hpp>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/operator/kube/platform/kube_platform.hpp"
#include "messages/interfaces.hpp"

namespace br {

/// Pure: what to write so that the live DNSEndpoint (null when absent) matches `desired`:
/// nullopt = nothing (spec, labels and owner already right); otherwise the object to create
/// (no resourceVersion) or to PUT (carrying the live resourceVersion).
std::optional<nlohmann::json> dns_endpoint_write(const nlohmann::json& live,
                                                 const nlohmann::json& desired);

/// Blocking: makes bloodraven-<g> point at `site` (its lbIP from the group's spec); 409s are
/// retried from a fresh read. "" on success, else what failed; `wrote` (when given) says
/// whether an object was created or replaced (false: it already pointed there).
std::string apply_dns_endpoint(kube::client& c, const kube_platform_options& o,
                               const std::string& site, bool* wrote = nullptr);

/// Detached: (dns, group, site, target) -> true once the DNSEndpoint names the site's lbIP.
/// The executor sends it only after the promotion is confirmed (S9); a site that cannot be the
/// primary (not a primary-candidate, no lbIP) is refused with false and nothing written.
dns_actor spawn_kube_dns(caf::actor_system& sys, kube_platform_options o);

}  // namespace br
