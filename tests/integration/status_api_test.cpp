// Operator status API over real sockets: /status, /active-site, /pitr-cutoff shapes and codes,
// and /ws/status (stalled client dropped without slowing the publisher, cap -> 429, Origin).
#include <boost/test/unit_test.hpp>

#include "actors/common/authority.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <cstdio>
#include <sys/wait.h>
#include <unistd.h>
#include <functional>
#include <thread>

#include "actors/operator/api/operator_api.hpp"
#include "config/group_status.hpp"
#include "actors/operator/group/operator_metrics.hpp"
#include "io/metrics/metrics.hpp"
#include "actors/operator/api/status_hub.hpp"
#include "actors/operator/api/status_shapes.hpp"
#include "io/http/client.hpp"
#include "io/http/server.hpp"
#include "io/http/websocket_hub.hpp"
#include "tests/support/ws_client.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/eventually.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace {

constexpr auto safety = 30s;  // safety bound only; waits end on events long before

bool eventually(const std::function<bool()>& probe, std::chrono::seconds deadline = safety) {
  return br::test::eventually(probe, deadline, 20ms);
}

struct caf_env {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf_env() {
    br::add_message_types(cfg);
    cfg.set("scheduler.max-threads", 2);
    sys = std::make_unique<caf::actor_system>(cfg);
  }
};

/// A coordinator stand-in answering (view) and (status) from shared, test-controlled values.
struct fake_group {
  std::shared_ptr<std::mutex> mx = std::make_shared<std::mutex>();
  std::shared_ptr<br::topology_view> view = std::make_shared<br::topology_view>();
  std::shared_ptr<br::config::group_status> status = std::make_shared<br::config::group_status>();
  caf::actor coordinator;
  caf::actor supervisor;

  explicit fake_group(caf::actor_system& sys) {
    auto mx_ = mx;
    auto view_ = view;
    auto status_ = status;
    coordinator = sys.spawn([=]() -> caf::behavior {
      return {
          [=](br::view_atom) {
            std::lock_guard<std::mutex> lk(*mx_);
            return *view_;
          },
          [=](br::status_atom) {
            std::lock_guard<std::mutex> lk(*mx_);
            return *status_;
          },
      };
    });
    auto co = coordinator;
    supervisor = sys.spawn([co]() -> caf::behavior {
      return {[co](br::child_atom, const std::string& name) -> caf::result<caf::actor> {
        if (name == "coordinator") return co;
        return caf::make_error(caf::sec::invalid_argument);
      }};
    });
  }
};

/// The test group's keys: the operator's, and sites s1 and s2 (fixed seeds).
br::crypto::signing_key test_key(char c) { return *br::crypto::key_from_seed(std::string(32, c)); }
std::shared_ptr<const br::auth::key_ring> test_ring() {
  auto r = std::make_shared<br::auth::key_ring>();
  r->signer = test_key('O');
  r->operator_keys = {test_key('O').pub};
  r->site_keys["s1"] = {test_key('1').pub};
  r->site_keys["s2"] = {test_key('2').pub};
  return r;
}

/// Registers `sup` in the table the way group_table::track does for a started supervisor, with
/// the group's keys and its sites s1 and s2.
void add_group(br::group_table& t, const std::string& ns, const std::string& name,
               caf::actor sup) {
  br::child_spec c{"group:" + name, "supervisor",
                   [sup](caf::local_actor*, const std::string&) { return sup; }};
  auto tracked = t.track(ns, name, c, test_ring(), {"s1", "s2"});
  tracked.start(nullptr, "root");
}

struct api_server {
  caf_env env;
  std::shared_ptr<br::group_table> groups = std::make_shared<br::group_table>();
  std::unique_ptr<br::http::server> srv;
  std::string base;

  explicit api_server(std::function<void(br::operator_api_options&)> tweak = {}) {
    br::operator_api_options o;
    o.groups = groups;
    o.wall_clock = [] { return caf::timestamp{std::chrono::milliseconds(1714564800000)}; };
    if (tweak) tweak(o);
    br::http::router r;
    br::install_operator_routes(r, *env.sys, o);
    br::http::server_options so;
    so.port = 0;
    srv = std::make_unique<br::http::server>(so, r);
    base = "http://127.0.0.1:" + std::to_string(srv->start());
  }
  ~api_server() {
    groups->drop_handles();
    srv->stop();
  }
  br::http::client_result get(const std::string& path) {
    br::http::client_request req;
    req.url = base + path;
    req.timeout = safety;
    return br::http::perform(req);
  }
  br::http::client_result post(const std::string& path, const std::string& body,
                               const std::string& signature = "") {
    br::http::client_request req;
    req.method = "POST";
    req.url = base + path;
    req.body = body;
    req.headers.emplace_back("Content-Type", "application/json");
    if (!signature.empty()) req.headers.emplace_back(br::auth::signature_header, signature);
    req.timeout = safety;
    return br::http::perform(req);
  }
};

/// Runs `promtool check metrics` on `text`; returns its exit code and output.
std::pair<int, std::string> promtool_check(const std::string& text) {
  char path[] = "/tmp/br-metrics-XXXXXX";
  int fd = mkstemp(path);
  BOOST_REQUIRE(fd >= 0);
  BOOST_REQUIRE(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  ::close(fd);
  std::string cmd = std::string("promtool check metrics < ") + path + " 2>&1";
  std::string out;
  FILE* f = popen(cmd.c_str(), "r");
  BOOST_REQUIRE(f != nullptr);
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, f)) out.append(buf, n);
  int rc = pclose(f);
  ::unlink(path);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

json body_of(const br::http::client_result& r) { return json::parse(r.body, nullptr, false); }

// -- WebSocket clients (tests/support/ws_client.hpp) ----------------------------------------------

using br::test::ws_client;

/// A WebSocket upgrade request over plain HTTP; returns the response status (101 when accepted).
/// (Beast 1.74's client handshake drops the response of a declined upgrade, so read it here.)
int upgrade_status(uint16_t port, const std::string& origin = "") {
  asio::io_context ioc;
  asio::ip::tcp::socket sock(ioc);
  sock.connect({asio::ip::make_address("127.0.0.1"), port});
  beast::http::request<beast::http::empty_body> req{beast::http::verb::get, "/ws/status", 11};
  req.set(beast::http::field::host, "127.0.0.1");
  req.set(beast::http::field::upgrade, "websocket");
  req.set(beast::http::field::connection, "upgrade");
  req.set(beast::http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  req.set(beast::http::field::sec_websocket_version, "13");
  if (!origin.empty()) req.set(beast::http::field::origin, origin);
  beast::http::write(sock, req);
  beast::flat_buffer b;
  beast::http::response<beast::http::string_body> res;
  beast::error_code ec;
  beast::http::read(sock, b, res, ec);
  if (ec) return -1;
  return static_cast<int>(res.result_int());
}

br::config::group_status big_status(const std::string& active, size_t pad) {
  json st = {{"activeSite", active},
             {"epoch", 3},
             {"sites", json::array({{{"name", "s1"}, {"role", "primary-candidate"},
                                     {"state", "writable"}, {"gtidExecuted", std::string(pad, 'a')}},
                                    {{"name", "s2"}, {"role", "primary-candidate"},
                                     {"state", "read-only"}, {"replicating", true},
                                     {"secondsBehindSource", 1}}})}};
  return st.get<br::config::group_status>();
}

}  // namespace

BOOST_AUTO_TEST_SUITE(status_api)

BOOST_AUTO_TEST_CASE(active_site_codes_and_shape) {
  api_server s;
  // No group is running at all: nobody can answer (startup / non-leader).
  BOOST_TEST(s.get("/active-site?namespace=shop&group=orders").status == 503);
  fake_group g(*s.env.sys);
  add_group(*s.groups, "shop", "orders", g.supervisor);
  {
    std::lock_guard<std::mutex> lk(*g.mx);
    *g.view = br::topology_view{4, "s2", "s1", 0, {}};
  }
  for (auto q : {"", "?namespace=shop", "?group=orders", "?namespace=&group=orders"}) {
    auto r = s.get(std::string("/active-site") + q);
    BOOST_TEST(r.status == 400, q);
    BOOST_TEST(body_of(r).value("error", "") == "namespace and group query parameters are required");
  }
  BOOST_TEST(s.get("/active-site?namespace=shop&group=nosuch").status == 404);
  BOOST_TEST(s.get("/active-site?namespace=other&group=orders").status == 404);
  auto ok = s.get("/active-site?namespace=shop&group=orders");
  BOOST_TEST_REQUIRE(ok.status == 200, ok.body);
  auto j = body_of(ok);
  BOOST_TEST(j["namespace"] == "shop");
  BOOST_TEST(j["group"] == "orders");
  BOOST_TEST(j["activeSite"] == "s2");
  BOOST_TEST(j["epoch"] == 4);
  BOOST_TEST(j["deposing"] == "s1");
  // The view carries the operator's signature (sidecars relay it); without a nonce the answer
  // itself is informational (no signature header), with one it is signed over that nonce.
  br::topology_view got{4, "s2", "s1", 0, j.value("signature", "")};
  BOOST_TEST(br::auth::view_verifies({test_key('O').pub}, "shop/orders", got));
  BOOST_TEST(!ok.header("x-bloodraven-signature").has_value());
  BOOST_TEST(s.get("/active-site?namespace=shop&group=orders&nonce=xyz").status == 400);
  auto nonce = br::auth::new_nonce();
  auto fresh = s.get("/active-site?namespace=shop&group=orders&nonce=" + nonce);
  BOOST_TEST_REQUIRE(fresh.status == 200, fresh.body);
  BOOST_TEST(body_of(fresh)["nonce"] == nonce);
  BOOST_TEST(br::auth::body_verifies({test_key('O').pub}, br::auth::purpose::operator_answer,
                                     "shop/orders", fresh.body,
                                     fresh.header("x-bloodraven-signature").value_or("")));
  // The coordinator is gone (restarting): 503, not a stale answer.
  caf::anon_send_exit(g.coordinator, caf::exit_reason::kill);
  BOOST_TEST(eventually([&] {
    return s.get("/active-site?namespace=shop&group=orders").status == 503;
  }));
}

BOOST_AUTO_TEST_CASE(sidecar_reports_are_bounded_signed_and_for_known_sites_only) {
  api_server s;
  fake_group g(*s.env.sys);
  add_group(*s.groups, "shop", "orders", g.supervisor);
  int64_t sent = 1714564800000;
  auto report = [&](const std::string& site) {
    return json{{"site", site},          {"namespace", "shop"}, {"group", "orders"},
                {"epochSeen", 4},         {"fenced", false},      {"selfFenced", false},
                {"mysqlReachable", true}, {"sentAtMs", ++sent}}
        .dump();
  };
  auto sign = [](char key, const std::string& body) {
    return br::auth::sign_body(test_key(key), br::auth::purpose::report, "shop/orders", body);
  };
  auto alive = [&] { return s.get("/status").status == 200; };

  // A deeply nested body (it overflowed the stack of the unbounded parser/copy) and an oversized
  // one: 4xx before any parser sees them, and the operator keeps serving.
  std::string nested = R"({"site":"s1","namespace":"shop","group":"orders","archiver":)" +
                       std::string(200000, '[') + std::string(200000, ']') + "}";
  auto deep = s.post("/sidecar/report", nested);
  BOOST_TEST(deep.status / 100 == 4, deep.status << " " << deep.body);
  BOOST_TEST(alive());
  auto nine = s.post("/sidecar/report", R"({"a":[[[[[[[[[1]]]]]]]]]})");
  BOOST_TEST(nine.status == 400);
  BOOST_TEST(body_of(nine).value("error", "").find("nesting deeper than 8") != std::string::npos,
             nine.body);
  auto big = s.post("/sidecar/report", "{\"pad\":\"" + std::string(20000, 'x') + "\"}");
  BOOST_TEST(big.status == 413, big.status << " " << big.body);
  BOOST_TEST(alive());

  // A site the group does not have: refused, nothing recorded (no unbounded growth by names).
  auto invented = report("s9");
  auto r9 = s.post("/sidecar/report", invented, sign('1', invented));
  BOOST_TEST(r9.status == 400);
  BOOST_TEST(body_of(r9).value("error", "").find("site") != std::string::npos, r9.body);
  // Unsigned, signed by another site's key, or by a key nobody accepted: 401.
  auto b1 = report("s1");
  BOOST_TEST(s.post("/sidecar/report", b1).status == 401);
  BOOST_TEST(s.post("/sidecar/report", b1, sign('2', b1)).status == 401);
  BOOST_TEST(s.post("/sidecar/report", b1, sign('X', b1)).status == 401);
  BOOST_TEST(s.groups->reports("shop/orders").empty());
  // A sentAtMs beyond int64 is a bad field (400), not a replay.
  auto huge = json::parse(report("s1"));
  huge["sentAtMs"] = uint64_t{1} << 63;
  auto hb = huge.dump();
  auto rh = s.post("/sidecar/report", hb, sign('1', hb));
  BOOST_TEST(rh.status == 400, rh.body);
  BOOST_TEST(body_of(rh).value("error", "").find("sentAtMs") != std::string::npos, rh.body);
  // Signed by its own site: recorded once; the same report again (a replay) is refused.
  auto ok = s.post("/sidecar/report", b1, sign('1', b1));
  BOOST_TEST(ok.status == 200, ok.body);
  BOOST_TEST(s.groups->reports("shop/orders").count("s1") == 1u);
  BOOST_TEST(s.post("/sidecar/report", b1, sign('1', b1)).status == 409);
  BOOST_TEST(alive());
}

BOOST_AUTO_TEST_CASE(status_shapes_and_codes) {
  api_server s;
  auto none = s.get("/status");
  BOOST_TEST(none.status == 200);
  BOOST_TEST(body_of(none) == (json{{"status", "no active failover groups"}}));
  fake_group g(*s.env.sys);
  add_group(*s.groups, "shop", "orders", g.supervisor);
  {
    std::lock_guard<std::mutex> lk(*g.mx);
    *g.status = big_status("s1", 8);
  }
  auto r = s.get("/status");
  BOOST_TEST_REQUIRE(r.status == 200, r.body);
  auto j = body_of(r);
  BOOST_TEST_REQUIRE(j.contains("shop/orders"), j.dump());
  // The handler's answer is exactly the pure shape of the coordinator's status.
  auto want = br::api_status_entry(json(big_status("s1", 8)), 1714564800000);
  BOOST_TEST(j["shop/orders"] == want, j.dump());
  BOOST_TEST(j["shop/orders"]["epoch"] == 3);
  BOOST_TEST(j["shop/orders"]["pollTime"] == "2024-05-01T12:00:00Z");
  caf::anon_send_exit(g.coordinator, caf::exit_reason::kill);
  BOOST_TEST(eventually([&] { return s.get("/status").status == 503; }));
}

BOOST_AUTO_TEST_CASE(pitr_cutoff_codes_and_shape) {
  {
    api_server s;  // no backup catalogue: the reference's "no client" answer
    for (auto q : {"", "?namespace=a&group=b", "?namespace=a&profile=p", "?group=b&profile=p"})
      BOOST_TEST(s.get(std::string("/pitr-cutoff") + q).status == 400, q);
    auto r = s.get("/pitr-cutoff?namespace=a&group=b&profile=p");
    BOOST_TEST(r.status == 503);
    BOOST_TEST(body_of(r).contains("error"));
  }
  api_server s([](br::operator_api_options& o) {
    o.pitr = [](const std::string& ns, const std::string& g, const std::string& p) {
      br::pitr_answer a;
      if (p == "broken") {
        a.ok = false;
        a.error = "list timed out";
      } else if (p == "daily") {
        a.has_cutoff = true;
        a.cutoff_ms = 1714564800000 + (ns == "a" && g == "b" ? 1500 : 0);
      }
      return a;
    };
  });
  auto with = body_of(s.get("/pitr-cutoff?namespace=a&group=b&profile=daily"));
  BOOST_TEST(with == (json{{"namespace", "a"}, {"group", "b"}, {"profile", "daily"},
                           {"cutoffTime", "2024-05-01T12:00:01.500Z"}}));
  auto without = s.get("/pitr-cutoff?namespace=a&group=b&profile=weekly");
  BOOST_TEST(without.status == 200);
  BOOST_TEST(body_of(without) == (json{{"namespace", "a"}, {"group", "b"}, {"profile", "weekly"}}));
  BOOST_TEST(s.get("/pitr-cutoff?namespace=a&group=b&profile=broken").status == 500);
}

BOOST_AUTO_TEST_CASE(dashboard_and_plain_get_of_the_socket) {
  auto ws = std::make_shared<br::http::websocket_hub>(br::http::websocket_options{});
  api_server s([ws](br::operator_api_options& o) { o.ws = ws; });
  auto page = s.get("/");
  BOOST_TEST(page.status == 200);
  BOOST_TEST(page.header("content-type").value_or("").find("text/html") == 0u);
  BOOST_TEST(page.body.find("src=\"/dashboard.js\"") != std::string::npos);
  BOOST_TEST(page.body.find("href=\"/dashboard.css\"") != std::string::npos);
  // The page runs no inline script or style: the policy allows only its own origin.
  auto csp = page.header("content-security-policy").value_or("");
  BOOST_TEST(csp.find("default-src 'self'") != std::string::npos);
  BOOST_TEST(csp.find("unsafe-inline") == std::string::npos);
  BOOST_TEST(page.body.find("<script>") == std::string::npos);
  auto js = s.get("/dashboard.js");
  BOOST_TEST(js.status == 200);
  BOOST_TEST(js.header("content-type").value_or("").find("text/javascript") == 0u);
  BOOST_TEST(js.body.find("/ws/status") != std::string::npos);
  BOOST_TEST(js.body.find("disconnected") != std::string::npos);
  auto css = s.get("/dashboard.css");
  BOOST_TEST(css.status == 200);
  BOOST_TEST(css.header("content-type").value_or("").find("text/css") == 0u);
  BOOST_TEST(s.get("/ws/status").status == 426);
  ws->close_all();
}

/// A stalled and a reading client on one hub fed at 100 ms; returns why the stalled one went.
std::string stall_scenario(br::http::websocket_options wo) {
  auto ws = std::make_shared<br::http::websocket_hub>(wo);
  auto reasons = std::make_shared<std::vector<std::string>>();
  auto rmx = std::make_shared<std::mutex>();
  ws->on_drop = [reasons, rmx](const std::string& why) {
    std::lock_guard<std::mutex> lk(*rmx);
    reasons->push_back(why);
  };
  api_server s([ws](br::operator_api_options& o) { o.ws = ws; });
  auto port = s.srv->port();

  // The status hub as in the operator, fed by a publisher standing in for the coordinator's
  // per-poll status publications (100 ms cadence, ~256 KiB each so a stalled reader's socket
  // buffers fill within seconds).
  br::status_hub_config hc;
  hc.namespace_name = "shop";
  hc.ws = ws;
  hc.interval = std::chrono::hours(1);  // only the publications themselves
  auto hub = br::spawn_status_hub(*s.env.sys, hc);

  ws_client good(port);
  BOOST_TEST_REQUIRE(good.open(), good.ec.message());
  ws_client stalled(port, "", 4096);  // handshakes, then never reads again
  BOOST_TEST_REQUIRE(stalled.open(), stalled.ec.message());
  BOOST_TEST_REQUIRE(eventually([&] { return ws->clients() == 2; }));

  std::atomic<bool> stop{false};
  std::atomic<int> received{0};
  std::atomic<int64_t> max_gap_ms{0};
  std::thread reader([&] {
    auto last = std::chrono::steady_clock::now();
    while (!stop) {
      auto m = good.read();
      if (m.empty()) break;
      auto now = std::chrono::steady_clock::now();
      auto gap = std::chrono::duration_cast<std::chrono::milliseconds>(now - last).count();
      if (received > 0 && gap > max_gap_ms) max_gap_ms = gap;
      last = now;
      ++received;
    }
  });

  // The publisher: one publication every 100 ms until the stalled client is gone and 2 more s.
  const auto period = 100ms;
  auto payload = big_status("s1", 256 * 1024);
  std::vector<std::chrono::steady_clock::time_point> ticks;
  std::chrono::steady_clock::time_point dropped_at{};
  auto next = std::chrono::steady_clock::now();
  auto give_up = next + safety;
  caf::scoped_actor self{*s.env.sys};
  while (std::chrono::steady_clock::now() < give_up) {
    std::this_thread::sleep_until(next);
    ticks.push_back(std::chrono::steady_clock::now());
    self->send(hub, br::status_atom::value, std::string("orders"), payload);
    next += period;
    if (dropped_at == std::chrono::steady_clock::time_point{} && ws->dropped() >= 1)
      dropped_at = ticks.back();
    if (dropped_at != std::chrono::steady_clock::time_point{} &&
        ticks.back() - dropped_at > 2s)
      break;
  }
  const bool dropped = ws->dropped() == 1u;
  BOOST_TEST(dropped, "the stalled client was never dropped");
  BOOST_TEST(ws->clients() == 1u);  // the reading client is still there

  // Publisher cadence: no tick was late by more than a generous safety margin.
  int64_t worst = 0;
  for (size_t i = 1; i < ticks.size(); ++i)
    worst = std::max<int64_t>(
        worst, std::chrono::duration_cast<std::chrono::milliseconds>(ticks[i] - ticks[i - 1]).count());
  BOOST_TEST_MESSAGE("ticks " << ticks.size() << ", worst tick gap " << worst << " ms, reader max gap "
                              << max_gap_ms.load() << " ms, received " << received.load());
  BOOST_TEST(worst < 1000);
  // The reading client kept receiving through the stall (nothing waited on the stalled one).
  BOOST_TEST(eventually([&] { return received.load() >= static_cast<int>(ticks.size()) * 8 / 10; }),
             "received " << received.load() << " of " << ticks.size());
  BOOST_TEST(max_gap_ms.load() < 3000);

  // The stalled client's socket is closed by the server: reading now ends with an error.
  for (int i = 0; dropped && i < 1000; ++i) {
    auto m = stalled.read();
    if (m.empty()) break;
  }
  if (dropped) BOOST_TEST(!stalled.ws.is_open());

  stop = true;
  ws->close_all();
  reader.join();
  caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);
  std::lock_guard<std::mutex> lk(*rmx);
  BOOST_TEST_REQUIRE(reasons->size() == 1u);
  return reasons->front();
}

BOOST_AUTO_TEST_CASE(stalled_client_is_dropped_by_its_bounded_queue_or_write_deadline) {
  br::http::websocket_options wo;
  wo.max_queue = 8;
  wo.write_timeout = 1s;
  wo.idle_timeout = 120s;  // out of the way: only the queue bound or the write deadline can act
  auto why = stall_scenario(wo);
  BOOST_TEST((why == "queue full" || why == "write deadline"), why);
}

BOOST_AUTO_TEST_CASE(client_that_does_not_answer_pings_is_dropped_one_that_reads_stays) {
  // Nothing is published: only pings travel. Beast answers pings inside read(), so the reading
  // client pongs and stays; the one that never reads stops answering and is dropped.
  br::http::websocket_options wo;
  wo.idle_timeout = 1s;  // a ping every 500 ms
  auto ws = std::make_shared<br::http::websocket_hub>(wo);
  std::vector<std::string> reasons;
  std::mutex rmx;
  ws->on_drop = [&](const std::string& why) {
    std::lock_guard<std::mutex> lk(rmx);
    reasons.push_back(why);
  };
  api_server s([ws](br::operator_api_options& o) { o.ws = ws; });
  ws_client reading(s.srv->port());
  ws_client silent(s.srv->port());
  BOOST_TEST_REQUIRE(reading.open());
  BOOST_TEST_REQUIRE(silent.open());
  std::thread reader([&] { reading.read(); });  // blocks, answering pings, until closed
  BOOST_TEST(eventually([&] { return ws->dropped() == 1u; }));
  // Several more ping periods: the reading client is still connected.
  std::this_thread::sleep_for(3s);
  BOOST_TEST(ws->clients() == 1u);
  BOOST_TEST(ws->dropped() == 1u);
  {
    std::lock_guard<std::mutex> lk(rmx);
    BOOST_TEST_REQUIRE(reasons.size() == 1u);
    BOOST_TEST(reasons.front() == "ping timeout");
  }
  ws->close_all();
  reader.join();
}

BOOST_AUTO_TEST_CASE(client_cap_answers_429_before_the_upgrade) {
  auto ws = std::make_shared<br::http::websocket_hub>(br::http::websocket_options{});
  BOOST_TEST_REQUIRE(ws->options().max_clients == 100u);  // the default is what is tested
  api_server s([ws](br::operator_api_options& o) { o.ws = ws; });
  auto port = s.srv->port();
  std::vector<std::unique_ptr<ws_client>> clients;
  for (int i = 0; i < 100; ++i) {
    clients.push_back(std::make_unique<ws_client>(port));
    BOOST_TEST_REQUIRE(clients.back()->open(), "client " << i << ": " << clients.back()->ec.message());
  }
  BOOST_TEST_REQUIRE(eventually([&] { return ws->clients() == 100u; }));
  ws_client extra(port);
  BOOST_TEST(!extra.open());
  BOOST_TEST(upgrade_status(port) == 429);
  BOOST_TEST(ws->refused() == 2u);
  // A slot frees when a client leaves.
  clients.front()->ws.close(websocket::close_code::normal);
  clients.front().reset();
  BOOST_TEST_REQUIRE(eventually([&] { return ws->clients() == 99u; }));
  ws_client again(port);
  BOOST_TEST(again.open(), again.ec.message());
  ws->close_all();
}

BOOST_AUTO_TEST_CASE(origin_allow_list_and_snapshot_on_connect) {
  br::http::websocket_options wo;
  wo.allowed_origins = {"http://dash.example"};
  auto ws = std::make_shared<br::http::websocket_hub>(wo);
  api_server s([ws](br::operator_api_options& o) { o.ws = ws; });
  auto port = s.srv->port();
  ws_client evil(port, "http://evil.example");
  BOOST_TEST(!evil.open());
  BOOST_TEST(upgrade_status(port, "http://evil.example") == 403);
  ws->publish("shop/orders", R"({"group":"orders"})");
  ws_client good(port, "http://dash.example");
  BOOST_TEST_REQUIRE(good.open(), good.ec.message());
  // A new client first gets the latest message per group.
  BOOST_TEST(good.read() == R"({"group":"orders"})");
  ws_client cli(port);  // no Origin: not a browser, allowed
  BOOST_TEST(cli.open(), cli.ec.message());
  ws->close_all();
}

BOOST_AUTO_TEST_CASE(new_metrics_pass_promtool_on_the_metrics_endpoint) {
  // Every new metric gets a series, then /metrics of a real server is checked by promtool.
  br::opmetrics::group_labels g{"shop", "orders"};
  br::site_probe p;
  p.channel_configured = true;
  p.io_state = "ON";
  p.sql_state = "OFF";
  p.seconds_behind = -1;
  br::opmetrics::observe_probe(g, "s2", br::site_role::primary_candidate, false, p);
  // Semi-sync (issue 25): series only for a site whose source plugin is loaded.
  br::site_probe primary;
  primary.semisync.source_loaded = true;
  primary.semisync.wait_sessions = 2;
  primary.semisync.clients = 1;
  br::opmetrics::observe_probe(g, "s1", br::site_role::primary_candidate, true, primary);
  {
    auto text = br::metrics::render_text();
    BOOST_TEST(text.find(R"(bloodraven_semisync_waiting_sessions{group="orders",namespace="shop",site="s1"} 2)") != std::string::npos, text);
    BOOST_TEST(text.find(R"(bloodraven_semisync_clients{group="orders",namespace="shop",site="s1"} 1)") != std::string::npos, text);
    BOOST_TEST(text.find(R"(bloodraven_semisync_clients{group="orders",namespace="shop",site="s2"})") == std::string::npos, text);
  }
  br::opmetrics::observe_failover_duration(g, "s2", 7.5);
  br::opmetrics::observe_promotion_gate_wait(g, "s2", 0.8);
  br::opmetrics::failover_failures(g, "s2", "promote").Increment();
  br::opmetrics::dns_flips(g, "s2").Increment();
  br::opmetrics::taint_operations(g, "s1", "taint").Increment();
  br::opmetrics::set_websocket_clients(3);
  br::opmetrics::websocket_dropped("queue full").Increment();

  // The status hub keeps follower lag current from publications; the active site has none.
  caf_env env;
  br::status_hub_config hc;
  hc.namespace_name = "shop";
  auto hub = br::spawn_status_hub(*env.sys, hc);
  {
    caf::scoped_actor self{*env.sys};
    self->send(hub, br::status_atom::value, std::string("lagged"), big_status("s1", 4));
  }
  BOOST_TEST(eventually([] {
    return br::metrics::render_text().find(
               R"(bloodraven_replication_lag_seconds{group="lagged",namespace="shop",role="primary-candidate",site="s2"} 1)") !=
           std::string::npos;
  }), br::metrics::render_text());
  BOOST_TEST(br::metrics::render_text().find(R"(group="lagged",namespace="shop",role="primary-candidate",site="s1")") ==
             std::string::npos);
  caf::anon_send_exit(hub, caf::exit_reason::user_shutdown);

  br::http::router r;
  r.get("/metrics", "metrics", [](const br::http::request&, br::http::responder reply) {
    reply(br::http::response::text(200, br::metrics::render_text(), "text/plain; version=0.0.4"));
  });
  br::http::server_options so;
  so.registry = br::metrics::process_registry();  // HTTP RED metrics of this server too
  br::http::server srv(so, r);
  auto port = srv.start();
  br::http::client_request req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + "/metrics?raw=path&x=1";
  req.timeout = safety;
  br::http::perform(req);
  auto text = br::http::perform(req).body;
  for (const char* name :
       {"bloodraven_replication_lag_seconds", "bloodraven_replication_running",
        "bloodraven_semisync_waiting_sessions", "bloodraven_semisync_clients",
        "bloodraven_failover_duration_seconds_bucket", "bloodraven_promotion_gate_wait_seconds_bucket",
        "bloodraven_failover_failures_total", "bloodraven_dns_flips_total",
        "bloodraven_taint_operations_total", "bloodraven_websocket_connected_clients",
        "bloodraven_websocket_dropped_clients_total", "bloodraven_http_requests_total"})
    BOOST_TEST(text.find(name) != std::string::npos, name);
  BOOST_TEST(text.find(R"(thread="io")") != std::string::npos);
  // Bounded cardinality: the HTTP handler label is the route name, never the raw target.
  BOOST_TEST(text.find("raw=path") == std::string::npos);
  BOOST_TEST(text.find(R"(handler="metrics")") != std::string::npos);
  auto [rc, out] = promtool_check(text);
  BOOST_TEST(rc == 0, out);
  srv.stop();
}

BOOST_AUTO_TEST_SUITE_END()
