// bloodraven: the operator binary (flags, then the shared process runtime).
#include <cstdio>
#include <cstdlib>

#include "actors/common/runtime.hpp"
#include "config/process_flags.hpp"
#include "io/log/log.hpp"

namespace {

std::vector<br::config::flag_def> operator_flags() {
  using namespace br::config;
  return {
      {"listen", "BLOODRAVEN_LISTEN", ":8082",
       "status API, health, metrics and actor inspection address", false, check_listen_address},
      {"metrics-listen", "BLOODRAVEN_METRICS_LISTEN", ":8080",
       "second address serving the same endpoints for Prometheus (empty: off)", false,
       [](const std::string& v) { return v.empty() ? std::string{} : check_listen_address(v); }},
      {"log-level", "BLOODRAVEN_LOG_LEVEL", "info", "debug, info, warn or error", false,
       check_log_level},
      {"standalone", "BLOODRAVEN_STANDALONE", "",
       "run without Kubernetes, managing the group described in this YAML file", false, {}},
      {"namespace", "POD_NAMESPACE", "default", "namespace the operator runs in", false, {}},
      {"leader-elect", "BLOODRAVEN_LEADER_ELECT", "true", "use a Lease for leader election",
       false, check_bool},
      {"shutdown-timeout", "BLOODRAVEN_SHUTDOWN_TIMEOUT", "5s",
       "deadline for a clean stop after SIGTERM", false, check_duration},
      {"http-max-body", "BLOODRAVEN_HTTP_MAX_BODY", "1Mi", "largest accepted request body", false,
       check_positive_size},
      {"http-handler-timeout", "BLOODRAVEN_HTTP_HANDLER_TIMEOUT", "5s",
       "answer 503 when an endpoint has no answer within this time", false, check_duration},
  };
}

}  // namespace

int main(int argc, char** argv) {
  using namespace br;
  auto defs = operator_flags();
  auto flags = config::parse_flags(defs, argc, argv, [](const char* n) { return std::getenv(n); });
  switch (flags.what) {
    case config::parsed_flags::action::help:
      std::fputs(config::usage("bloodraven",
                               "Bloodraven operator: keeps MySQL async-replication failover groups "
                               "alive across sites.",
                               defs)
                     .c_str(),
                 stdout);
      return 0;
    case config::parsed_flags::action::version:
      std::printf("bloodraven %s\n", version_string());
      return 0;
    case config::parsed_flags::action::fail:
      std::fprintf(stderr, "bloodraven: %s\n", flags.error.c_str());
      return 2;
    case config::parsed_flags::action::run:
      break;
  }
  log::level lvl;
  log::parse_level(flags.values["log-level"], lvl);
  log::set_level(lvl);

  runtime_options opts;
  opts.binary = "bloodraven";
  opts.listen = {flags.values["listen"], flags.values["metrics-listen"]};
  opts.shutdown_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      config::to_duration(flags.values["shutdown-timeout"]));
  opts.max_body_bytes = config::to_size(flags.values["http-max-body"]);
  opts.handler_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      config::to_duration(flags.values["http-handler-timeout"]));
  return run_process(opts, {}, {});
}
