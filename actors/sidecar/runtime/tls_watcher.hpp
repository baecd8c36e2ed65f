// tls_watcher (issue 26): certificate rotation without a restart. Every `interval` it stamps the
// files mysqld serves (MYSQL_TLS_WATCH: in Kubernetes the mounted Secret's ca.crt, tls.crt,
// tls.key) and, when tls_reload_rule says so, runs ALTER INSTANCE RELOAD TLS on a session of its
// own (verified like the sidecar's other sessions; connect/read timeouts bound it). A detached
// actor: the blocking call never runs on a scheduler thread. A failed reload is logged and tried
// again on the next tick (at most once per interval). When the CA file changed too, the reload
// session trusts the old and the new CA (trust_file), since mysqld still serves the old
// certificate until it has reloaded.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/typed_actor.hpp>

#include <chrono>
#include <string>
#include <vector>

#include "io/mysql/connection.hpp"
#include "messages/atoms.hpp"

namespace br::sidecar {

struct tls_watcher_options {
  std::vector<std::string> files;  ///< the server's certificate files, as this process sees them
  mysql::connect_options mysql;    ///< the local server (its timeouts bound each reload)
  std::chrono::milliseconds interval{std::chrono::seconds(10)};
  /// A private file for the reload session's CA bundle when the client CA changed (tls_reload_rule
  /// reload_trust: the new CA and the one mysqld's current certificate chains to). "" = the
  /// session trusts mysql.tls_ca_file alone (a CA change then never reloads).
  std::string trust_file;
};

using tls_watcher_actor = caf::typed_actor<caf::reacts_to<tick_atom>>;

tls_watcher_actor spawn_tls_watcher(caf::actor_system& sys, tls_watcher_options opts);

}  // namespace br::sidecar
