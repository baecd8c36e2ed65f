// Group Replication mode (issue 22) in Kubernetes: what makes a site's server a member of the
// group: its group communication address, the seeds, and the my.cnf options the operator owns.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "config/failover_group.hpp"

namespace br::render {

bool is_group_replication(const config::group_spec& spec);

/// The member's group_replication_local_address: sites[].groupReplication.localAddress when
/// given, else gr_local_address (the headless site Service's name, the MySQL port: the group
/// communicates over MySQL connections, group_replication_communication_stack=MYSQL).
std::string gr_member_address(std::string_view group, std::string_view namespace_name,
                              const config::site_spec& site);

/// Every member's address in declared order, comma-separated (group_replication_group_seeds).
std::string gr_group_seeds(const config::failover_group& g);

/// Option names (normalized, '-') the operator owns in Group Replication mode: the plugin's own
/// settings and how the member names itself to the others.
bool is_gr_owned_option(std::string_view normalized_key);

/// The my.cnf options of member `site_index` (empty for an async group). The plugin and clone
/// are loaded, never started at boot, and group_replication_bootstrap_group is never in the file
/// (a START with it ON makes a second group); the values the operator also sets with SET GLOBAL
/// before every START (io/mysql/group_replication.cpp gr_settings_sql) are the same here.
std::map<std::string, std::string> gr_my_cnf_options(const config::failover_group& g,
                                                     std::size_t site_index);

}  // namespace br::render
