// Traffic steering objects: the external-dns DNSEndpoint and the per-site node taints.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/failover_group.hpp"
#include "config/render/options.hpp"

namespace br::render {

/// DNSEndpoint bloodraven-<g> (externaldns.k8s.io/v1alpha1): one A record, dns.hostname ->
/// the active site's lbIP, TTL dns.ttl. Nothing when the active site is unknown, not a site of
/// the group, not a primary-candidate, or has no lbIP: a record must never point at a site
/// that cannot be the primary.
std::optional<nlohmann::json> render_dns_endpoint(const config::failover_group& g,
                                                  std::string_view active_site,
                                                  const render_options& opts);

/// The group's readonly taint {key shipstream.io/db-readonly-<g>, value "true", NoExecute}.
nlohmann::json readonly_taint(std::string_view group);

/// What a site's nodes (picked by taintNodeSelector) should carry.
struct site_taint {
  std::string site;
  config::string_map node_selector;
  bool tainted = false;  // true on every non-active site
};

/// One entry per site with a taintNodeSelector and a role other than read-only (readers never
/// cause taint operations). Empty when no active site is known: during a no-primary window the
/// taints of the last confirmed promotion stay as they are rather than evicting every site's
/// applications at once.
std::vector<site_taint> plan_taints(const config::group_spec& spec, std::string_view active_site);

/// A node's spec.taints with the group's readonly taint added (`present`) or removed; other
/// taints are kept in order. Idempotent.
nlohmann::json with_readonly_taint(const nlohmann::json& node_taints, std::string_view group,
                                   bool present);

}  // namespace br::render
