// Two real bloodraven-sidecar processes on real MySQL 9.7 (sandbox instances 7 and 8 ONLY) with a
// fake operator served from the test: boot guard, peer anchoring, stale primary, PUT /view, lease.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <atomic>
#include <mutex>
#include <thread>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/http/client.hpp"
#include "io/http/server.hpp"
#include "io/mysql/connection.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/sidecar_env.hpp"
#include "tests/support/mysql_sandbox.hpp"

using namespace std::chrono_literals;
using br::test::binary_path;
using br::test::child_process;
using br::test::free_port;

namespace {

constexpr int inst_a = 7;  // this suite's instances; other suites use 1-6 and 9
constexpr int inst_b = 8;
const std::string token = "test-token-7f3a9c";

const br::test::mysql_sandbox& sandbox() {
  static const br::test::mysql_sandbox sb;
  return sb;
}

std::string sql1(int i, const std::string& q) { return sandbox().sql(i, q); }
bool super_read_only(int i) { return sql1(i, "SELECT @@global.super_read_only") == "1"; }
bool writable(int i) {
  return sql1(i, "SELECT @@global.read_only + @@global.super_read_only") == "0";
}
void make_writable(int i) {
  sql1(i, "SET GLOBAL super_read_only = OFF");
  sql1(i, "SET GLOBAL read_only = OFF");
}

/// The fake operator: /healthz, /active-site with a view the test controls, /sidecar/report.
/// `partition(true)` makes it stop answering (requests hang until the sidecar's timeout), which is
/// what a partitioned operator looks like; the server keeps its port, so it can come back.
struct fake_operator {
  uint16_t port;
  std::mutex m;
  std::atomic<bool> down{false};
  nlohmann::json view = {{"activeSite", "a"}, {"deposing", ""}, {"epoch", 1},
                         {"observedAt", "2026-01-01T00:00:00Z"}};
  int reports = 0;
  std::unique_ptr<br::http::server> srv;

  explicit fake_operator(uint16_t p) : port(p) {}
  ~fake_operator() { stop(); }

  void set_view(uint64_t epoch, std::string active, std::string deposing = "") {
    std::lock_guard<std::mutex> g(m);
    view["epoch"] = epoch;
    view["activeSite"] = active;
    view["deposing"] = deposing;
  }

  void start() {
    br::http::router r;
    r.get("/healthz", "healthz", [this](const br::http::request&, br::http::responder reply) {
      if (down) return;  // never answered: the server gives up after its handler timeout
      reply(br::http::response::text(200, "ok"));
    });
    r.get("/active-site", "active_site", [this](const br::http::request& req, br::http::responder reply) {
      if (down) return;
      if (req.query_or("namespace") != "ns" || req.query_or("group") != "g") {
        reply(br::http::response::error(404, "group not found"));
        return;
      }
      std::lock_guard<std::mutex> g(m);
      auto body = view;
      body["namespace"] = "ns";
      body["group"] = "g";
      reply(br::http::response::json(200, body));
    });
    r.post("/sidecar/report", "report", [this](const br::http::request&, br::http::responder reply) {
      if (down) return;
      std::lock_guard<std::mutex> g(m);
      ++reports;
      reply(br::http::response::json(200, {{"ok", true}}));
    });
    br::http::server_options o;
    o.name = "fake-operator";
    o.port = port;
    o.handler_timeout = 1500ms;
    srv = std::make_unique<br::http::server>(o, std::move(r));
    srv->start();
  }
  void partition(bool on) { down = on; }
  void stop() {
    if (srv) srv->stop();
    srv.reset();
  }
};

struct sidecar {
  std::string site;
  uint16_t port;
  std::unique_ptr<child_process> proc;
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port); }

  /// Pumps the child's output and looks for `needle` in everything it printed.
  bool wait_output(const std::string& needle, std::chrono::milliseconds deadline) {
    auto until = std::chrono::steady_clock::now() + deadline;
    for (;;) {
      proc->wait_for_line("\x01", 100ms);  // pumps the pipe (never matches)
      if (proc->output().find(needle) != std::string::npos) return true;
      if (std::chrono::steady_clock::now() >= until) return false;
    }
  }
  void pump() { proc->wait_for_line("\x01", 1ms); }
};

sidecar start_sidecar(const std::string& site, int instance, uint16_t port, uint16_t op_port,
                      uint16_t peer_port, const std::string& dir) {
  sidecar s;
  s.site = site;
  s.port = port;
  std::filesystem::create_directories(dir + "/state-" + site);
  br::test::sidecar_env_options so;
  so.site = site;
  so.listen_port = port;
  so.operator_port = op_port;
  so.peer_port = peer_port;
  so.mysql_port = sandbox().port(instance);
  so.lease_timeout = "3s";
  so.fence_timeout = "10s";
  so.state_dir = dir + "/state-" + site;
  so.token_file = dir + "/token";
  auto env = br::test::sidecar_env(so);
  s.proc = std::make_unique<child_process>(binary_path("bloodraven-sidecar"),
                                           std::vector<std::string>{}, env);
  BOOST_REQUIRE_MESSAGE(s.wait_output("\"msg\":\"ready\"", 20s), s.proc->output());
  return s;
}

void stop_sidecar(sidecar& s) {
  if (!s.proc) return;
  s.proc->signal(SIGTERM);
  auto code = s.proc->wait_exit(10s);
  BOOST_TEST(code.has_value());
  s.proc.reset();  // SIGKILLs if still running
}

br::http::client_result put_view(const sidecar& s, const std::string& body,
                                 const std::string& auth) {
  br::http::client_request r;
  r.method = "PUT";
  r.url = s.base() + "/view";
  r.body = body;
  r.headers.emplace_back("Content-Type", "application/json");
  if (!auth.empty()) r.headers.emplace_back("Authorization", auth);
  r.timeout = 20s;
  return br::http::perform(r);
}

uint64_t cached_epoch(const sidecar& s) {
  auto r = br::http::client{}.get(s.base() + "/peer/active-site");
  if (r.status != 200) return 0;
  return nlohmann::json::parse(r.body).value("epoch", uint64_t{0});
}

/// Polls until `pred` holds or `deadline` passes, pumping the sidecars' output.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds deadline, std::vector<sidecar*> pump) {
  auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    for (auto* s : pump)
      if (s->proc) s->pump();
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(200ms);
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(sidecar_process)

BOOST_AUTO_TEST_CASE(fencing_with_real_mysql_and_real_sidecars) {
  // Fresh instances 7 (primary) and 8 (replica of 7).
  sandbox().reset(inst_a);
  sandbox().reset(inst_b);
  sandbox().replicate(inst_b, inst_a);
  BOOST_REQUIRE(writable(inst_a));
  // Make the replica writable too: the boot guard must fence it because the view names "a".
  make_writable(inst_b);
  BOOST_REQUIRE(writable(inst_b));

  auto dir = std::filesystem::temp_directory_path() / ("br-sidecar-it-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "token") << token << "\n";

  // Operator X is what site a reaches, Y what site b reaches (so a partition can cut only a).
  fake_operator op_x(free_port()), op_y(free_port());
  op_x.start();
  op_y.start();
  auto port_a = free_port(), port_b = free_port();
  auto a = start_sidecar("a", inst_a, port_a, op_x.port, port_b, dir.string());
  auto b = start_sidecar("b", inst_b, port_b, op_y.port, port_a, dir.string());

  // 1. Boot guard: a is named active -> fenced then unfenced; b is not -> stays fenced.
  BOOST_REQUIRE_MESSAGE(a.wait_output("\"msg\":\"boot guard finished\"", 30s), a.proc->output());
  BOOST_REQUIRE_MESSAGE(b.wait_output("\"msg\":\"boot guard finished\"", 30s), b.proc->output());
  BOOST_TEST(a.proc->output().find("\"outcome\":\"unfenced\"") != std::string::npos);
  BOOST_TEST(b.proc->output().find("confirmed standby") != std::string::npos);
  BOOST_TEST(writable(inst_a));
  BOOST_TEST(super_read_only(inst_b));
  br::http::client c;
  BOOST_TEST(c.get(a.base() + "/ready").status == 200);
  BOOST_TEST(c.get(a.base() + "/health").body == "ok");
  BOOST_TEST(c.get(a.base() + "/primary").status == 200);
  BOOST_TEST(c.get(b.base() + "/primary").status == 503);
  BOOST_TEST(c.get(b.base() + "/replica").status == 200);
  BOOST_TEST(c.get(a.base() + "/replica").status == 503);
  BOOST_TEST(c.get(a.base() + "/peer/ping").body == "pong");
  BOOST_TEST(cached_epoch(a) == 1u);
  auto st = nlohmann::json::parse(c.get(b.base() + "/status").body);
  BOOST_TEST(st["role"] == "replica");
  BOOST_TEST(st["super_read_only"] == true);
  BOOST_TEST(st["replica_io_running"] == "Yes");
  BOOST_TEST(st["server_id"] == 100 + inst_b);
  BOOST_TEST(st["self_fenced"] == false);
  BOOST_TEST(st["epoch"] == 1, b.proc->output());

  // 2. PUT /view: refused without or with a wrong token (401), malformed (400); nothing changes.
  auto deposing = R"({"epoch":2,"activeSite":"","deposing":"a","observedAt":"2026-01-01T00:00:05Z"})";
  BOOST_TEST(put_view(a, deposing, "").status == 401);
  BOOST_TEST(put_view(a, deposing, "Bearer wrong-token").status == 401);
  BOOST_TEST(put_view(a, deposing, "Basic " + token).status == 401);
  auto bad = put_view(a, R"({"epoch":2,"activeSite":""})", "Bearer " + token);
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(bad.body.find("deposing") != std::string::npos, bad.body);
  BOOST_TEST(put_view(a, "{not json", "Bearer " + token).status == 400);
  BOOST_TEST(writable(inst_a));
  BOOST_TEST(cached_epoch(a) == 1u);

  // 3. a loses its operator; its peer b answers with the same epoch and anchors: no fence
  //    although the operator stays silent for twice the lease (3 s).
  op_x.partition(true);
  std::this_thread::sleep_for(7s);
  a.pump();
  BOOST_TEST(writable(inst_a), a.proc->output());
  BOOST_TEST(a.proc->output().find("SELF-FENCED") == std::string::npos);

  // 4. Failover behind a's back: the operator (reachable by b only) now names b with epoch 3.
  //    a learns it from its peer and fences within about one tick (1 s); bound generously.
  op_y.set_view(3, "b");
  BOOST_TEST(eventually([] { return super_read_only(inst_a); }, 10s, {&a, &b}), a.proc->output());
  BOOST_TEST(a.wait_output("SELF-FENCED: super_read_only=ON has been set, only Bloodraven can restore", 5s));
  BOOST_TEST(a.proc->output().find("\"reason\":\"mismatch\"") != std::string::npos);
  BOOST_TEST(cached_epoch(a) == 3u);
  auto sa = nlohmann::json::parse(c.get(a.base() + "/status").body);
  BOOST_TEST(sa["self_fenced"] == true);
  BOOST_TEST(sa["epoch"] == 3);

  // 5. Switch back (epoch 4 names a), the operator unfences a; then a deposing view (epoch 5) is
  //    pushed: the fence is confirmed before the acknowledgement.
  op_y.set_view(4, "a");
  op_x.set_view(4, "a");
  op_x.partition(false);
  BOOST_REQUIRE(eventually([&] { return cached_epoch(a) == 4u; }, 10s, {&a, &b}));
  make_writable(inst_a);
  BOOST_REQUIRE(a.wait_output("fencing re-armed", 10s));
  BOOST_TEST(writable(inst_a));
  // An application session that the fence must kill (system and replication threads survive).
  auto app = br::mysql::connection::open(sandbox().options(inst_a, "app"));
  BOOST_REQUIRE(app.ok());
  BOOST_REQUIRE(app->query("SELECT 1").ok());
  auto ack = put_view(a, R"({"epoch":5,"activeSite":"","deposing":"a","observedAt":"2026-01-01T00:00:09Z"})",
                      "Bearer " + token);
  BOOST_TEST(ack.status == 200, ack.body);
  BOOST_TEST(super_read_only(inst_a));  // already true when the answer arrived
  auto aj = nlohmann::json::parse(ack.body, nullptr, false);
  BOOST_TEST(aj["ack"] == true);
  BOOST_TEST(aj["fenced"] == true);
  BOOST_TEST(aj["epoch"] == 5);
  BOOST_TEST(!app->query("SELECT 1").ok());  // killed by the fence
  // A stale push is refused (409) and does not lower the epoch.
  auto stale = put_view(a, R"({"epoch":4,"activeSite":"a","deposing":"","observedAt":"2026-01-01T00:00:10Z"})",
                        "Bearer " + token);
  BOOST_TEST(stale.status == 409, stale.body);
  BOOST_TEST(cached_epoch(a) == 5u);
  // The view survives a restart of the sidecar (view.json).
  stop_sidecar(a);
  BOOST_TEST(std::filesystem::exists(dir / "state-a" / "view.json"));

  // 6. Lease: a names itself (epoch 6), is writable; then the operator and the peer go away.
  op_x.set_view(6, "a");
  op_y.set_view(6, "a");
  make_writable(inst_a);
  a = start_sidecar("a", inst_a, port_a, op_x.port, port_b, dir.string());
  BOOST_REQUIRE(a.wait_output("\"msg\":\"boot guard finished\"", 30s));
  BOOST_TEST(a.proc->output().find("\"msg\":\"view loaded from file\"") != std::string::npos);
  BOOST_TEST(a.proc->output().find("\"outcome\":\"unfenced\"") != std::string::npos);
  BOOST_REQUIRE(eventually([] { return writable(inst_a); }, 10s, {&a, &b}));
  op_x.stop();  // refused from now on
  op_y.stop();
  stop_sidecar(b);
  BOOST_TEST(eventually([] { return super_read_only(inst_a); }, 20s, {&a}), a.proc->output());
  BOOST_TEST(a.wait_output("\"reason\":\"lease\"", 5s), a.proc->output());
  auto metrics = c.get(a.base() + "/metrics").body;
  BOOST_TEST(metrics.find("bloodraven_sidecar_self_fence_total{reason=\"lease\"} 1") !=
             std::string::npos, metrics);
  BOOST_TEST(metrics.find("bloodraven_sidecar_view_epoch 6") != std::string::npos);

  stop_sidecar(a);
  sandbox().stop(inst_a);
  sandbox().stop(inst_b);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
