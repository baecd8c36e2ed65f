// spec.replication.semiSync in Kubernetes mode (issue 25): the semi-synchronous replication
// plugins and their options in the rendered my.cnf (docs/safety.md, semi-sync section).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "config/group_spec.hpp"

namespace br::render {

/// True when spec.replication.semiSync is enabled and `normalized_key` is one of the options it
/// owns: every rpl-semi-sync-* option (also with loose-) and plugin-load(-add), which carries the
/// plugins. mysqlConf may not override them then.
bool is_semi_sync_owned_option(const config::group_spec& spec, std::string_view normalized_key);

/// The options when enabled, else none: both plugins loaded (the clone plugin stays in the same
/// list), the receiver side on, the source side OFF at boot (the operator turns it on on the
/// promoted primary only: a replica with it on holds its own applier's commits until a replica of
/// its own acknowledges them), AFTER_SYNC, K, the timeout the operator counts as never falling back
/// (messages/mysql.hpp semisync_timeout_max_ms, also set at promotion), wait_no_replica ON. No `loose-`
/// prefix: a server whose plugin is missing refuses the unknown option and does not boot, rather
/// than running asynchronously (the init container leaves these lines out: `mysqld --initialize`
/// loads no plugins).
std::map<std::string, std::string> semi_sync_my_cnf_options(const config::group_spec& spec);

}  // namespace br::render
