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

#include "actors/common/authority.hpp"
#include "actors/common/key_dir.hpp"
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
const std::string group_key = "ns/g";  // what signed statements name (namespace/group)

/// The operator's keys of the test's keys directory (written by write_key_dir).
br::auth::key_ring operator_ring(const std::string& keys_dir) {
  auto l = br::auth::load_operator_keys(keys_dir, {"a", "b"});
  BOOST_REQUIRE_MESSAGE(l.ring.has_value(), l.error);
  return *l.ring;
}

/// A view as the operator pushes it: signed, with a fresh nonce.
std::string signed_push(const br::crypto::signing_key& key, uint64_t epoch, const std::string& active,
                        const std::string& deposing, const std::string& group = group_key) {
  auto v = br::auth::sign_view(key, group, br::topology_view{epoch, active, deposing, 0, {}});
  return nlohmann::json{{"epoch", epoch},        {"activeSite", active},
                        {"deposing", deposing},  {"observedAt", "2026-01-01T00:00:05Z"},
                        {"signature", v.signature}, {"nonce", br::auth::new_nonce()}}
      .dump();
}

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

/// The fake operator: /healthz, /active-site with a view the test controls (signed with the
/// operator key of the test's keys directory, over the caller's nonce, as bloodraven does),
/// /sidecar/report. `partition(true)` makes it stop answering (requests hang until the sidecar's
/// timeout), which is what a partitioned operator looks like; the server keeps its port, so it
/// can come back. `non_leader(true)` makes /active-site answer 503 while /healthz stays 200 (a
/// standby replica of the operator).
struct fake_operator {
  uint16_t port;
  br::auth::key_ring keys;
  std::mutex m;
  std::atomic<bool> down{false};
  std::atomic<bool> standby{false};
  br::topology_view view{1, "a", "", 0, {}};
  int reports = 0;
  std::unique_ptr<br::http::server> srv;

  fake_operator(uint16_t p, br::auth::key_ring k) : port(p), keys(std::move(k)) {}
  ~fake_operator() { stop(); }

  void set_view(uint64_t epoch, std::string active, std::string deposing = "") {
    std::lock_guard<std::mutex> g(m);
    view = br::topology_view{epoch, std::move(active), std::move(deposing), 0, {}};
  }

  void start() {
    br::http::router r;
    r.get("/healthz", "healthz", [this](const br::http::request&, br::http::responder reply) {
      if (down) return;  // never answered: the server gives up after its handler timeout
      reply(br::http::response::text(200, "ok"));
    });
    r.get("/active-site", "active_site", [this](const br::http::request& req, br::http::responder reply) {
      if (down) return;
      if (standby) {
        reply(br::http::response::error(503, "no topology managers are running"));
        return;
      }
      if (req.query_or("namespace") != "ns" || req.query_or("group") != "g") {
        reply(br::http::response::error(404, "group not found"));
        return;
      }
      std::lock_guard<std::mutex> g(m);
      auto v = br::auth::sign_view(*keys.signer, group_key, view);
      auto res = br::http::response::json(
          200, {{"namespace", "ns"}, {"group", "g"}, {"activeSite", v.active_site},
                {"epoch", v.epoch}, {"deposing", v.deposing}, {"signature", v.signature},
                {"nonce", std::string(req.query_or("nonce"))}});
      res.headers.emplace_back(br::auth::signature_header,
                               br::auth::sign_body(*keys.signer, br::auth::purpose::operator_answer,
                                                   group_key, res.body));
      reply(res);
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
  void non_leader(bool on) { standby = on; }
  void stop() {
    if (srv) srv->stop();
    srv.reset();
  }
};

/// A pod on the peer's address that is not a sidecar of this group: it answers
/// /peer/active-site with whatever the test sets (forged views, another group's view).
struct fake_peer {
  uint16_t port;
  std::mutex m;
  std::string body;
  std::string signature;
  std::unique_ptr<br::http::server> srv;

  explicit fake_peer(uint16_t p) : port(p) {}
  ~fake_peer() {
    if (srv) srv->stop();
  }
  void answer(std::string b, std::string sig) {
    std::lock_guard<std::mutex> g(m);
    body = std::move(b);
    signature = std::move(sig);
  }
  void start() {
    br::http::router r;
    r.get("/peer/active-site", "peer_active_site",
          [this](const br::http::request&, br::http::responder reply) {
            std::lock_guard<std::mutex> g(m);
            br::http::response res;
            res.status = 200;
            res.content_type = "application/json";
            res.body = body;
            if (!signature.empty()) res.headers.emplace_back(br::auth::signature_header, signature);
            reply(res);
          });
    br::http::server_options o;
    o.name = "fake-peer";
    o.port = port;
    srv = std::make_unique<br::http::server>(o, std::move(r));
    srv->start();
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
                      uint16_t peer_port, const std::string& dir, bool dead_mans_switch = true) {
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
  so.keys_dir = dir + "/keys";
  so.dead_mans_switch = dead_mans_switch;
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

br::http::client_result put_view(const sidecar& s, const std::string& body) {
  br::http::client_request r;
  r.method = "PUT";
  r.url = s.base() + "/view";
  r.body = body;
  r.headers.emplace_back("Content-Type", "application/json");
  r.timeout = 20s;
  return br::http::perform(r);
}

uint64_t cached_epoch(const sidecar& s) {
  auto r = br::http::client{}.get(s.base() + "/peer/active-site?nonce=" + br::auth::new_nonce());
  if (r.status != 200) return 0;
  return nlohmann::json::parse(r.body)["view"].value("epoch", uint64_t{0});
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
  BOOST_REQUIRE(br::auth::write_key_dir((dir / "keys").string(), {"a", "b"}).empty());
  auto ring = operator_ring((dir / "keys").string());
  const auto& opkey = *ring.signer;
  auto attacker = *br::crypto::generate_key();

  // Operator X is what site a reaches, Y what site b reaches (so a partition can cut only a).
  fake_operator op_x(free_port(), ring), op_y(free_port(), ring);
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

  // 2. PUT /view: only a view the operator signed for this group is taken. Unsigned, signed by
  //    another key, signed for another group, without a nonce, malformed: refused; nothing
  //    changes.
  auto deposing = nlohmann::json::parse(signed_push(opkey, 2, "", "a"));
  auto unsigned_push = deposing;
  unsigned_push.erase("signature");
  BOOST_TEST(put_view(a, unsigned_push.dump()).status == 400);
  BOOST_TEST(put_view(a, signed_push(attacker, 2, "", "a")).status == 403);
  BOOST_TEST(put_view(a, signed_push(opkey, 2, "", "a", "ns/other")).status == 403);
  auto tampered = deposing;
  tampered["epoch"] = 3;  // signed for epoch 2
  BOOST_TEST(put_view(a, tampered.dump()).status == 403);
  auto no_nonce = deposing;
  no_nonce.erase("nonce");
  BOOST_TEST(put_view(a, no_nonce.dump()).status == 400);
  auto bad = put_view(a, R"({"epoch":2,"activeSite":""})");
  BOOST_TEST(bad.status == 400);
  BOOST_TEST(bad.body.find("deposing") != std::string::npos, bad.body);
  BOOST_TEST(put_view(a, "{not json").status == 400);
  BOOST_TEST(put_view(a, std::string(100000, '[')).status / 100 == 4);
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
  auto push5 = signed_push(opkey, 5, "", "a");
  auto ack = put_view(a, push5);
  BOOST_TEST(ack.status == 200, ack.body);
  BOOST_TEST(super_read_only(inst_a));  // already true when the answer arrived
  auto aj = nlohmann::json::parse(ack.body, nullptr, false);
  BOOST_TEST(aj["ack"] == true);
  BOOST_TEST(aj["fenced"] == true);
  BOOST_TEST(aj["epoch"] == 5);
  // The acknowledgement is signed by a's own key over the push's nonce: the operator can tell it
  // from an impostor's.
  BOOST_TEST(aj["site"] == "a");
  BOOST_TEST(aj["nonce"] == nlohmann::json::parse(push5)["nonce"]);
  auto a_keys = br::auth::load_operator_keys((dir / "keys").string(), {"a", "b"}).ring->site_keys["a"];
  BOOST_TEST(br::auth::body_verifies(a_keys, br::auth::purpose::ack, group_key, ack.body,
                                     ack.header("x-bloodraven-signature").value_or("")));
  BOOST_TEST(!app->query("SELECT 1").ok());  // killed by the fence
  // A stale push is refused (409) and does not lower the epoch.
  auto stale = put_view(a, signed_push(opkey, 4, "a", ""));
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

BOOST_AUTO_TEST_CASE(forged_views_fence_nothing_and_a_standby_operator_renews_no_lease) {
  // One real sidecar (site a, writable primary on instance 7). Its peer address is held by a pod
  // that is not a sidecar of this group, and answers with forged or foreign views.
  sandbox().reset(inst_a);
  make_writable(inst_a);  // the sandbox boots fenced (S5); this is the group's primary
  BOOST_REQUIRE(writable(inst_a));
  auto dir = std::filesystem::temp_directory_path() / ("br-sidecar-forge-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  BOOST_REQUIRE(br::auth::write_key_dir((dir / "keys").string(), {"a", "b"}).empty());
  auto ring = operator_ring((dir / "keys").string());
  auto attacker = *br::crypto::generate_key();
  auto b_key = br::crypto::signing_key_from_pem([&] {
    std::ifstream in(dir / "keys" / "site-b.key");
    return std::string(std::istreambuf_iterator<char>(in), {});
  }()).key;
  BOOST_REQUIRE(b_key.has_value());

  fake_operator op(free_port(), ring);
  op.set_view(5, "a");
  op.start();
  fake_peer peer(free_port());
  peer.start();
  // The in-database dead man's switch is off here: it fires on the same lease, and on a loaded
  // host it can win the race and fence first (the sidecar then has nothing left to fence and
  // logs no lease reason). This case proves the sidecar's own lease rule.
  auto a = start_sidecar("a", inst_a, free_port(), op.port, peer.port, dir.string(), false);
  BOOST_REQUIRE_MESSAGE(a.wait_output("\"msg\":\"boot guard finished\"", 30s), a.proc->output());
  BOOST_REQUIRE(eventually([&] { return cached_epoch(a) == 5u; }, 10s, {&a}));
  BOOST_REQUIRE(writable(inst_a));

  // A peer answer as site b would give it (its nonce is not known in advance, so a forger can
  // only replay or invent one: the sidecar must not care, the view's signature decides).
  auto answer = [&](const br::crypto::signing_key& view_key, const std::string& group,
                    uint64_t epoch, const std::string& active, const std::string& deposing) {
    auto v = br::auth::sign_view(view_key, group, br::topology_view{epoch, active, deposing, 0, {}});
    auto body = nlohmann::json{{"site", "b"}, {"group", group_key}, {"nonce", "00000000000000000000000000000000"},
                               {"view", {{"epoch", epoch}, {"activeSite", active}, {"deposing", deposing},
                                         {"observedAt", "2026-01-01T00:00:00Z"},
                                         {"signature", v.signature}}}}
                    .dump();
    peer.answer(body, br::auth::sign_body(*b_key, br::auth::purpose::peer_answer, group_key, body));
  };
  struct forgery {
    const char* what;
    const br::crypto::signing_key* key;
    std::string group;
    uint64_t epoch;
    std::string active, deposing;
  };
  const std::vector<forgery> forgeries = {
      {"higher epoch naming b", &attacker, group_key, 1000, "b", ""},
      {"higher epoch deposing a", &attacker, group_key, 1000, "", "a"},
      {"same epoch naming b", &attacker, group_key, 5, "b", ""},
      {"the operator's own view of another group", &*ring.signer, "ns/other", 1000, "b", ""},
  };
  for (const auto& f : forgeries) {
    BOOST_TEST_CONTEXT(f.what) {
      answer(*f.key, f.group, f.epoch, f.active, f.deposing);
      std::this_thread::sleep_for(3s);  // three ticks: each pulls the peer
      a.pump();
      BOOST_TEST(writable(inst_a), a.proc->output());
      BOOST_TEST(cached_epoch(a) == 5u);
    }
  }
  BOOST_TEST(a.proc->output().find("SELF-FENCED") == std::string::npos, a.proc->output());

  // A genuine view relayed by the peer is adopted (the operator signed it): the real failover
  // path still works through peers.
  answer(*ring.signer, group_key, 6, "b", "");
  BOOST_TEST(eventually([&] { return super_read_only(inst_a); }, 10s, {&a}), a.proc->output());
  BOOST_TEST(cached_epoch(a) == 6u);

  // Back to a primary at epoch 7; then the operator process loses its leadership: /healthz stays
  // 200 but it can serve no view. The peer answers nothing that anchors. The lease (3 s) must
  // run out: a fences itself.
  op.set_view(7, "a");
  answer(attacker, group_key, 7, "a", "");
  BOOST_REQUIRE(eventually([&] { return cached_epoch(a) == 7u; }, 10s, {&a}));
  make_writable(inst_a);
  BOOST_REQUIRE(a.wait_output("fencing re-armed", 10s));
  BOOST_REQUIRE(writable(inst_a));
  op.non_leader(true);
  BOOST_TEST(eventually([] { return super_read_only(inst_a); }, 15s, {&a}), a.proc->output());
  BOOST_TEST(a.wait_output("\"reason\":\"lease\"", 5s), a.proc->output());

  stop_sidecar(a);
  sandbox().stop(inst_a);
  std::filesystem::remove_all(dir);
}

BOOST_AUTO_TEST_SUITE_END()
