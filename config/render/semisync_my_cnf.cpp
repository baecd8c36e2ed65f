// spec.replication.semiSync in Kubernetes mode (issue 25): the semi-synchronous replication
// plugins and their options in the rendered my.cnf.
#include "config/render/semisync_my_cnf.hpp"

#include "messages/mysql.hpp"

namespace br::render {

bool is_semi_sync_owned_option(const config::group_spec& spec, std::string_view k) {
  if (!spec.replication.semi_sync.enabled) return false;
  if (k.starts_with("loose-")) k.remove_prefix(6);
  return k.starts_with("rpl-semi-sync-") || k == "plugin-load-add" || k == "plugin-load";
}

std::map<std::string, std::string> semi_sync_my_cnf_options(const config::group_spec& spec) {
  const auto& ss = spec.replication.semi_sync;
  if (!ss.enabled) return {};
  return {
      // Both in one list with the clone plugin: the option map holds one value per key.
      {"plugin-load-add", "mysql_clone.so;semisync_source.so;semisync_replica.so"},
      {"rpl-semi-sync-replica-enabled", "ON"},
      {"rpl-semi-sync-source-enabled", "OFF"},
      {"rpl-semi-sync-source-wait-point", "AFTER_SYNC"},
      {"rpl-semi-sync-source-wait-for-replica-count", std::to_string(ss.wait_for_replica_count)},
      {"rpl-semi-sync-source-timeout", std::to_string(semisync_timeout_max_ms)},
      {"rpl-semi-sync-source-wait-no-replica", "ON"},
  };
}

}  // namespace br::render
