// Test helper, a SIMULATION: cache servers that speak the part of Dragonfly's protocol the
// manager uses, including REPLTAKEOVER, which real Valkey (the stand-in everywhere else) lacks.
// Modelled on Dragonfly's documented semantics: REPLTAKEOVER <timeout> runs on a replica that is in
// stable sync; its master stops serving regular clients (admin commands still run), the replica
// catches up with every write, then becomes the master; if it cannot within the timeout, the
// takeover fails and the master serves again. The old master then shuts itself down (Dragonfly
// ends a master that handed over); `old_master_stays` keeps it running as a replica instead.
// Replication is modelled, not real: a write on a master reaches its linked replicas at once
// unless a replica's replication is paused. Each node listens on 127.0.0.1 (a free port) and is
// served by its own thread; inputs are bounded (1 MiB per client buffer). Commands: AUTH, PING,
// QUIT, INFO [replication|persistence], ROLE, REPLICAOF host port|NO ONE, REPLTAKEOVER, COMMAND
// INFO, ACL SETUSER, CLIENT KILL, SET, GET; anything else is an error reply.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace br::test {

class dragonfly_sim {
 public:
  explicit dragonfly_sim(std::string password = "", bool old_master_stays = false);
  ~dragonfly_sim();
  dragonfly_sim(const dragonfly_sim&) = delete;
  dragonfly_sim& operator=(const dragonfly_sim&) = delete;

  /// A new node (an empty master); returns its index.
  int add_node();
  uint16_t port(int node) const;
  /// Stops applying its master's writes (its offset lags) / resumes (it catches up).
  void pause_replication(int node, bool paused);
  /// Ends the node (listener and connections closed), as a crash.
  void kill(int node);
  /// Starts a killed or shut-down node again on the same port, empty (a pod on a fresh emptyDir).
  void restart(int node);

  std::string role(int node) const;  ///< "master" | "replica" | "down"
  int master_of(int node) const;      ///< -1 for a master or a node that is down
  int64_t offset(int node) const;
  std::optional<std::string> get(int node, const std::string& key) const;
  bool traffic_user_on(int node) const;  ///< ACL SETUSER bloodraven-traffic ... on | off
  int takeovers() const;                 ///< successful REPLTAKEOVERs

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

}  // namespace br::test
