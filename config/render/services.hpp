// Services (per site, primary, replicas, readers) and the group's PodDisruptionBudget.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>

#include "config/failover_group.hpp"
#include "config/render/options.hpp"

namespace br::render {

/// mysql-<g>-<site>: MySQL 3306 and sidecar 8080 of one site, selected by group + site labels.
/// Group Replication mode: headless (clusterIP None): the name is the member's address
/// (gr_member.hpp), its group communication on the mysql port (the MySQL communication stack).
nlohmann::json render_site_service(const config::failover_group& g, std::size_t site_index,
                                   const render_options& opts);

/// mysql-<g>-primary: selector role=primary (the operator labels the one confirmed primary).
nlohmann::json render_primary_service(const config::failover_group& g, const render_options& opts);

/// mysql-<g>-replicas: selector role=replica and healthy=yes.
nlohmann::json render_replicas_service(const config::failover_group& g, const render_options& opts);

/// mysql-<g>-readers (Group Replication mode only): selector reader=yes, which the router sets
/// on every ONLINE member; no not-ready addresses.
nlohmann::json render_readers_service(const config::failover_group& g, const render_options& opts);

/// PodDisruptionBudget mysql-<g>, minAvailable 1 over the group's MySQL pods.
nlohmann::json render_pdb(const config::failover_group& g, const render_options& opts);

}  // namespace br::render
