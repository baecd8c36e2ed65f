// Process runtime: signal handling, HTTP servers, root supervisor, ordered shutdown with a deadline.
#include "actors/common/runtime.hpp"

#include <caf/all.hpp>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <memory>
#include <thread>

#include <pthread.h>
#include <unistd.h>

#include "actors/common/registry.hpp"
#include "config/process_flags.hpp"
#include "io/http/actor_ask.hpp"
#include "io/http/liveness.hpp"
#include "io/http/server.hpp"
#include "io/log/log.hpp"
#include "io/metrics/metrics.hpp"
#include "messages/type_ids.hpp"

#ifndef BR_VERSION
#define BR_VERSION "0.0.0-dev"
#endif

namespace br {

const char* version_string() { return BR_VERSION; }

namespace {

void add_common_routes(http::router& r, caf::actor_system& sys, registry_actor registry,
                       std::shared_ptr<std::atomic<bool>> ready) {
  r.get("/healthz", "healthz", [](const http::request&, http::responder reply) {
    reply(http::response::text(200, "ok"));
  });
  r.get("/readyz", "readyz", [ready](const http::request&, http::responder reply) {
    if (ready->load())
      reply(http::response::text(200, "ok"));
    else
      reply(http::response::text(503, "not ready"));
  });
  r.get("/metrics", "metrics", [](const http::request&, http::responder reply) {
    reply(http::response::text(200, metrics::render_text(),
                               "text/plain; version=0.0.4; charset=utf-8"));
  });
  r.get("/debug/actors", "debug_actors",
        [&sys, registry](const http::request&, http::responder reply) {
          http::ask(sys, registry, std::chrono::milliseconds(2000), reply, "registry",
                    [](const std::string& tree) {
                      http::response res;
                      res.status = 200;
                      res.content_type = "application/json";
                      res.body = tree;
                      res.headers.emplace_back("Cache-Control", "no-store");
                      return res;
                    },
                    tree_atom::value);
        });
}

/// Starts the listener for `listen` ("[host]:port", empty host = all); null after logging when
/// it cannot bind.
std::unique_ptr<http::server> start_server(http::server_options so, const std::string& listen,
                                           http::router routes) {
  uint16_t port = 0;
  config::split_host_port(listen, so.address, port);
  if (so.address.empty()) so.address = "0.0.0.0";
  so.port = port;
  so.registry = metrics::process_registry();
  auto srv = std::make_unique<http::server>(std::move(so), std::move(routes));
  try {
    srv->start();
  } catch (const std::exception& e) {
    log::error("cannot listen", {{"address", listen}, {"error", e.what()}});
    return nullptr;
  }
  return srv;
}

/// GET /livez on its own listener: a bounded ask to the registry proves the scheduler runs
/// (2 s: under the listener's 2.5 s handler timeout and the probes' 3 s).
http::router livez_routes(caf::actor_system& sys, registry_actor registry) {
  return http::liveness_routes([&sys, registry](http::responder reply) {
    http::ask(sys, registry, std::chrono::milliseconds(2000), reply, "registry",
              [](const std::string&) { return http::response::text(200, "ok"); },
              tree_atom::value);
  });
}

}  // namespace

int run_process(const runtime_options& opts, const children_factory& children,
                const route_installer& routes) {
  // Block the stop signals in every thread; this thread waits for them with sigwait.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  metrics::init_process_metrics(opts.binary, version_string());
  caf::actor_system_config cfg;
  add_message_types(cfg);
  cfg.set("scheduler.max-threads", 2);
  // Idle cost: an idle CAF worker polls (100 busy attempts, then 500 x 50 us, then a condition
  // variable with a 10 ms timeout), about 0.8% of a core for two idle threads. Jobs enqueued from
  // outside (timers, HTTP, detached workers) notify a sleeping worker at once, so a longer relaxed
  // sleep only delays work stealing between two workers, never a message to an idle process.
  cfg.set("work-stealing.aggressive-poll-attempts", 20);
  cfg.set("work-stealing.moderate-poll-attempts", 100);
  cfg.set("work-stealing.relaxed-sleep-duration", caf::timespan{std::chrono::milliseconds(100)});
  caf::actor_system sys{cfg};
  auto registry = spawn_registry(sys);
  auto ready = std::make_shared<std::atomic<bool>>(false);

  http::router router;
  add_common_routes(router, sys, registry, ready);
  if (routes) routes(router, sys);

  std::vector<std::unique_ptr<http::server>> servers;
  for (size_t i = 0; i < opts.listen.size(); ++i) {
    if (opts.listen[i].empty()) continue;
    http::server_options so;
    so.name = i == 0 ? "main" : "aux" + std::to_string(i);
    so.max_body_bytes = opts.max_body_bytes;
    so.handler_timeout = opts.handler_timeout;
    if (i == 0 && opts.api_tls.on()) {
      so.tls_cert_file = opts.api_tls.cert_file;
      so.tls_key_file = opts.api_tls.key_file;
      so.tls_client_ca_file = opts.api_tls.ca_file;
      so.tls_require_client_cert = opts.api_tls.require_client_cert;
    }
    auto srv = start_server(std::move(so), opts.listen[i], router);
    if (!srv) return 1;
    servers.push_back(std::move(srv));
  }
  if (!opts.health_listen.empty()) {
    auto srv = start_server(http::liveness_options({}, 0), opts.health_listen,
                            livez_routes(sys, registry));
    if (!srv) return 1;
    servers.push_back(std::move(srv));
  }

  for (const auto& e : opts.extra) {
    auto srv = start_server(e.options, e.listen, e.routes);
    if (!srv) return 1;
    servers.push_back(std::move(srv));
  }

  auto root = spawn_supervisor(sys, "root", opts.root_policy, children ? children(sys) : std::vector<child_spec>{});
  caf::scoped_actor self{sys};
  self->monitor(root);
  ready->store(true);
  log::info("ready", {{"binary", opts.binary}, {"version", version_string()}, {"pid", getpid()}});

  // Wait for a stop signal, or for the root supervisor to fail on its own.
  std::atomic<int> exit_code{0};
  std::atomic<bool> root_down{false};
  std::thread root_watch([&] {
    self->receive([&](caf::down_msg& dm) {
      root_down = true;
      if (dm.reason) {
        log::error("root supervisor failed", {{"error", caf::to_string(dm.reason)}});
        exit_code = 1;
        kill(getpid(), SIGTERM);  // wake the sigwait below
      }
    });
  });
  int sig = 0;
  sigwait(&stop_signals, &sig);
  log::info("shutdown requested", {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}});
  auto started = std::chrono::steady_clock::now();

  // Hard deadline: whatever hangs, the process is gone by shutdown_timeout.
  std::thread([timeout = opts.shutdown_timeout] {
    std::this_thread::sleep_for(timeout);
    log::error("shutdown deadline exceeded; exiting", {});
    _exit(1);
  }).detach();

  ready->store(false);
  for (auto& s : servers) s->stop();  // stop accepting; in-flight requests get a short grace

  if (!root_down.load()) {
    caf::scoped_actor stopper{sys};
    auto budget = opts.shutdown_timeout - std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::steady_clock::now() - started) -
                  std::chrono::milliseconds(500);
    if (budget < std::chrono::milliseconds(100)) budget = std::chrono::milliseconds(100);
    stopper->request(root, budget, stop_atom::value)
        .receive([](bool) {},
                 [&](caf::error& e) {
                   log::error("actors did not stop cleanly", {{"error", caf::to_string(e)}});
                   exit_code = 1;
                 });
  }
  root_watch.join();
  self->send_exit(registry, caf::exit_reason::user_shutdown);
  sys.await_actors_before_shutdown(false);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  started)
                .count();
  log::info("stopped", {{"binary", opts.binary}, {"exitCode", exit_code.load()}, {"stopMs", ms}});
  return exit_code.load();
}

}  // namespace br
