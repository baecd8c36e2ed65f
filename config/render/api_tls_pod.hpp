// The operator and sidecar APIs over mutual TLS in Kubernetes mode (issue 26): the site's API
// certificate in its pod. With the operator's --api-tls-ca-secret (render_options::api_tls) the
// operator issues every site a Secret mysql-<group>-<site>-api-tls (ca.crt, tls.crt, tls.key; the
// URI SAN bloodraven://site/<ns>/<group>/<site>, actors/operator/kube/core/api_tls_plan.hpp),
// and the sidecar mounts it read-only at /etc/bloodraven/api-tls as a Secret volume (no subPath:
// the kubelet rewrites the files in place on renewal; the server and the client re-read them).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "config/failover_group.hpp"

namespace br::render {

inline constexpr const char* api_tls_volume = "api-tls";
inline constexpr const char* api_tls_dir = "/etc/bloodraven/api-tls";

/// "mysql-<group>-<site>-api-tls": the site's API certificate Secret in the group's namespace.
std::string api_tls_secret_name(std::string_view group, std::string_view site);

/// Adds the site's API Secret volume to `pod_spec`, its mount to the sidecar container and the
/// sidecar's BLOODRAVEN_TLS_CERT_FILE/_KEY_FILE/_CA_FILE; BLOODRAVEN_TLS_CLIENT_AUTH=request,
/// because the kubelet's probes present no certificate (the authority-carrying routes refuse a
/// request without one themselves); every sidecar probe on the API port becomes scheme HTTPS
/// (the liveness listener stays plain HTTP).
void add_api_tls(const config::failover_group& g, std::size_t site_index, nlohmann::json& pod_spec);

}  // namespace br::render
