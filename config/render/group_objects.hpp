// Everything the operator owns for one group, rendered from its spec in apply order.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/failover_group.hpp"
#include "config/field_error.hpp"
#include "config/render/options.hpp"

namespace br::render {

struct render_result {
  /// ConfigMaps, PVCs, Deployments, site Services, the primary and replicas Services, the PDB.
  /// The DNSEndpoint and taints depend on the active site: see traffic.hpp.
  std::vector<nlohmann::json> objects;
  /// Problems that make the group unrenderable (names too long or colliding, refused mysqlConf
  /// keys, an unsupported reconciler version). Objects are empty when this is not.
  config::field_errors errors;
  bool ok() const { return errors.empty(); }
};

/// Pure: the same group and options always give the same objects.
render_result render_group(const config::failover_group& g, const render_options& opts);

/// Which of the group's my.cnf ConfigMaps (`live_config_maps`, listed by label) may be deleted:
/// neither desired now nor still mounted by a live Deployment (a site not yet rolled by an
/// ordered update keeps its old config).
std::vector<std::string> unused_config_maps(const std::vector<std::string>& live_config_maps,
                                            const std::vector<nlohmann::json>& live_deployments,
                                            const std::vector<nlohmann::json>& desired);

}  // namespace br::render
