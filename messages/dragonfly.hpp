// What the Dragonfly manager reads from a cache server (Dragonfly, or Valkey standing in for it):
// its INFO replication and INFO persistence facts. Parsed by io/redis/info.hpp, judged by
// actors/operator/decide/dragonfly_steer.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace br::dragonfly {

/// The cache user the standalone router's health check logs in as (AUTH user password, then ROLE).
/// It may run ROLE only; the Dragonfly manager switches it on for the cache master and off
/// everywhere else (ACL SETUSER), which is standalone mode's "traffic label": a server whose
/// check user is off is taken out of the router, whatever ROLE it would answer.
inline constexpr const char* traffic_check_user = "bloodraven-traffic";

enum class server_role : uint8_t { unknown, master, replica };

inline std::string_view to_string(server_role r) {
  switch (r) {
    case server_role::master: return "master";
    case server_role::replica: return "replica";
    case server_role::unknown: return "unknown";
  }
  return "unknown";
}

struct replication_info {
  server_role role = server_role::unknown;
  int64_t connected_replicas = -1;   ///< connected_slaves (master); -1 unknown
  int64_t master_repl_offset = -1;   ///< this server's replication offset; -1 unknown
  std::string master_host;           ///< replica: whom it follows
  int64_t master_port = 0;
  bool link_up = false;              ///< replica: master_link_status:up
  int64_t last_io_seconds_ago = -1;  ///< replica: master_last_io_seconds_ago; -1 unknown/never
  bool sync_in_progress = false;     ///< replica: master_sync_in_progress:1
  int64_t replica_offset = -1;       ///< replica: slave_repl_offset (falls back to master_repl_offset)
  bool loading = false;              ///< INFO persistence loading:1
  /// INFO keyspace: keys over every db (0 when the section is there without db lines); -1 when
  /// the section was not read. A master offset says nothing about data on Valkey: a master that
  /// never had a replica keeps master_repl_offset 0 whatever it holds.
  int64_t keys = -1;
};

}  // namespace br::dragonfly
