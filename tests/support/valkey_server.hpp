// Test helper: a real Valkey 9 server on loopback (valkey-server from the sandbox's Debian sid
// chroot, `tools/mysql-sandbox valkey-install`), standing in for Dragonfly: the same replication
// protocol (INFO replication, REPLICAOF, AUTH) except REPLTAKEOVER. No persistence (no RDB, no
// AOF, its directory wiped at each start: a restart comes back empty, like a Dragonfly pod on its
// emptyDir). The server is a child
// of the test process and dies with it; every wait has a deadline; failures throw.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace br::test {

class child_process;

class valkey_server {
 public:
  /// `password` "" = no requirepass. Port: free_port() unless given.
  explicit valkey_server(std::string password = "", uint16_t port = 0);
  ~valkey_server();
  valkey_server(const valkey_server&) = delete;
  valkey_server& operator=(const valkey_server&) = delete;

  uint16_t port() const { return port_; }
  const std::string& password() const { return password_; }
  void pause();   ///< SIGSTOP: connections hang (a hung server)
  void resume();  ///< SIGCONT
  void kill9();   ///< SIGKILL, no restart
  void start();   ///< (re)start on the same port, empty; waits until it accepts connections
  bool running() const;
  std::string output() const;

 private:
  std::string root_;
  std::string password_;
  uint16_t port_ = 0;
  std::unique_ptr<child_process> proc_;
};

}  // namespace br::test
