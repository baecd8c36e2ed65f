// Dragonfly in Kubernetes mode (issue 24, acceptance 5 and the manager's Kubernetes wiring): the
// API simulator under the chart's RBAC, a SIMULATED kubelet (tests/integration/kubelet_sim.hpp:
// the StatefulSets' pods exist as objects, nothing runs in them), two real MySQL 9.7 sites
// (sandbox instances 256 primary `a`, 257 its replica `b`) and two real Valkey 9 servers standing
// in for the cache pods' Dragonfly (the operator's cache addresses are overridden to them, as the
// MySQL addresses are to the sandbox). The operator runs in this process.
//
// One scenario: spec.dragonfly.enabled -> the StatefulSets, Services and PDBs exist, the manager
// (started by the group supervisor, AUTH with the password from the auth Secret) attaches b's
// server to a's and labels a's pod master: the active Service selects a's pod only, and
// status.dragonfly says so. kill -9 of a's Valkey (MySQL untouched): b is promoted, the label
// moves to b's pod, status.dragonfly.lastFailover says MasterLost without sessions; sampled all
// along, the active Service never selects two pods. a's server back empty: it follows b, then the
// master moves back to MySQL's active site a with the catch-up (sessions preserved). enabled
// flips off: every Dragonfly object and pod is deleted and status.dragonfly removed; on again:
// they are back and a's new pod is the master.
// `kubectl bloodraven status` (real kubectl) shows the cache line.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <atomic>
#include <set>
#include <thread>

#include "actors/operator/kube/core/status_writer.hpp"
#include "config/render/dragonfly.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"
#include "io/redis/client.hpp"
#include "tests/integration/kube_operator_fixture.hpp"
#include "tests/integration/kubelet_sim.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/valkey_server.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::eventually;

namespace {

constexpr int inst_a = 256, inst_b = 257;  // this test's sandbox instances
const std::string group = "cache";
const std::string ns = "default";
const std::string password = "df-secret-pw";

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

json site(const std::string& name) {
  return {{"name", name},
          {"role", "primary-candidate"},
          {"zone", "zone-" + name},
          {"lbIP", std::string("192.0.2.") + (name == "a" ? "56" : "57")},
          {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
          {"storage", {{"size", "1Gi"}}}};
}

json dragonfly_spec(bool enabled) {
  return {{"enabled", enabled},
          {"image", "docker.dragonflydb.io/dragonflydb/dragonfly:v1.38.0"},
          {"auth", {{"secretName", group + "-dragonfly"}}},
          {"plannedFailover", {{"maxSyncWait", "10s"}}}};
}

json group_object() {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
            {"pollInterval", "500ms"},
            {"promotionPolicy", "Fast"},
            {"replication", {{"user", "repl"}, {"password", "replpw"}}},
            {"dragonfly", dragonfly_spec(true)},
            {"sites", json::array({site("a"), site("b")})}}}};
}

struct dragonfly_fixture : test::kube_operator_fixture {
  test::valkey_server va{password}, vb{password};

  dragonfly_fixture() : kube_operator_fixture(ns, {inst_a, inst_b}) {}

  void must(const std::string& error) { BOOST_TEST_REQUIRE(error.empty(), error); }

  void start_operator() {
    auto o = br::kube_sim::test::fast_group_source(cluster.client(br::kube_sim::test::operator_identity), op.io);
    o.site_address = [](const std::string&, const std::string&, const std::string& s) {
      return config::address_spec{"127.0.0.1", sandbox().port(s == "a" ? inst_a : inst_b)};
    };
    o.sidecar_address = [](const std::string&, const std::string&, const std::string&) { return std::string{}; };
    // The cache pods' Dragonfly: the real Valkey servers (in a cluster: the site's Service).
    o.dragonfly_address = [pa = va.port(), pb = vb.port()](const std::string&, const std::string&,
                                                           const std::string& s, int) {
      return "127.0.0.1:" + std::to_string(s == "a" ? pa : pb);
    };
    op.start(sys, o);
  }

  json mfg() {
    auto got = c->get(mfg_resource, ns, group);
    return got ? *got : json(nullptr);
  }
  json status() {
    auto g = mfg();
    return g.is_object() ? g.value("status", json::object()) : json::object();
  }
  json df_status() { return status().value("dragonfly", json::object()); }
  json df_site(const std::string& s) {
    for (const auto& x : df_status().value("sites", json::array()))
      if (x.value("name", "") == s) return x;
    return json::object();
  }

  /// The sites of the cache pods the active Service's selector picks (its endpoints).
  std::set<std::string> active_endpoints() {
    std::set<std::string> out;
    auto svc = c->get(kube::resources::services, ns, render::dragonfly_active_service_name(group));
    if (!svc) return out;
    std::string selector;
    for (const auto& [k, v] : (*svc)["spec"]["selector"].items())
      selector += (selector.empty() ? "" : ",") + k + "=" + v.get<std::string>();
    kube::list_options lo;
    lo.label_selector = selector;
    auto pods = c->list(kube::resources::pods, ns, lo);
    if (!pods) return out;
    for (const auto& p : (*pods)["items"]) out.insert(p["metadata"]["labels"].value("shipstream.io/site", "?"));
    return out;
  }

  /// Every Dragonfly object and pod of the group, as kind/name.
  std::vector<std::string> dragonfly_objects() {
    std::vector<std::string> out;
    kube::list_options lo;
    lo.label_selector = render::dragonfly_selector(group);
    for (const auto* r : {&kube::resources::statefulsets, &kube::resources::services, &kube::resources::pdbs,
                          &kube::resources::pods})
      if (auto l = c->list(*r, ns, lo))
        for (const auto& i : (*l)["items"]) out.push_back(r->plural + "/" + i["metadata"].value("name", ""));
    return out;
  }

  size_t events(const std::string& reason) {
    auto r = c->list(kube::resources::events, ns);
    size_t n = 0;
    if (r)
      for (const auto& e : (*r)["items"])
        if (e["involvedObject"].value("name", "") == group && e.value("reason", "") == reason) ++n;
    return n;
  }

  /// tools/kubectl-bloodraven through real kubectl: exit code and output.
  std::pair<int, std::string> plugin(std::vector<std::string> a) {
    a.insert(a.begin(), {"--kubeconfig", kubeconfig, "--cache-dir", (dir.path / "cache").string(),
                         "--request-timeout", "20s", "-n", ns});
    br::test::child_process p(br::kube_sim::test::source_path("tools/kubectl-bloodraven"), a,
                              {{"HOME", dir.path.string()}, {"KUBECONFIG", kubeconfig}});
    auto code = p.wait_exit(60s);
    BOOST_REQUIRE_MESSAGE(code.has_value(), "plugin did not finish: " + p.output());
    return {*code, p.output()};
  }

  std::unique_ptr<redis::client> cache(uint16_t port) {
    redis::connect_options o;
    o.port = port;
    o.password = password;
    o.connect_timeout = 1000ms;
    o.io_timeout = 2000ms;
    redis::redis_error err;
    auto cl = redis::client::connect(o, err);
    BOOST_REQUIRE_MESSAGE(cl, "connect " << port << ": " << err.to_string());
    return cl;
  }
  void set_key(uint16_t port, const std::string& k, const std::string& v) {
    auto r = cache(port)->command({"SET", k, v});
    BOOST_TEST_REQUIRE(r.ok(), r.error.to_string());
  }
  std::string get_key(uint16_t port, const std::string& k) {
    redis::connect_options o;
    o.port = port;
    o.password = password;
    redis::redis_error err;
    auto cl = redis::client::connect(o, err);
    if (!cl) return "";
    auto r = cl->command({"GET", k});
    return r.ok() && r.value ? r.value->str : "";
  }
};

/// Samples the active Service's endpoints on a thread until stopped: the largest count seen.
struct endpoint_sampler {
  dragonfly_fixture& f;
  std::atomic<bool> stop{false};
  std::atomic<size_t> most{0};
  std::thread t;
  explicit endpoint_sampler(dragonfly_fixture& fx) : f(fx) {
    t = std::thread([this] {
      while (!stop) {
        most = std::max<size_t>(most, f.active_endpoints().size());
        std::this_thread::sleep_for(10ms);
      }
    });
  }
  ~endpoint_sampler() { finish(); }
  size_t finish() {
    stop = true;
    if (t.joinable()) t.join();
    return most;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_dragonfly, dragonfly_fixture)

BOOST_AUTO_TEST_CASE(the_manager_labels_the_master_pod_follows_a_cache_failure_and_the_objects_go_when_disabled) {
  for (int i : {inst_a, inst_b}) sandbox().reset(i);
  sandbox().replicate(inst_b, inst_a);
  must(cluster.install_crds());
  must(cluster.create_operator_secret(ns, group + "-operator", "bloodraven", "bloodravenpw"));
  must(cluster.create(kube::resources::secrets, ns,
                      {{"apiVersion", "v1"},
                       {"kind", "Secret"},
                       {"metadata", {{"name", group + "-dragonfly"}, {"namespace", ns}}},
                       {"stringData", {{"password", password}}}}));
  kubelet->start();
  start_operator();
  must(cluster.create(mfg_resource, ns, group_object()));

  // -- enabled: objects, pods, replication, the master's label, status.dragonfly ---------------
  BOOST_TEST_REQUIRE(eventually([&] { return dragonfly_objects().size() == 9u; }, 60s),
                     "objects never created: " << json(dragonfly_objects()).dump() << " " << status().dump());
  BOOST_TEST_REQUIRE(eventually([&] {
    return status().value("activeSite", "") == "a" && active_endpoints() == std::set<std::string>{"a"} &&
           df_status().value("phase", "") == "Ready";
  }, 120s), "a's pod never became the cache master: " << status().dump());
  BOOST_TEST(df_status().value("masterSite", "") == "a");
  BOOST_TEST(df_site("a").value("role", "") == "master");
  BOOST_TEST(df_site("b").value("role", "") == "replica");
  BOOST_TEST(df_site("b").value("masterLinkStatus", "") == "up");
  BOOST_TEST(df_status().value("replTakeoverSupported", true) == false);  // Valkey has no REPLTAKEOVER
  set_key(va.port(), "session:1", "before-kill");
  BOOST_TEST(eventually([&] { return get_key(vb.port(), "session:1") == "before-kill"; }, 30s),
             "b's server never replicated a's");

  // -- kill -9 of a's cache server: b promoted, the label moves, status follows -----------------
  endpoint_sampler sampler(*this);
  va.kill9();
  BOOST_TEST_REQUIRE(eventually([&] {
    auto d = df_status();
    return active_endpoints() == std::set<std::string>{"b"} && d.value("masterSite", "") == "b";
  }, 60s), "the label never moved to b: " << status().dump());
  auto last = df_status().value("lastFailover", json::object());
  BOOST_TEST(last.value("fromSite", "") == "a", last.dump());
  BOOST_TEST(last.value("toSite", "") == "b", last.dump());
  BOOST_TEST(last.value("reason", "") == "MasterLost", last.dump());
  BOOST_TEST(last.value("method", "") == "REPLICAOF NO ONE", last.dump());
  BOOST_TEST(last.value("sessionsPreserved", true) == false, last.dump());
  BOOST_TEST(status().value("activeSite", "") == "a");  // MySQL untouched
  BOOST_TEST(get_key(vb.port(), "session:1") == "before-kill");
  BOOST_TEST(events("DragonflyMasterLost") >= 1u);

  // -- a's server back, empty: it follows b, then the master moves back to MySQL's active site ---
  set_key(vb.port(), "session:2", "on-b");
  va.start();
  BOOST_TEST_REQUIRE(eventually([&] {
    auto d = df_status();
    return active_endpoints() == std::set<std::string>{"a"} && d.value("masterSite", "") == "a" &&
           d.value("lastFailover", json::object()).value("reason", "") == "MovedToActiveSite";
  }, 60s), "the master never moved back to a: " << status().dump());
  BOOST_TEST(sampler.finish() == 1u, "the active Service selected two cache pods at once");
  last = df_status().value("lastFailover", json::object());
  BOOST_TEST(last.value("sessionsPreserved", false) == true, last.dump());
  BOOST_TEST(get_key(va.port(), "session:2") == "on-b");  // carried over by the catch-up
  BOOST_TEST(eventually([&] { return df_site("b").value("role", "") == "replica"; }, 30s), status().dump());
  auto [rc, out] = plugin({"status", group});
  BOOST_TEST(rc == 0, out);
  BOOST_TEST(out.find("master a; a=master b=replica") != std::string::npos, out);
  BOOST_TEST(out.find("last move b->a MovedToActiveSite") != std::string::npos, out);

  // -- enabled flips off: every Dragonfly object and pod goes, and status.dragonfly ------------
  auto flip = kube::update_with_retry(*c, mfg_resource, ns, group, [&](json& obj) {
    obj["spec"]["dragonfly"]["enabled"] = false;
    return true;
  });
  BOOST_TEST_REQUIRE(flip.ok(), (flip.ok() ? "" : flip.error().describe()));
  BOOST_TEST(eventually([&] { return dragonfly_objects().empty(); }, 60s),
             "left: " << json(dragonfly_objects()).dump());
  BOOST_TEST(eventually([&] { return !status().contains("dragonfly"); }, 30s), status().dump());
  BOOST_TEST(status().value("activeSite", "") == "a");

  // -- and on again: the objects come back and a's new pod is labelled master -------------------
  flip = kube::update_with_retry(*c, mfg_resource, ns, group, [&](json& obj) {
    obj["spec"]["dragonfly"]["enabled"] = true;
    return true;
  });
  BOOST_TEST_REQUIRE(flip.ok(), (flip.ok() ? "" : flip.error().describe()));
  BOOST_TEST(eventually([&] {
    return dragonfly_objects().size() == 9u && active_endpoints() == std::set<std::string>{"a"} &&
           df_status().value("phase", "") == "Ready";
  }, 60s), "not back: " << json(dragonfly_objects()).dump() << " " << status().dump());
}

BOOST_AUTO_TEST_SUITE_END()
