// sidecar_api routes: MySQL checks through the worker, views through the cache, pushes to the monitor.
#include "actors/sidecar/runtime/sidecar_api.hpp"

#include "actors/common/peer_identity.hpp"

#include <caf/all.hpp>

#include "actors/common/view_json.hpp"
#include "actors/sidecar/archive/binlog_archiver.hpp"
#include "actors/sidecar/runtime/gr_health.hpp"
#include "actors/sidecar/runtime/shared_probe.hpp"
#include "io/codec/json_limits.hpp"
#include "io/http/actor_ask.hpp"

namespace br::sidecar {

namespace {

using ms = std::chrono::milliseconds;
constexpr json_limits push_limits{4096, 2};  // a pushed view is one flat object

std::string thread_text(const std::string& s) {
  if (s == "ON") return "Yes";
  if (s == "CONNECTING") return "Connecting";
  return "No";
}

/// Answers with `make(outcome)` from the shared probe; 503 when there is none.
template <class F>
void with_probe(const std::shared_ptr<shared_probe>& probe, http::responder reply, F make) {
  probe->get([reply, make](std::optional<mysql_outcome> o) {
    reply(o ? make(*o) : http::response::text(503, "mysql unreachable"));
  });
}

}  // namespace

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

http::response push_response(const authority& auth, const std::string& nonce, const push_ack& a) {
  http::response res;
  res.status = a.ok ? 200 : (a.stale ? 409 : 503);
  res.content_type = "application/json";
  res.body = ack_body(auth, nonce, a);
  if (auto sig = sign(auth, auth::purpose::ack, res.body); !sig.empty())
    res.headers.emplace_back(auth::signature_header, sig);
  return res;
}

push_check check_push(const authority& a, const http::request& req) {
  push_check out;
  if (auto shape = json_shape_problem(req.body, push_limits); !shape.empty()) {
    out.refusal = http::response::error(req.body.size() > push_limits.max_bytes ? 413 : 400, shape);
    return out;
  }
  auto parsed = parse_pushed_view(req.body);
  if (!parsed.view) {
    out.refusal = http::response::error(400, parsed.error);
    return out;
  }
  if (!auth::nonce_well_formed(parsed.nonce)) {
    out.refusal = http::response::error(400, "field \"nonce\": 16 to 64 lower-case hex digits");
    return out;
  }
  if (!a.keys || !auth::view_verifies(a.keys->operator_keys, a.group, *parsed.view)) {
    out.refusal = http::response::error(
        403, "field \"signature\": not an accepted operator key's signature of this view for group " +
                 a.group);
    return out;
  }
  out.view = *parsed.view;
  out.nonce = parsed.nonce;
  return out;
}

void install_sidecar_routes(http::router& r, caf::actor_system& sys, api_options opts,
                            std::shared_ptr<sidecar_handles> h) {
  auto probe = std::make_shared<shared_probe>(sys, h, shared_probe::options{});
  r.get("/health", "health", [probe](const http::request&, http::responder reply) {
    with_probe(probe, reply, [](const mysql_outcome& o) {
      return o.ok ? http::response::text(200, "ok") : http::response::text(503, "mysql unreachable");
    });
  });
  if (opts.group_replication) {
    // The member's own state (gr_health.hpp): ready = ONLINE in a quorate view. The operator's
    // cross-validated view decides status and Events; these only steer traffic to this member.
    const gr_expectation want{opts.gr_members, opts.gr_group_name};
    auto gr_check = [probe, want](const char* path, auto wanted) {
      return [probe, path, wanted, want](const http::request&, http::responder reply) {
        with_probe(probe, reply, [path, wanted, want](const mysql_outcome& o) {
          if (!o.ok) return http::response::text(503, "mysql unreachable");
          auto h = gr_health_of(o.probe.gr, want);
          return wanted(h.role) ? http::response::text(200, h.reason)
                                : http::response::text(503, std::string{path} + ": " + h.reason);
        });
      };
    };
    auto any = [](gr_local_role r) { return r != gr_local_role::none; };
    r.get("/ready", "ready", gr_check("ready", any));
    r.get("/gr/reader", "gr_reader", gr_check("reader", any));
    auto primary = [](gr_local_role r) { return r == gr_local_role::primary; };
    auto secondary = [](gr_local_role r) { return r == gr_local_role::secondary; };
    r.get("/gr/primary", "gr_primary", gr_check("primary", primary));
    r.get("/gr/replica", "gr_replica", gr_check("replica", secondary));
    r.get("/primary", "primary", gr_check("primary", primary));
    r.get("/replica", "replica", gr_check("replica", secondary));
    r.get("/status", "status", [probe, want](const http::request&, http::responder reply) {
      with_probe(probe, reply, [want](const mysql_outcome& o) {
        if (!o.ok) return http::response::text(503, "mysql unreachable");
        auto h = gr_health_of(o.probe.gr, want);
        nlohmann::json j = {{"mode", "groupReplication"},
                            {"read_only", o.probe.read_only},
                            {"member_id", o.probe.gr.member_id},
                            {"member_state", o.probe.gr.self_state},
                            {"view_id", o.probe.gr.view_id},
                            {"serving", h.role == gr_local_role::primary     ? "primary"
                                        : h.role == gr_local_role::secondary ? "replica"
                                                                             : "none"},
                            {"reason", h.reason}};
        return http::response::json(200, j);
      });
    });
  } else {
  r.get("/ready", "ready", [&sys, h](const http::request&, http::responder reply) {
    http::ask(sys, h->monitor(), ms(2000), reply, "fencing_monitor",
              [](const sidecar_status& s) {
                return s.boot_done ? http::response::text(200, "ok")
                                   : http::response::text(503, "boot guard running");
              },
              status_atom::value);
  });
  r.get("/status", "status", [&sys, h, probe](const http::request&, http::responder reply) {
    auto mon = h->monitor();
    auto cache = h->cache();
    if (!mon || !cache) {
      reply(http::response::error(503, "sidecar actors not running"));
      return;
    }
    probe->get([&sys, reply, mon, cache](std::optional<mysql_outcome> got) {
      if (!got) {
        reply(http::response::error(503, "mysql unreachable"));
        return;
      }
      auto o = *got;
      sys.spawn([=](caf::event_based_actor* self) {
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
      });
    });
  });
  }  // async: /ready and /status from the fencing monitor
  r.get("/peer/ping", "peer_ping", [](const http::request&, http::responder reply) {
    reply(http::response::text(200, "pong"));
  });
  auto auth = opts.auth;
  const auth::peer_expectation peer_callers{true, true, opts.pod_namespace, opts.group, ""};
  const auth::peer_expectation operator_only{true, false, opts.pod_namespace, opts.group, ""};
  const bool certs = opts.client_certificates;
  r.get("/peer/active-site", "peer_active_site",
        [&sys, h, auth, certs, peer_callers](const http::request& req, http::responder reply) {
          if (auto why = auth::check_peer(req.peer, certs, peer_callers); !why.empty()) {
            reply(http::response::error(403, why));
            return;
          }
          auto nonce = std::string(req.query_or("nonce"));
          if (!auth::nonce_well_formed(nonce)) {
            reply(http::response::error(400, "query parameter nonce: 16 to 64 lower-case hex digits required"));
            return;
          }
          http::ask(sys, h->cache(), ms(2000), reply, "view_cache",
                    [auth, nonce](const sidecar_view& v) {
                      if (!v.present) return http::response::text(204, "");
                      http::response res;
                      res.status = 200;
                      res.content_type = "application/json";
                      // The operator's signed view, relayed as is; the answer (this site, the
                      // caller's nonce) signed with this site's key: proof it is fresh.
                      res.body = peer_answer_body(auth, nonce, v.view);
                      if (auto sig = sign(auth, auth::purpose::peer_answer, res.body); !sig.empty())
                        res.headers.emplace_back(auth::signature_header, sig);
                      res.headers.emplace_back("Cache-Control", "no-store");
                      return res;
                    },
                    view_atom::value);
        });
  // Group Replication: /primary and /replica are the member's own state too (a RECOVERING member
  // is writable during a clone and must never look like a primary).
  if (!opts.group_replication) {
  r.get("/primary", "primary", [probe](const http::request&, http::responder reply) {
    with_probe(probe, reply, [](const mysql_outcome& o) {
      return o.ok && o.probe.writable() ? http::response::text(200, "primary")
                                        : http::response::text(503, "not primary");
    });
  });
  r.get("/replica", "replica", [probe](const http::request&, http::responder reply) {
    with_probe(probe, reply, [](const mysql_outcome& o) {
      return o.ok && o.probe.read_only && o.probe.replicating()
                 ? http::response::text(200, "replica")
                 : http::response::text(503, "not a replicating replica");
    });
  });
  }
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
  r.add("PUT", "/view", "view", [&sys, h, opts, certs, operator_only](const http::request& req,
                                                                       http::responder reply) {
    if (auto why = auth::check_peer(req.peer, certs, operator_only); !why.empty()) {
      reply(http::response::error(403, why));
      return;
    }
    auto c = check_push(opts.auth, req);
    if (c.refusal) {
      reply(*c.refusal);
      return;
    }
    auto mon = h->monitor();
    if (!mon) {
      reply(http::response::error(503, "fencing monitor not running"));
      return;
    }
    // The fence may take up to FENCE_TIMEOUT; the server's handler timeout must allow it.
    auto auth = opts.auth;
    auto nonce = c.nonce;
    http::ask(sys, mon, opts.push_timeout, reply, "fencing_monitor",
              [auth, nonce](const push_ack& a) { return push_response(auth, nonce, a); },
              push_view_atom::value, c.view);
  });
}

}  // namespace br::sidecar
