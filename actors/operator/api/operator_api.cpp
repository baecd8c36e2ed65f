// The operator's HTTP API handlers: each asks the group's current coordinator without blocking.
#include "actors/operator/api/operator_api.hpp"

#include "actors/common/peer_identity.hpp"
#include "config/group_status.hpp"

#include <caf/event_based_actor.hpp>

#include <atomic>
#include <cstdint>

#include "actors/operator/api/admin_request.hpp"
#include "actors/operator/api/gr_doorbell.hpp"
#include "actors/operator/decide/manual_fence.hpp"
#include "actors/operator/decide/group_step.hpp"
#include "actors/operator/api/dashboard.hpp"
#include "actors/operator/api/pitr_status.hpp"
#include "actors/operator/api/status_shapes.hpp"
#include "actors/common/child_lookup.hpp"
#include "messages/atoms.hpp"
#include "messages/interfaces.hpp"
#include "actors/common/wall_clock.hpp"
#include "io/codec/json_limits.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

std::string key_of(const std::string& ns, const std::string& group) { return ns + "/" + group; }

using json_result = std::function<void(bool ok, nlohmann::json body)>;

/// Asks the group supervisor for its current coordinator, then the coordinator for `Atom`.
/// The coordinator handle changes when it restarts, so it is looked up on every request.
template <class Atom, class OnAnswer>
void ask_coordinator(caf::actor_system& sys, const caf::actor& supervisor,
                     std::chrono::milliseconds timeout, OnAnswer on_answer,
                     std::function<void(std::string)> on_error) {
  if (!supervisor) {
    on_error("group supervisor not running");
    return;
  }
  sys.spawn([=](caf::event_based_actor* self) {
    ask_child<coordinator_actor>(
        self, supervisor, "coordinator", timeout,
        [=](coordinator_actor co) {
          self->request(co, timeout, Atom::value)
              .then(on_answer, [=](caf::error& e) { on_error(caf::to_string(e)); });
        },
        [=](caf::error& e) { on_error(caf::to_string(e)); });
  });
}

/// Validates a sidecar report; "" when fine, else what is wrong.
std::string check_report(const nlohmann::json& j) {
  if (!j.is_object()) return "body must be a JSON object";
  for (const char* f : {"site", "namespace", "group"})
    if (!j.contains(f) || !j[f].is_string() || j[f].get<std::string>().empty())
      return std::string(f) + " must be a non-empty string";
  if (!j.contains("epochSeen") || !j["epochSeen"].is_number_unsigned())
    return "epochSeen must be a non-negative integer";
  for (const char* f : {"fenced", "selfFenced", "mysqlReachable"})
    if (!j.contains(f) || !j[f].is_boolean()) return std::string(f) + " must be a boolean";
  if (!j.contains("sentAtMs") || !j["sentAtMs"].is_number_unsigned() ||
      j["sentAtMs"].get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return "sentAtMs must be a non-negative integer below 2^63";
  if (j.contains("archiver")) return check_archiver_report(j["archiver"]);  // optional (PITR)
  return {};
}

}  // namespace

http::response handle_report(group_table& groups, const http::request& req,
                             report_accepted* accepted, bool client_certificates) {
  using http::response;
  // Shape first, on the raw bytes: nothing deeper or larger reaches the parser (a deeply nested
  // body used to overflow the stack in a recursive copy).
  if (auto shape = json_shape_problem(req.body, report_limits); !shape.empty())
    return response::error(req.body.size() > report_limits.max_bytes ? 413 : 400, shape);
  auto j = nlohmann::json::parse(req.body, nullptr, false);
  if (j.is_discarded()) return response::error(400, "malformed JSON");
  bool doorbell = false;
  if (j.is_object() && j.contains("kind")) {
    if (!j["kind"].is_string() || j["kind"].get<std::string>() != gr_observed_kind)
      return response::error(400, std::string("kind: must be \"") + gr_observed_kind +
                                      "\" or absent");
    doorbell = true;
  }
  auto problem = doorbell ? check_gr_observed_report(j) : check_report(j);
  if (!problem.empty()) return response::error(400, problem);
  auto ns = j["namespace"].get<std::string>();
  auto name = j["group"].get<std::string>();
  auto site = j["site"].get<std::string>();
  group_table::entry e;
  if (!groups.find(ns, name, e)) return response::error(404, "group " + key_of(ns, name) + " not found");
  bool known = false;
  for (const auto& s : e.sites) known = known || s == site;
  if (!known) return response::error(400, "site: \"" + site + "\" is not a site of group " + key_of(ns, name));
  if (auto why = auth::check_peer(req.peer, client_certificates, {false, true, ns, name, site}); !why.empty())
    return response::error(403, why);
  auto sig = req.header(auth::signature_header);
  if (!e.keys || !sig ||
      !auth::body_verifies(e.keys->keys_of_site(site), auth::purpose::report,
                           auth::group_key(ns, name), req.body, *sig))
    return response::error(401, "report not signed by site " + site + "'s key");
  if (doorbell) {
    // Only a Group Replication group is woken by its members (review finding L1: a wake of an
    // async group's pollers would feed its failure debounce extra probes).
    if (!e.group_replication)
      return response::error(400, "kind: gr-observed is for Group Replication groups; " +
                                      key_of(ns, name) + " is an async group");
    if (!groups.accept_doorbell(key_of(ns, name), site, j["sentAtMs"].get<int64_t>()))
      return response::error(409, "sentAtMs: not newer than the last gr-observed report of site " +
                                      site);
    const auto& g = j["gr"];
    log::info("group replication doorbell: polling the group now",
              {{"namespace", ns}, {"group", name}, {"site", site},
               {"reachable", g["reachable"]}, {"selfState", g.value("selfState", "")},
               {"viewId", g.value("viewId", "")}});
    if (accepted) *accepted = {ns, name, site, true};
    return response::json(200, {{"ok", true}, {"wake", true}});
  }
  nlohmann::json rec = {{"epochSeen", j["epochSeen"]},
                        {"fenced", j["fenced"]},
                        {"selfFenced", j["selfFenced"]},
                        {"mysqlReachable", j["mysqlReachable"]}};
  if (j.contains("archiver")) rec["archiver"] = j["archiver"];
  if (!groups.record_report(key_of(ns, name), site, j["sentAtMs"].get<int64_t>(), std::move(rec)))
    return response::error(409, "sentAtMs: not newer than the last report of site " + site);
  return response::json(200, {{"ok", true}});
}

child_spec group_table::track(const std::string& namespace_name, const std::string& group,
                              child_spec c, std::shared_ptr<const auth::key_ring> keys,
                              std::vector<std::string> sites, bool group_replication) {
  auto inner = c.start;
  auto key = key_of(namespace_name, group);
  {
    std::lock_guard<std::mutex> lk(mx_);
    groups_[key] =
        entry{namespace_name, group, {}, std::move(keys), std::move(sites), group_replication};
    // Reports only for the sites the group has now (a site removed from the spec leaves).
    auto& have = reports_[key];
    for (auto it = have.begin(); it != have.end();) {
      bool known = false;
      for (const auto& s : groups_[key].sites) known = known || s == it->first;
      it = known ? std::next(it) : have.erase(it);
    }
  }
  c.start = [this, inner, key](caf::local_actor* sup, const std::string& p) -> caf::actor {
    auto h = inner(sup, p);
    std::lock_guard<std::mutex> lk(mx_);
    groups_[key].supervisor = h;
    return h;
  };
  return c;
}

void group_table::drop_handles() {
  std::lock_guard<std::mutex> lk(mx_);
  for (auto& [k, e] : groups_) e.supervisor = nullptr;
}

std::vector<group_table::entry> group_table::groups() const {
  std::lock_guard<std::mutex> lk(mx_);
  std::vector<entry> out;
  for (const auto& [k, e] : groups_) out.push_back(e);
  return out;
}

bool group_table::find(const std::string& namespace_name, const std::string& group,
                       entry& out) const {
  std::lock_guard<std::mutex> lk(mx_);
  auto it = groups_.find(key_of(namespace_name, group));
  if (it == groups_.end()) return false;
  out = it->second;
  return true;
}

bool group_table::record_report(const std::string& key, const std::string& site,
                                int64_t sent_at_ms, nlohmann::json report) {
  std::lock_guard<std::mutex> lk(mx_);
  auto& last = report_sent_[key][site];
  if (sent_at_ms <= last) return false;
  last = sent_at_ms;
  reports_[key][site] = std::move(report);
  return true;
}

bool group_table::accept_doorbell(const std::string& key, const std::string& site,
                                  int64_t sent_at_ms) {
  std::lock_guard<std::mutex> lk(mx_);
  auto& last = doorbell_sent_[key][site];
  if (sent_at_ms <= last) return false;
  last = sent_at_ms;
  return true;
}

bool group_table::accept_admin(const std::string& key, int64_t sent_at_ms) {
  std::lock_guard<std::mutex> lk(mx_);
  auto& last = admin_sent_[key];
  if (sent_at_ms <= last) return false;
  last = sent_at_ms;
  return true;
}

std::map<std::string, nlohmann::json> group_table::reports(const std::string& key) const {
  std::lock_guard<std::mutex> lk(mx_);
  auto it = reports_.find(key);
  return it == reports_.end() ? std::map<std::string, nlohmann::json>{} : it->second;
}

void install_operator_routes(http::router& r, caf::actor_system& sys, operator_api_options o) {
  using http::response;
  auto groups = o.groups;
  auto timeout = o.ask_timeout;
  auto* sysp = &sys;
  const bool certs = o.client_certificates;

  r.get("/active-site", "active_site", [=](const http::request& req, http::responder reply) {
    auto ns = req.query_or("namespace");
    auto name = req.query_or("group");
    auto nonce = req.query_or("nonce");
    if (ns.empty() || name.empty()) {
      reply(response::error(400, "namespace and group query parameters are required"));
      return;
    }
    // A nonce is optional: a sidecar sends one and counts only the signed answer to it (lease,
    // boot guard); anyone else (scripts, dashboards) may read the view without one.
    if (!nonce.empty() && !auth::nonce_well_formed(nonce)) {
      reply(response::error(400, "query parameter nonce: 16 to 64 lower-case hex digits"));
      return;
    }
    // With a nonce the answer can renew a lease: only the group's sidecars (or the operator).
    if (!nonce.empty()) {
      if (auto why = auth::check_peer(req.peer, certs, {true, true, ns, name, ""}); !why.empty()) {
        reply(response::error(403, why));
        return;
      }
    }
    if (groups->groups().empty()) {
      // Startup, non-leader or no group source yet: nobody here can answer for any group.
      reply(response::error(503, "no topology managers are running"));
      return;
    }
    group_table::entry e;
    if (!groups->find(ns, name, e)) {
      reply(response::error(404, "group " + key_of(ns, name) + " not found"));
      return;
    }
    if (!e.keys || !e.keys->signer) {
      reply(response::error(503, "no signing key for group " + key_of(ns, name)));
      return;
    }
    auto keys = e.keys;
    ask_coordinator<view_atom>(
        *sysp, e.supervisor, timeout,
        [reply, ns, name, nonce, keys](topology_view& v) {
          // The view is signed for relaying; the whole answer (with the caller's nonce) is
          // signed so that only this answer, now, renews a sidecar's lease (docs/safety.md).
          auto group = auth::group_key(ns, name);
          auto sv = auth::sign_view(*keys->signer, group, v);
          nlohmann::json body = {{"namespace", ns},         {"group", name},
                                 {"activeSite", sv.active_site}, {"epoch", sv.epoch},
                                 {"deposing", sv.deposing},   {"signature", sv.signature}};
          if (nonce.empty()) {
            reply(response::json(200, body));
            return;
          }
          body["nonce"] = nonce;
          auto r = response::json(200, body);
          r.headers.emplace_back(auth::signature_header,
                                 auth::sign_body(*keys->signer, auth::purpose::operator_answer,
                                                 group, r.body));
          reply(r);
        },
        [reply](std::string err) { reply(response::error(503, "coordinator: " + err)); });
  });

  auto clock = o.wall_clock;
  r.get("/status", "status", [=](const http::request&, http::responder reply) {
    auto all = groups->groups();
    if (all.empty()) {
      reply(response::json(200, {{"status", "no active failover groups"}}));
      return;
    }
    // Fan out to every group; the last answer replies (503 when any coordinator failed).
    struct gather {
      std::mutex mx;
      nlohmann::json out = nlohmann::json::object();
      std::string error;
      size_t left = 0;
    };
    auto g = std::make_shared<gather>();
    g->left = all.size();
    auto finish = [g, reply] {
      if (g->left != 0) return;
      if (!g->error.empty())
        reply(response::error(503, g->error));
      else
        reply(response::json(200, g->out));
    };
    for (const auto& e : all) {
      auto key = key_of(e.namespace_name, e.group);
      ask_coordinator<status_atom>(
          *sysp, e.supervisor, timeout,
          [g, finish, key, groups, clock](config::group_status& status) {
            nlohmann::json cr = status;  // the HTTP edge: the value becomes JSON here
            auto j = api_status_entry(cr, unix_ms(clock));
            auto reports = groups->reports(key);
            if (j.contains("sites") && j["sites"].is_array())
              for (auto& s : j["sites"])
                if (s.is_object() && s.contains("name") && s["name"].is_string()) {
                  auto it = reports.find(s["name"].get<std::string>());
                  if (it != reports.end()) s["sidecar"] = it->second;
                }
            if (auto pitr = pitr_status_of(reports); !pitr.is_null()) j["pitr"] = std::move(pitr);
            std::lock_guard<std::mutex> lk(g->mx);
            g->out[key] = std::move(j);
            --g->left;
            finish();
          },
          [g, finish, key](std::string err) {
            std::lock_guard<std::mutex> lk(g->mx);
            if (g->error.empty()) g->error = key + ": coordinator: " + err;
            --g->left;
            finish();
          });
    }
  });

  auto pitr = o.pitr;
  r.get("/pitr-cutoff", "pitr_cutoff", [pitr](const http::request& req, http::responder reply) {
    auto ns = req.query_or("namespace");
    auto name = req.query_or("group");
    auto profile = req.query_or("profile");
    if (ns.empty() || name.empty() || profile.empty()) {
      reply(response::error(400, "namespace, group and profile query parameters are required"));
      return;
    }
    if (!pitr) {
      reply(response::error(503, "backup catalogue not available (no MysqlBackup client)"));
      return;
    }
    auto a = pitr(ns, name, profile);
    if (!a.ok) {
      reply(response::error(500, "listing backups failed: " + a.error));
      return;
    }
    nlohmann::json body = {{"namespace", ns}, {"group", name}, {"profile", profile}};
    if (a.has_cutoff) body["cutoffTime"] = rfc3339_ms(a.cutoff_ms);
    reply(response::json(200, body));
  });

  if (o.ws)
    r.add_upgrade("/ws/status", "ws_status", o.ws->upgrade(),
                  [](const http::request&, http::responder reply) {
                    reply(response::error(426, "GET /ws/status is a WebSocket endpoint"));
                  });
  if (o.dashboard) install_dashboard(r);

  auto events = o.events;
  r.get("/events", "events", [events](const http::request&, http::responder reply) {
    auto arr = nlohmann::json::array();
    if (events)
      for (const auto& e : events()) arr.push_back(event_json(e));
    reply(response::json(200, arr));
  });

  r.post("/sidecar/report", "sidecar_report", [groups, sysp, timeout, certs](const http::request& req,
                                                                             http::responder reply) {
    report_accepted acc;
    auto resp = handle_report(*groups, req, &acc, certs);
    group_table::entry e;
    if (acc.wake && groups->find(acc.namespace_name, acc.group, e))
      wake_group_pollers(*sysp, e, timeout);
    reply(resp);
  });

  auto wall = o.wall_clock;
  // The admin requests: checked here, decided by the group's coordinator.
  for (auto action : {admin_action::switchover, admin_action::reclone, admin_action::fence,
                      admin_action::recover}) {
    std::string path = "/admin/" + std::string(to_string(action));
    r.post(path, "admin_" + std::string(to_string(action)), [=](const http::request& req,
                                                                http::responder reply) {
      if (auto why = auth::check_peer(req.peer, certs, {true, false, "", "", ""}); !why.empty()) {
        reply(response::error(403, why));
        return;
      }
      auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                        wall_now(wall).time_since_epoch())
                        .count();
      auto a = check_admin_request(action, *groups, req, now_ms);
      if (a.status != 0) {
        reply(response::error(a.status, a.error));
        return;
      }
      group_table::entry e;
      if (!groups->find(a.namespace_name, a.group, e) || !e.supervisor) {
        reply(response::error(503, "group " + a.namespace_name + "/" + a.group + " not running"));
        return;
      }
      auto arg = a.argument;
      sysp->spawn([=](caf::event_based_actor* self) {
        ask_child<coordinator_actor>(
            self, e.supervisor, "coordinator", timeout,
            [=](coordinator_actor co) {
              auto answered = [=](std::string& answer) {
                if (answer.rfind("accepted", 0) == 0)
                  reply(response::json(202, {{"answer", answer}}));
                else if (answer.rfind("busy", 0) == 0)
                  reply(response::error(503, answer));
                else
                  reply(response::error(409, answer));
              };
              auto failed = [=](caf::error& err) {
                reply(response::error(503, caf::to_string(err)));
              };
              if (action == admin_action::switchover)
                self->request(co, timeout, switchover_atom::value, arg).then(answered, failed);
              else
                self->request(co, timeout, annotate_atom::value,
                              std::string(action == admin_action::fence     ? fence_request_key
                                          : action == admin_action::recover ? force_quorum_recovery_annotation
                                                                            : reclone_annotation),
                              arg)
                    .then(answered, failed);
            },
            [=](caf::error& err) { reply(response::error(503, caf::to_string(err))); });
      });
    });
  }
}

}  // namespace br
