// bloodraven-sidecar: the per-MySQL-pod sidecar binary (flags, then the shared process runtime).
#include <cstdio>
#include <cstdlib>

#include "actors/common/runtime.hpp"
#include "actors/sidecar/archive/archive_settings.hpp"
#include "actors/sidecar/runtime/sidecar_app.hpp"
#include "config/process_flags.hpp"
#include "config/sidecar_config.hpp"
#include "io/log/log.hpp"

int main(int argc, char** argv) {
  using namespace br;
  auto defs = config::sidecar_flag_defs();
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
  auto built = config::build_sidecar_config(flags, config::read_small_file);
  if (!built.config) {
    std::fprintf(stderr, "bloodraven-sidecar: %s\n", built.error.c_str());
    return 2;
  }
  const auto& cfg = *built.config;
  if (cfg.pitr.enabled) {  // the archive's storage settings, checked before anything starts
    auto archive = sidecar::archiver_settings(cfg);
    if (!archive.options) {
      std::fprintf(stderr, "bloodraven-sidecar: %s\n", archive.error.c_str());
      return 2;
    }
  }
  log::level lvl;
  log::parse_level(cfg.log_level, lvl);
  log::set_level(lvl);
  for (auto& w : cfg.warnings) log::warn("configuration", {{"warning", w}});
  std::string key_error;
  auto keys = sidecar::load_keys(cfg, key_error);
  if (!key_error.empty()) {
    std::fprintf(stderr, "bloodraven-sidecar: %s\n", key_error.c_str());
    return 2;
  }

  runtime_options opts;
  opts.binary = "bloodraven-sidecar";
  opts.listen = {cfg.listen};
  opts.health_listen = cfg.health_listen;
  opts.api_tls = cfg.api_tls;
  opts.shutdown_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(cfg.shutdown_timeout);
  opts.handler_timeout = sidecar::handler_timeout_for(cfg);
  opts.max_body_bytes = 64 * 1024;
  auto handles = std::make_shared<sidecar::sidecar_handles>();
  return run_process(
      opts,
      [&cfg, keys, handles](caf::actor_system&) {
        return sidecar::sidecar_children(cfg, keys, handles);
      },
      [&cfg, keys, handles](http::router& r, caf::actor_system& sys) {
        sidecar::install_routes(r, sys, cfg, keys, handles);
      });
}
