// The generated my.cnf of one site and the content-addressed ConfigMap that carries it.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "config/failover_group.hpp"
#include "config/field_error.hpp"

namespace br::render {

struct my_cnf_result {
  std::string content;          // the whole file, "[mysqld]" section, keys sorted
  config::field_errors errors;  // overrides the operator refuses (paths under spec)
};

/// Option names as MySQL reads them: '_' becomes '-', so "sync_binlog" and "sync-binlog" are the
/// same key and a user override replaces the default instead of duplicating it.
std::string normalize_option(std::string_view key);

/// True for options the operator owns: boot fencing (S5: read-only and super-read-only ON at
/// boot), GTID replication and server-id. mysqlConf may not override them.
bool is_operator_owned_option(std::string_view normalized_key);

/// Built-in defaults, then spec.mysqlConf, then sites[i].mysqlConf; server-id is
/// 101 + site index. Refused overrides (operator-owned keys, line breaks or brackets that could
/// smuggle extra settings in) are reported and left out.
my_cnf_result render_my_cnf(const config::group_spec& spec, std::size_t site_index);

/// The same for the group's site `site_index`, plus, in Group Replication mode, the member's
/// options (gr_member.hpp: plugin, group communication address, seeds, the spec's settings),
/// which spec.mysqlConf may not override.
my_cnf_result render_my_cnf(const config::failover_group& g, std::size_t site_index);

/// "mysql-<g>-<site>-config-<hash of content>": changes exactly when the content changes.
std::string config_map_name(std::string_view group, std::string_view site,
                            std::string_view content);

/// Immutable ConfigMap {my.cnf: content} named by config_map_name.
nlohmann::json render_config_map(const config::failover_group& g, std::size_t site_index,
                                 const std::string& content, int reconciler_version);

}  // namespace br::render
