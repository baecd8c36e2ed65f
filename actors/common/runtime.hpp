// The process runtime shared by both binaries: actor system, root supervisor, HTTP, signals.
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "actors/common/supervisor.hpp"
#include "config/api_tls.hpp"
#include "io/http/router.hpp"
#include "io/http/server.hpp"

namespace br {

struct runtime_options {
  std::string binary;                    // "bloodraven" | "bloodraven-sidecar"
  std::vector<std::string> listen;       // "[host]:port" per HTTP server ("" entries skipped)
  std::string health_listen;             // "[host]:port" of the liveness listener; "" = none
  std::chrono::milliseconds shutdown_timeout{5000};
  size_t max_body_bytes = 1 << 20;
  std::chrono::milliseconds handler_timeout{5000};
  restart_policy root_policy;
  /// The API listener (listen[0]) over HTTPS with client certificates when on (issue 26); the
  /// others (metrics, liveness) stay plain.
  config::api_tls_settings api_tls;
  /// Further listeners with their own routes and options (the operator's HTTPS status webhook):
  /// started beside the others (address and port from `listen`, metrics in the process
  /// registry), stopped with them; one that cannot start fails the process like the others.
  struct extra_listener {
    std::string listen;
    http::server_options options;
    http::router routes;
  };
  std::vector<extra_listener> extra;
};

/// Builds the root supervisor's children once the actor system exists.
using children_factory = std::function<std::vector<child_spec>(caf::actor_system&)>;
/// Adds binary-specific routes; /healthz, /readyz, /metrics and /debug/actors are always there.
/// The liveness listener (health_listen) is separate and serves only GET /livez: 200 "ok" once
/// the registry actor answers within 2 s (the actor system schedules work), else 503.
using route_installer = std::function<void(http::router&, caf::actor_system&)>;

/// Runs until SIGTERM/SIGINT, then: stops accepting HTTP requests, stops the actor tree in order
/// (reverse start order, each child bounded), and returns the exit code: 0 after a clean stop,
/// 1 when the stop did not finish within shutdown_timeout or the root supervisor failed.
/// Must be called from main() before any other thread exists (it blocks the signals).
int run_process(const runtime_options& opts, const children_factory& children,
                const route_installer& routes);

/// The version string compiled into the binaries ("0.1.0+<git>" when known).
const char* version_string();

}  // namespace br
