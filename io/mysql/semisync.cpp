// Semi-synchronous replication switches (semisync.hpp).
#include "io/mysql/semisync.hpp"

#include <string>

namespace br::mysql {

result<void> semisync_source_on(connection& conn, uint32_t k) {
  const std::string statements[] = {
      "SET GLOBAL rpl_semi_sync_source_wait_point = 'AFTER_SYNC'",
      "SET GLOBAL rpl_semi_sync_source_wait_for_replica_count = " + std::to_string(k),
      "SET GLOBAL rpl_semi_sync_source_timeout = " + std::to_string(semisync_timeout_max_ms),
      "SET GLOBAL rpl_semi_sync_source_wait_no_replica = ON",
      "SET GLOBAL rpl_semi_sync_source_enabled = ON"};
  for (const auto& sql : statements) {
    auto r = conn.exec(sql);
    if (!r) return r.error();
  }
  return {};
}

result<void> semisync_as_replica(connection& conn) {
  for (const char* sql : {"SET GLOBAL rpl_semi_sync_source_enabled = OFF",
                          "SET GLOBAL rpl_semi_sync_replica_enabled = ON"}) {
    auto r = conn.exec(sql);
    if (!r) return r.error();
  }
  return {};
}

}  // namespace br::mysql
