// The failover executor test fixture: a simulated fleet (a old primary, b candidate, c dr-only,
// r reader), recording coordinator and platform, signed mock sidecars, plans of each kind.
// Shared by executor_test.cpp and executor_semisync_test.cpp (one fixture per test binary).
#pragma once

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/operator/group/failover_executor.hpp"
#include "actors/operator/group/operator_metrics.hpp"
#include "actors/operator/decide/promotion_gate.hpp"
#include "actors/common/authority.hpp"
#include "tests/actors/executor_test_support.hpp"
#include "tests/support/det_fixture.hpp"
#include "tests/support/recording_platform.hpp"

using namespace std::chrono_literals;
using namespace br;
using namespace br::test;

namespace {

const std::string U1 = "11111111-1111-1111-1111-111111111111";
const std::string U2 = "22222222-2222-2222-2222-222222222222";

/// Mock sidecars behind the executor's view pushes: per address, a queue of answers (the last
/// one repeats); an address without answers does not respond (no response, like a dead host).
/// Each answer is completed as a real sidecar completes it (its site and the push's nonce) and
/// signed with that site's key, unless the address is held by an impostor (signed with a key of
/// its own) or an unsigned answer is served.
struct sidecar_fleet {
  std::map<std::string, std::vector<http_reply>> answers;
  std::map<std::string, size_t> served;
  std::vector<http_call> calls;
  std::vector<caf::actor> workers;
  std::string group = "ns/orders";
  std::map<std::string, crypto::signing_key> site_keys;  ///< site -> its sidecar's key
  crypto::signing_key impostor_key = *crypto::key_from_seed(std::string(32, 'I'));
  std::set<std::string> impostors;  ///< addresses answered by a pod that is not the sidecar
  std::set<std::string> unsigned_answers;  ///< addresses whose answers carry no signature
  std::map<std::string, std::string> sign_as;  ///< address -> the site whose key signs there

  static http_reply ack(bool mysql_reachable = true) {
    http_reply r;
    r.status = 200;
    r.body = nlohmann::json{{"ack", true}, {"epoch", 3}, {"fenced", mysql_reachable},
                            {"mysqlReachable", mysql_reachable}}
                 .dump();
    return r;
  }
  static http_reply refuse(int status, const std::string& error) {
    http_reply r;
    r.status = status;
    r.body = nlohmann::json{{"ack", false}, {"epoch", status == 409 ? 4 : 3}, {"error", error}}.dump();
    return r;
  }
  size_t count(const std::string& address) const {
    size_t n = 0;
    for (const auto& c : calls) n += c.url == "http://" + address + "/view" ? 1 : 0;
    return n;
  }
  /// `r` as the sidecar at `addr` would send it for push `c`.
  http_reply complete(const std::string& addr, const http_call& c, http_reply r) const {
    auto site = addr.substr(0, addr.find("-sidecar"));
    auto body = nlohmann::json::parse(r.body);
    body["site"] = site;
    body["nonce"] = nlohmann::json::parse(c.body).value("nonce", "");
    r.body = body.dump();
    if (unsigned_answers.count(addr)) return r;
    auto key = site_keys.find(sign_as.count(addr) ? sign_as.at(addr) : site);
    if (impostors.count(addr) || key == site_keys.end())
      r.signature = auth::sign_body(impostor_key, auth::purpose::ack, group, r.body);
    else
      r.signature = auth::sign_body(key->second, auth::purpose::ack, group, r.body);
    return r;
  }
};

http_worker_actor spawn_mock_sidecar_http(caf::actor_system& sys, std::shared_ptr<sidecar_fleet> f) {
  return sys.spawn([f]() -> http_worker_actor::behavior_type {
    return {[f](http_call_atom, const http_call& c) {
      f->calls.push_back(c);
      auto addr = c.url.substr(7, c.url.size() - 7 - 5);  // http://<addr>/view
      http_reply r;
      r.error = "timeout: no response";
      if (auto it = f->answers.find(addr); it != f->answers.end() && !it->second.empty()) {
        auto& i = f->served[addr];
        r = f->complete(addr, c, it->second[std::min(i, it->second.size() - 1)]);
        ++i;
      }
      return r;
    }};
  });
}

struct exec_fixture : det_fixture {
  std::shared_ptr<fleet> fl = std::make_shared<fleet>();
  std::shared_ptr<coord_record> coord = std::make_shared<coord_record>();
  recording_platform platform = spawn_recording_platform(sys);
  site_io_actor io = spawn_fleet_io(sys, fl);
  coordinator_actor coordinator = spawn_recording_coordinator(sys, coord);
  std::vector<executor_actor> executors;
  std::shared_ptr<sidecar_fleet> sidecars = std::make_shared<sidecar_fleet>();
  bool with_sidecars = false;
  crypto::signing_key operator_key = *crypto::key_from_seed(std::string(32, 'O'));

  exec_fixture() {
    // a: old primary, b: candidate, c: dr-only, r: reader.
    fl->servers["a"] = {true, false, U1 + ":1-100", "", false};
    fl->servers["b"] = {false, true, U1 + ":1-98", U1 + ":1-100", false};
    fl->servers["c"] = {false, true, U1 + ":1-99", U1 + ":1-99", false};
    fl->servers["r"] = {false, true, U1 + ":1-97", U1 + ":1-97", false};
  }

  ~exec_fixture() {
    for (auto& e : executors) self->send_exit(e, caf::exit_reason::kill);
    for (auto& w : sidecars->workers) self->send_exit(w, caf::exit_reason::kill);
    self->send_exit(io, caf::exit_reason::kill);
    self->send_exit(coordinator, caf::exit_reason::kill);
    stop_recording_platform(platform);
    run();
  }

  executor_deps deps() {
    executor_deps d;
    d.site_io = io;
    d.platform = platform.handles;
    d.coordinator = coordinator;
    d.group = "orders";
    d.sites = {"a", "b", "c", "r"};
    d.roles = {{"a", site_role::primary_candidate},
               {"b", site_role::primary_candidate},
               {"c", site_role::dr_only},
               {"r", site_role::read_only}};
    uint16_t port = 4001;
    for (const auto& s : d.sites) {
      d.targets[s] =
          mysql_target{s, "10.0.0." + std::to_string(port - 4000), port, "bloodraven", "opw", {}, {}, {}};
      d.lb_ips[s] = "192.0.2." + std::to_string(port - 4000);
      ++port;
    }
    d.replication = mysql_target{"", "", 0, "repl", "replpw", {}, {}, {}};
    d.registry_path = "root/group:orders";
    d.clone_timeout = 600s;
    if (with_sidecars) {
      for (const auto& s : d.sites) d.sidecars[s] = s + "-sidecar:8080";
      auto ring = std::make_shared<auth::key_ring>();
      ring->signer = operator_key;
      ring->operator_keys = {operator_key.pub};
      char seed = 'a';
      for (const auto& s : d.sites) {
        auto k = *crypto::key_from_seed(std::string(32, seed++));
        sidecars->site_keys[s] = k;
        ring->site_keys[s] = {k.pub};
      }
      d.keys = ring;
      d.authority_group = sidecars->group;
      auto f = sidecars;
      auto* sys_ptr = &sys;
      d.http_worker = [f, sys_ptr] {
        auto w = spawn_mock_sidecar_http(*sys_ptr, f);
        f->workers.push_back(caf::actor_cast<caf::actor>(w));
        return w;
      };
      d.lease_timeout = 20s;
      d.peer_check_interval = 5s;
      d.sidecar_fence_timeout = 20s;
      d.sidecar_request_timeout = 2s;
      d.push_retry = 1s;
    }
    return d;
  }

  failover_plan failover(gate_policy policy = gate_policy::safe, bool old_reachable = true) {
    failover_plan p;
    p.id = 7;
    p.kind = plan_kind::failover;
    p.group = "orders";
    p.epoch = 3;
    p.candidate = "b";
    p.old_primary = "a";
    p.old_primary_reachable = old_reachable;
    p.followers = {"c", "r"};
    p.policy = policy;
    p.step_timeout = 10s;
    p.drain_timeout = 30s;
    p.gate_timeout = 120s;
    return p;
  }

  failover_plan repair(plan_kind kind) {
    failover_plan p;
    p.id = 9;
    p.kind = kind;
    p.group = "orders";
    p.epoch = 4;
    p.candidate = "a";
    p.source = "b";
    p.step_timeout = 10s;
    return p;
  }

  executor_actor start(failover_plan plan) {
    auto holder = std::make_shared<executor_actor>();
    auto d = deps();
    sys.spawn([holder, plan, d](caf::event_based_actor* parent) {
      *holder = spawn_failover_executor(parent, plan, d);
    });
    run();
    executors.push_back(*holder);
    return *holder;
  }

  const plan_result& only_result() {
    BOOST_TEST_REQUIRE(coord->done.size() == 1u);
    return coord->done.front();
  }

  std::vector<std::string> routes() {
    std::vector<std::string> v;
    for (auto& [g, p, rs] : platform.rec->routes) {
      std::string s = g + " " + p + " <-";
      for (auto& r : rs) s += " " + r;
      v.push_back(s);
    }
    return v;
  }
  std::vector<std::string> dns() {
    std::vector<std::string> v;
    for (auto& [g, s, t] : platform.rec->dns) v.push_back(g + " " + s + " " + t);
    return v;
  }
  std::vector<std::string> taints() {
    std::vector<std::string> v;
    for (auto& [g, s, on] : platform.rec->taints) v.push_back(s + (on ? "=taint" : "=untaint"));
    return v;
  }
};

inline std::vector<std::string> cmds(std::initializer_list<const char*> l) {
  return std::vector<std::string>(l.begin(), l.end());
}

inline std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& x : v) s += x + "\n";
  return s;
}

inline std::string join(const std::vector<plan_phase>& v) {
  std::string s;
  for (auto x : v) s += to_string(x) + "\n";
  return s;
}

}  // namespace
