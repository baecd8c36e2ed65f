// Kubernetes mode under policy Safe with real sidecars: the operator's group source (in process)
// against the API simulator, its status API on loopback, two real MySQL 9.7 sites (sandbox
// instances 46 and 47 ONLY) and two real bloodraven-sidecar processes. The sidecars' keys come
// from the keys Secret the operator generated for the group; the test does the kubelet's part and
// projects, per site, what its Deployment mounts (operator.pub, that site's own private key, the
// sites' public keys) into the directory the sidecar reads (KEYS_DIR). kill -9 of the primary's
// mysqld must be promoted through gate rule 2: its sidecar, whose mysqld is down, acknowledges the
// signed deposing view with its own key. Without the keys, Safe could never open the gate here.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "actors/operator/kube/core/generated_credentials.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "actors/operator/kube/core/kube_credentials.hpp"
#include "actors/operator/api/operator_api.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "io/http/server.hpp"
#include "io/http/websocket_hub.hpp"
#include "io/log/log.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/sidecar_env.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/ws_client.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;
using br::test::binary_path;
using br::test::child_process;
using br::test::free_port;
using nlohmann::json;

namespace {

constexpr int inst_a = 46, inst_b = 47;  // this test's sandbox instances
const std::string group = "gk";
const std::string ns = "default";

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

// The operator's log lines (in process), kept for the assertions and for failure output.
std::mutex log_mutex;
std::string log_text;
void capture(const std::string& line) {
  std::lock_guard<std::mutex> g(log_mutex);
  log_text += line;
  log_text += '\n';
}
std::string operator_log() {
  std::lock_guard<std::mutex> g(log_mutex);
  return log_text.size() > 20000 ? log_text.substr(log_text.size() - 20000) : log_text;
}
bool operator_logged(const std::string& needle) {
  std::lock_guard<std::mutex> g(log_mutex);
  return log_text.find(needle) != std::string::npos;
}

bool writable(int i) {
  auto r = sandbox().run({"sql", std::to_string(i), "SELECT @@global.read_only + @@global.super_read_only"});
  return r.exit_code == 0 && r.out == "0";
}

struct sidecar_process {
  std::unique_ptr<child_process> proc;
  bool saw(const std::string& needle) {
    if (!proc) return false;
    proc->wait_for_line("\x01", 1ms);
    return proc->output().find(needle) != std::string::npos;
  }
  void stop() {
    if (!proc) return;
    proc->signal(SIGTERM);
    proc->wait_exit(15s);
    proc.reset();
  }
};

bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout) {
  return br::test::eventually(pred, timeout, 100ms);
}

struct gate_fixture {
  br::kube_sim::test::sim_cluster cluster{false};  // no RBAC: integration_kube_rbac's subject
  std::shared_ptr<kube::client> c = cluster.client(br::kube_sim::test::operator_identity);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  br::kube_sim::test::operator_actors op;
  std::shared_ptr<group_table> groups = std::make_shared<group_table>();
  std::shared_ptr<http::websocket_hub> ws =
      std::make_shared<http::websocket_hub>(http::websocket_options{});
  std::unique_ptr<http::server> api;
  uint16_t op_port = 0;
  uint16_t sc_a = free_port(), sc_b = free_port();
  std::filesystem::path dir;
  sidecar_process side_a, side_b;

  gate_fixture() {
    log::set_level(std::getenv("BR_TEST_DEBUG") ? log::level::debug : log::level::info);
    log::set_sink(capture);
    std::string tmpl = (std::filesystem::temp_directory_path() / "br-kube-gate-XXXXXX").string();
    BOOST_REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
    op.spawn(sys);
    operator_api_options ao;
    ao.groups = groups;
    ao.ws = ws;
    http::router r;
    install_operator_routes(r, sys, ao);
    http::server_options so;
    so.port = 0;
    api = std::make_unique<http::server>(so, r);
    op_port = api->start();
  }

  ~gate_fixture() {
    side_a.stop();
    side_b.stop();
    op.stop(self);
    groups->drop_handles();
    ws->close_all();
    api->stop();
    log::set_sink(nullptr);
    log::set_level(log::level::warn);
    for (int i : {inst_a, inst_b}) sandbox().run({"stop", std::to_string(i)});
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  void must(const std::string& error) { BOOST_TEST_REQUIRE(error.empty(), error); }

  void start_operator() {
    auto o = br::kube_sim::test::fast_group_source(c, op.io);
    o.groups = groups;
    o.ws = ws;
    o.reconcile = false;  // workloads are integration_kube_e2e's subject; here: the gate
    o.site_address = [](const std::string&, const std::string&, const std::string& s) {
      return config::address_spec{"127.0.0.1", sandbox().port(s == "a" ? inst_a : inst_b)};
    };
    auto a = sc_a, b = sc_b;
    o.sidecar_address = [a, b](const std::string&, const std::string&, const std::string& s) {
      return "127.0.0.1:" + std::to_string(s == "a" ? a : b);
    };
    op.start(sys, o);
  }

  json group_object() {
    auto site = [](const std::string& name) {
      return json{{"name", name},
                  {"role", "primary-candidate"},
                  {"zone", "zone-" + name},
                  {"taintNodeSelector", {{"shipstream.io/site.gk", name}}},  // no such nodes here
                  {"lbIP", name == "a" ? "192.0.2.46" : "192.0.2.47"},
                  {"storage", {{"size", "1Gi"}}}};
    };
    return {{"apiVersion", "shipstream.io/v1alpha1"},
            {"kind", "MysqlFailoverGroup"},
            {"metadata", {{"name", group}, {"namespace", ns}}},
            {"spec",
             {{"credentials", {{"operatorSecret", group + "-operator"}}},
              {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
              {"pollInterval", "250ms"},
              {"failureThreshold", 2},
              {"recoveryThreshold", 1},
              {"failoverCooldown", "2s"},
              {"relayDrainTimeout", "5s"},
              {"promotionPolicy", "Safe"},
              {"promotionGateTimeout", "90s"},
              {"sidecar", {{"leaseTimeout", "4s"}, {"peerCheckInterval", "1s"}, {"fenceTimeout", "5s"}}},
              {"replication", {{"user", "repl"}, {"password", "replpw"}}},
              {"sites", json::array({site("a"), site("b")})}}}};
  }

  json status() {
    auto g = c->get(mfg_resource, ns, group);
    return g ? (*g).value("status", json::object()) : json::object();
  }
  std::string active() { return status().value("activeSite", ""); }

  /// The kubelet's part: the items of the group's keys Secret that site `site`'s Deployment
  /// projects (render_deployment), as files in a directory of their own.
  std::filesystem::path mount_keys(const std::string& site) {
    auto s = c->get(kube::resources::secrets, ns, "mysql-" + group + "-keys");
    BOOST_TEST_REQUIRE(s.ok(), "no keys Secret: " << (s.ok() ? "" : s.error().describe()));
    auto data = secret_data(*s);
    auto path = dir / ("keys-" + site);
    std::filesystem::create_directories(path);
    for (const auto& [k, v] : data) {
      bool mine = k == "operator.pub" || k == "site-" + site + ".key" ||
                  (k.rfind("site-", 0) == 0 && k.size() > 4 && k.substr(k.size() - 4) == ".pub");
      if (mine) std::ofstream(path / k) << v;
    }
    BOOST_TEST_REQUIRE(std::filesystem::exists(path / ("site-" + site + ".key")));
    return path;
  }

  void start_sidecar(sidecar_process& p, const std::string& site, int inst, uint16_t port,
                     uint16_t peer, const std::filesystem::path& keys_dir) {
    std::filesystem::create_directories(dir / ("sc-" + site));
    test::sidecar_env_options so;
    so.site = site;
    so.ns = ns;
    so.group = group;
    so.listen_port = port;
    so.operator_port = op_port;
    so.peer_port = peer;
    so.mysql_port = sandbox().port(inst);
    so.state_dir = (dir / ("sc-" + site)).string();
    so.keys_dir = keys_dir.string();
    auto env = test::sidecar_env(so);
    p.proc = std::make_unique<child_process>(binary_path("bloodraven-sidecar"),
                                             std::vector<std::string>{}, env);
    BOOST_REQUIRE_MESSAGE(eventually([&] { return p.saw("\"msg\":\"ready\""); }, 30s),
                          p.proc->output());
  }

  /// A fresh /ws/status client sees a message for the group naming `site` active within 30 s.
  bool ws_shows_active(const std::string& site) {
    test::ws_client client(op_port);
    if (!client.open()) return false;
    auto until = std::chrono::steady_clock::now() + 30s;
    while (std::chrono::steady_clock::now() < until) {
      auto m = json::parse(test::read_within(client, 5s), nullptr, false);
      if (!m.is_object()) return false;  // closed or timed out
      if (m.value("group", "") == group && m.value("activeSite", "") == site) return true;
    }
    return false;
  }

  std::string logs() {
    std::string s = "--- operator\n" + operator_log();
    for (auto* p : {&side_a, &side_b})
      if (p->proc) {
        p->saw("");
        auto out = p->proc->output();
        s += "--- sidecar\n" + (out.size() > 8000 ? out.substr(out.size() - 8000) : out);
      }
    return s;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_gate, gate_fixture)

BOOST_AUTO_TEST_CASE(safe_failover_in_kubernetes_mode_opens_the_gate_on_the_old_primarys_sidecar) {
  for (int i : {inst_a, inst_b}) sandbox().reset(i);
  sandbox().replicate(inst_b, inst_a);
  must(cluster.install_crds());
  must(cluster.create_operator_secret(ns, group + "-operator", "bloodraven", "bloodravenpw"));
  start_operator();
  must(cluster.create(mfg_resource, ns, group_object()));
  BOOST_TEST_REQUIRE(eventually([&] { return active() == "a"; }, 60s),
                     "a never active: " << status().dump() << "\n" << logs());
  // Kubernetes mode feeds GET /ws/status (and so the dashboard) like standalone mode.
  BOOST_TEST(ws_shows_active("a"));

  // The keys the operator generated for the group reach each sidecar as its projected Secret.
  start_sidecar(side_a, "a", inst_a, sc_a, sc_b, mount_keys("a"));
  start_sidecar(side_b, "b", inst_b, sc_b, sc_a, mount_keys("b"));
  BOOST_TEST_REQUIRE(eventually([&] { return writable(inst_a) && !writable(inst_b); }, 30s),
                     logs());

  // kill -9 of a's mysqld: a's sidecar lives, acknowledges the deposing view (its server boots
  // fenced, S5), and the gate opens on rule 2, not on rule 3's lease-length wait.
  sandbox().kill9(inst_a);
  BOOST_TEST_REQUIRE(eventually([&] { return active() == "b"; }, 60s),
                     "no failover to b: " << status().dump() << "\n" << logs());
  BOOST_TEST(operator_logged("old primary's sidecar acknowledged the deposing view (gate rule 2)"),
             logs());
  BOOST_TEST(operator_logged("\"rule\":\"rule2-old-primary-acked\""), logs());
  BOOST_TEST(!operator_logged("\"rule\":\"rule3-peers-acked-lease-waited\""), logs());
  BOOST_TEST(eventually([&] { return writable(inst_b); }, 30s), logs());
  BOOST_TEST(ws_shows_active("b"));
}

BOOST_AUTO_TEST_SUITE_END()
