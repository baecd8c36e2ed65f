// The sidecar's local MySQL worker: a detached actor for probe, self-fence and boot unfence.
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <string>

#include "io/mysql/connection.hpp"
#include "messages/interfaces.hpp"

namespace br::sidecar {

struct mysql_worker_options {
  std::string host = "127.0.0.1";
  uint16_t port = 3306;
  std::string user;
  std::string password;  ///< never logged
  /// MYSQL_TLS_CA (spec.tls): set = every session verified against it (chain and `host`).
  std::string tls_ca_file;
  std::chrono::milliseconds probe_timeout{2000};   ///< connect + read deadline of a probe
  std::chrono::milliseconds fence_timeout{20000};  ///< whole fence sequence (FENCE_TIMEOUT)
  /// docs/safety.md rule 7: heartbeats keep the in-database switch quiet; its lease is LEASE_TIMEOUT.
  bool dead_mans_switch = true;
  std::chrono::milliseconds lease{20000};
  /// Group Replication (REPLICATION_MODE): every probe also reads the member's view of its group
  /// (outcome.probe.gr).
  bool group_replication = false;
};

/// The local server's session options: credentials, verified TLS when tls_ca_file is set, connect
/// timeout min(budget, 2 s) and read/write timeouts `budget`, both at least 1 s.
mysql::connect_options connect_opts(const mysql_worker_options& o, std::chrono::milliseconds budget);

/// Spawns the worker detached (it blocks on MySQL; never on a scheduler thread). It keeps one
/// connection for probes and drops it after any connection-level error.
local_mysql_actor spawn_mysql_worker(caf::actor_system& sys, mysql_worker_options opts);

}  // namespace br::sidecar
