// Test helper: the environment of a bloodraven-sidecar child process on loopback (
// names), one site against one sandbox mysqld, one peer and one operator.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace br::test {

struct sidecar_env_options {
  std::string site;
  std::string ns = "ns";
  std::string group = "g";
  uint16_t listen_port = 0;
  uint16_t operator_port = 0;
  uint16_t peer_port = 0;
  uint16_t mysql_port = 0;
  std::string lease_timeout = "4s";
  std::string fence_timeout = "5s";
  std::string state_dir;
  std::string keys_dir;  ///< KEYS_DIR (operator.pub, site-<site>.key, site-*.pub)
  bool dead_mans_switch = true;  ///< DEAD_MANS_SWITCH (docs/safety.md rule 7)
};

inline std::map<std::string, std::string> sidecar_env(const sidecar_env_options& o) {
  auto loopback = [](uint16_t port) { return "127.0.0.1:" + std::to_string(port); };
  return {
      {"LISTEN_ADDR", loopback(o.listen_port)},
      {"MY_SITE", o.site},
      {"POD_NAMESPACE", o.ns},
      {"FAILOVER_GROUP", o.group},
      {"BLOODRAVEN_ADDRESS", loopback(o.operator_port)},
      {"PEER_ADDRESSES", loopback(o.peer_port)},
      {"PEER_CHECK_INTERVAL", "1s"},
      {"LEASE_TIMEOUT", o.lease_timeout},
      {"REQUEST_TIMEOUT", "800ms"},
      {"FENCE_TIMEOUT", o.fence_timeout},
      {"MYSQL_HOST", "127.0.0.1"},
      {"MYSQL_PORT", std::to_string(o.mysql_port)},
      {"MYSQL_USER", "bloodraven"},
      {"MYSQL_PASSWORD", "bloodravenpw"},
      {"SIDECAR_STATE_DIR", o.state_dir},
      {"KEYS_DIR", o.keys_dir},
      {"DEAD_MANS_SWITCH", o.dead_mans_switch ? "true" : "false"},
  };
}

}  // namespace br::test
