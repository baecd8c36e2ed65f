// sidecar_api routes: MySQL checks through the worker, views through the cache, pushes to the monitor.
#include "actors/sidecar/runtime/sidecar_api.hpp"

#include <caf/all.hpp>

#include "actors/common/view_json.hpp"
#include "actors/sidecar/archive/binlog_archiver.hpp"
#include "io/http/actor_ask.hpp"

namespace br::sidecar {

namespace {

using ms = std::chrono::milliseconds;
constexpr ms mysql_limit{2000};  // /health and /status answer within 2 s

std::string thread_text(const std::string& s) {
  if (s == "ON") return "Yes";
  if (s == "CONNECTING") return "Connecting";
  return "No";
}

/// Runs a probe through the worker and answers with `make(outcome)`; 503 on a CAF error.
template <class F>
void with_probe(caf::actor_system& sys, const std::shared_ptr<sidecar_handles>& h,
                http::responder reply, F make) {
  auto m = h->mysql();
  if (!m) {
    reply(http::response::text(503, "mysql unreachable"));
    return;
  }
  sys.spawn([=](caf::event_based_actor* self) {
    self->request(m, mysql_limit, probe_atom::value)
        .then([=](const mysql_outcome& o) { reply(make(o)); },
              [=](caf::error&) { reply(http::response::text(503, "mysql unreachable")); });
  });
}

}  // namespace

std::string current_token(const api_options& o, const config::file_reader& read) {
  if (o.token_file.empty()) return o.token;
  auto t = read(o.token_file);
  if (!t) return o.token;
  auto token = config::trim_newline(*t);
  return token.empty() ? o.token : token;
}

bool bearer_ok(const http::request& req, const std::string& token) {
  if (token.empty()) return false;
  auto h = req.header("Authorization");
  if (!h) return false;
  std::string_view v = *h;
  constexpr std::string_view prefix = "Bearer ";
  if (v.size() < prefix.size() || v.substr(0, prefix.size()) != prefix) return false;
  auto given = v.substr(prefix.size());
  // Constant time in the token's length: no early exit on the first differing byte.
  unsigned diff = given.size() == token.size() ? 0u : 1u;
  for (size_t i = 0; i < token.size(); ++i)
    diff |= static_cast<unsigned>(token[i]) ^ static_cast<unsigned>(i < given.size() ? given[i] : 0);
  return diff == 0;
}

nlohmann::json status_json(const mysql_outcome& o, const sidecar_status& st) {
  auto& p = o.probe;
  nlohmann::json j;
  j["role"] = p.read_only ? "replica" : "primary";
  j["read_only"] = p.read_only;
  j["super_read_only"] = p.super_read_only;
  j["gtid_executed"] = p.gtid_executed;
  j["replica_io_running"] = thread_text(p.io_state);
  j["replica_sql_running"] = thread_text(p.sql_state);
  j["seconds_behind_source"] =
      p.seconds_behind < 0 ? nlohmann::json(nullptr) : nlohmann::json(p.seconds_behind);
  j["server_id"] = p.server_id;
  if (!o.value.empty() && o.value.find_first_not_of("0123456789") == std::string::npos)
    j["uptime"] = std::stoll(o.value);
  else
    j["uptime"] = nullptr;
  j["self_fenced"] = st.self_fenced;
  j["epoch"] = st.epoch;
  return j;
}

http::response push_response(const push_ack& a) {
  if (a.ok) {
    nlohmann::json j = {{"ack", true}, {"epoch", a.epoch}, {"fenced", a.fenced},
                        {"mysqlReachable", a.mysql_reachable}};
    return http::response::json(200, j);
  }
  nlohmann::json j = {{"ack", false}, {"epoch", a.epoch}, {"error", a.error}};
  return http::response::json(a.stale ? 409 : 503, j);
}

void install_sidecar_routes(http::router& r, caf::actor_system& sys, api_options opts,
                            std::shared_ptr<sidecar_handles> h) {
  r.get("/health", "health", [&sys, h](const http::request&, http::responder reply) {
    with_probe(sys, h, reply, [](const mysql_outcome& o) {
      return o.ok ? http::response::text(200, "ok") : http::response::text(503, "mysql unreachable");
    });
  });
  r.get("/ready", "ready", [&sys, h](const http::request&, http::responder reply) {
    http::ask(sys, h->monitor(), ms(2000), reply, "fencing_monitor",
              [](const sidecar_status& s) {
                return s.boot_done ? http::response::text(200, "ok")
                                   : http::response::text(503, "boot guard running");
              },
              status_atom::value);
  });
  r.get("/status", "status", [&sys, h](const http::request&, http::responder reply) {
    auto m = h->mysql();
    auto mon = h->monitor();
    auto cache = h->cache();
    if (!m || !mon || !cache) {
      reply(http::response::error(503, "sidecar actors not running"));
      return;
    }
    sys.spawn([=](caf::event_based_actor* self) {
      self->request(m, mysql_limit, probe_atom::value)
          .then(
              [=](const mysql_outcome& o) {
                if (!o.ok) {
                  reply(http::response::error(503, o.error));
                  return;
                }
                self->request(mon, ms(1000), status_atom::value)
                    .then(
                        [=](sidecar_status s) {
                          // The epoch comes from the cache itself: the monitor's copy lags
                          // until its next tick (e.g. right after the boot guard seeded it).
                          self->request(cache, ms(1000), view_atom::value)
                              .then(
                                  [=](const sidecar_view& v) mutable {
                                    if (v.present) s.epoch = v.view.epoch;
                                    reply(http::response::json(200, status_json(o, s)));
                                  },
                                  [=](caf::error& e) {
                                    reply(http::response::error(503, caf::to_string(e)));
                                  });
                        },
                        [=](caf::error& e) { reply(http::response::error(503, caf::to_string(e))); });
              },
              [=](caf::error& e) { reply(http::response::error(503, caf::to_string(e))); });
    });
  });
  r.get("/peer/ping", "peer_ping", [](const http::request&, http::responder reply) {
    reply(http::response::text(200, "pong"));
  });
  r.get("/peer/active-site", "peer_active_site",
        [&sys, h](const http::request&, http::responder reply) {
          http::ask(sys, h->cache(), ms(2000), reply, "view_cache",
                    [](const sidecar_view& v) {
                      if (!v.present) return http::response::text(204, "");
                      http::response res;
                      res.status = 200;
                      res.content_type = "application/json";
                      res.body = view_to_json(v.view);
                      res.headers.emplace_back("Cache-Control", "no-store");
                      return res;
                    },
                    view_atom::value);
        });
  r.get("/primary", "primary", [&sys, h](const http::request&, http::responder reply) {
    with_probe(sys, h, reply, [](const mysql_outcome& o) {
      return o.ok && o.probe.writable() ? http::response::text(200, "primary")
                                        : http::response::text(503, "not primary");
    });
  });
  r.get("/replica", "replica", [&sys, h](const http::request&, http::responder reply) {
    with_probe(sys, h, reply, [](const mysql_outcome& o) {
      return o.ok && o.probe.read_only && o.probe.replicating()
                 ? http::response::text(200, "replica")
                 : http::response::text(503, "not a replicating replica");
    });
  });
  r.get("/archiver/status", "archiver_status",
        [&sys, h, opts](const http::request&, http::responder reply) {
          // Always 200; {enabled:false} when PITR is off.
          if (!opts.archiver_enabled) {
            reply(http::response::json(200, nlohmann::json::parse(archiver_disabled_status())));
            return;
          }
          http::ask(sys, h->archiver(), ms(2000), reply, "binlog_archiver",
                    [](const std::string& body) {
                      return http::response::json(200, nlohmann::json::parse(body));
                    },
                    status_atom::value);
        });
  r.add("PUT", "/view", "view", [&sys, h, opts](const http::request& req, http::responder reply) {
    if (!bearer_ok(req, current_token(opts, config::read_small_file))) {
      auto res = http::response::error(401, "missing or wrong bearer token");
      res.headers.emplace_back("WWW-Authenticate", "Bearer");
      reply(res);
      return;
    }
    auto parsed = parse_pushed_view(req.body);
    if (!parsed.view) {
      reply(http::response::error(400, parsed.error));
      return;
    }
    auto mon = h->monitor();
    if (!mon) {
      reply(http::response::error(503, "fencing monitor not running"));
      return;
    }
    // The fence may take up to FENCE_TIMEOUT; the server's handler timeout must allow it.
    http::ask(sys, mon, opts.push_timeout, reply, "fencing_monitor",
              [](const push_ack& a) { return push_response(a); }, push_view_atom::value,
              *parsed.view);
  });
}

}  // namespace br::sidecar
