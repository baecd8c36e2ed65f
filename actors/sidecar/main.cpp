// bloodraven-sidecar: the per-MySQL-pod sidecar binary (flags, then the shared process runtime).
#include <cstdio>
#include <cstdlib>

#include "actors/common/runtime.hpp"
#include "config/process_flags.hpp"
#include "io/log/log.hpp"

namespace {

std::vector<br::config::flag_def> sidecar_flags() {
  using namespace br::config;
  return {
      {"listen", "LISTEN_ADDR", ":8080", "HTTP address of the sidecar API", false,
       check_listen_address},
      {"log-level", "LOG_LEVEL", "info", "debug, info, warn or error", false, check_log_level},
      {"site", "MY_SITE", "", "name of the site this sidecar runs in", false, {}},
      {"namespace", "POD_NAMESPACE", "", "namespace of the failover group", false, {}},
      {"group", "FAILOVER_GROUP", "", "name of the failover group", false, {}},
      {"operator-address", "BLOODRAVEN_ADDRESS", "", "operator status API host:port", false,
       [](const std::string& v) { return check_host_port_list(v); }},
      {"peers", "PEER_ADDRESSES", "", "comma-separated peer sidecar host:port list", false,
       check_host_port_list},
      {"lease-timeout", "LEASE_TIMEOUT", "20s",
       "fence when neither the operator nor an anchoring peer answered for this long", false,
       check_duration},
      {"peer-check-interval", "PEER_CHECK_INTERVAL", "5s", "fencing tick", false, check_duration},
      {"mysql-creds-dir", "MYSQL_CREDS_DIR", "", "directory with username and password files",
       false, {}},
      {"shutdown-timeout", "SIDECAR_SHUTDOWN_TIMEOUT", "5s",
       "deadline for a clean stop after SIGTERM", false, check_duration},
  };
}

}  // namespace

int main(int argc, char** argv) {
  using namespace br;
  auto defs = sidecar_flags();
  auto flags = config::parse_flags(defs, argc, argv, [](const char* n) { return std::getenv(n); });
  switch (flags.what) {
    case config::parsed_flags::action::help:
      std::fputs(config::usage("bloodraven-sidecar",
                               "Bloodraven sidecar: self-fencing, peer probing and binlog "
                               "archiving next to one MySQL server.",
                               defs)
                     .c_str(),
                 stdout);
      return 0;
    case config::parsed_flags::action::version:
      std::printf("bloodraven-sidecar %s\n", version_string());
      return 0;
    case config::parsed_flags::action::fail:
      std::fprintf(stderr, "bloodraven-sidecar: %s\n", flags.error.c_str());
      return 2;
    case config::parsed_flags::action::run:
      break;
  }
  log::level lvl;
  log::parse_level(flags.values["log-level"], lvl);
  log::set_level(lvl);

  runtime_options opts;
  opts.binary = "bloodraven-sidecar";
  opts.listen = {flags.values["listen"]};
  opts.shutdown_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      config::to_duration(flags.values["shutdown-timeout"]));
  return run_process(opts, {}, {});
}
