// br_haproxy_cfg: prints the standalone router's haproxy.cfg for a group file (used by tools/playground).
// Usage: br_haproxy_cfg GROUP.yaml PRIMARY_PORT REPLICAS_PORT [STATS_PORT] [CHECK_INTERVAL_MS]
//        [READERS_PORT] [CACHE_PORT]   (READERS_PORT: Group Replication groups, required there, else 0;
//        CACHE_PORT: groups with spec.dragonfly.enabled, required there)
//        Sidecars over TLS (issue 26): BR_HAPROXY_CHECK_CA_FILE (verify them against this CA) and
//        BR_HAPROXY_CHECK_CRT (one PEM file, certificate then key: the checks' client certificate).
// Exit 0 with the config on stdout; 2 with every problem (field path first) on stderr.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "config/failover_group.hpp"
#include "config/render/haproxy_cfg.hpp"

namespace {

bool to_int(const char* s, int& out) {
  try {
    std::size_t used = 0;
    out = std::stoi(s, &used);
    return used == std::string{s}.size();
  } catch (...) {
    return false;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 8) {
    std::fprintf(stderr,
                 "usage: br_haproxy_cfg GROUP.yaml PRIMARY_PORT REPLICAS_PORT [STATS_PORT] "
                 "[CHECK_INTERVAL_MS] [READERS_PORT] [CACHE_PORT]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "br_haproxy_cfg: cannot read %s\n", argv[1]);
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = br::config::load_group_yaml(text.str(), br::config::run_mode::standalone);
  if (!parsed.ok()) {
    std::fprintf(stderr, "br_haproxy_cfg: %s\n", br::config::to_string(parsed.errors).c_str());
    return 2;
  }
  br::render::haproxy_options o;
  int interval_ms = static_cast<int>(o.check_interval.count());
  if (!to_int(argv[2], o.primary_port) || !to_int(argv[3], o.replicas_port) ||
      (argc > 4 && !to_int(argv[4], o.stats_port)) || (argc > 5 && !to_int(argv[5], interval_ms)) ||
      (argc > 6 && !to_int(argv[6], o.readers_port)) || (argc > 7 && !to_int(argv[7], o.cache_port))) {
    std::fprintf(stderr, "br_haproxy_cfg: ports and interval must be integers\n");
    return 2;
  }
  o.check_interval = std::chrono::milliseconds{interval_ms};
  if (const char* ca = std::getenv("BR_HAPROXY_CHECK_CA_FILE")) o.check_ca_file = ca;
  if (const char* crt = std::getenv("BR_HAPROXY_CHECK_CRT")) o.check_crt = crt;
  auto r = br::render::render_haproxy_cfg(parsed.group, o);
  if (!r.ok()) {
    std::fprintf(stderr, "br_haproxy_cfg: %s\n", br::config::to_string(r.errors).c_str());
    return 2;
  }
  std::cout << r.text;
  return 0;
}
