// Manual fence in Kubernetes mode (issue 20, acceptance 6). The API simulator with a SIMULATED
// kubelet (tests/integration/kubelet_sim.hpp: no pod runs; labels are what the router writes),
// three real MySQL 9.7 sites (sandbox instances 95 primary `a`, 96-97 its replicas `b`, `c`), the
// operator in this process under the chart's RBAC, and tools/kubectl-bloodraven through real
// kubectl. Fencing the replica takes it out of the -replicas Service (its pod no longer matches
// the Service's selector), keeps it super_read_only, shows it in status and Events; fencing the
// active primary is refused in one line by the plugin and, written by hand, by the operator
// (FenceRejected, nothing changes); unfencing brings the replica back.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <set>

#include "actors/common/registry.hpp"
#include "actors/operator/group/site_io.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "io/codec/base64.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "tests/integration/kubelet_sim.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/chart_rbac.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/mysql_sandbox.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::eventually;

namespace {

constexpr int inst_a = 95, inst_b = 96, inst_c = 97;  // this test's sandbox instances
const std::string group = "mf";
const std::string ns = "default";
const std::string annotation = "bloodraven.shipstream.io/fenced-sites";

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

std::string source(const std::string& rel) {
  const char* src = std::getenv("BR_SOURCE_DIR");
  return std::string{src ? src : "."} + "/" + rel;
}

json site(const std::string& name) {
  return {{"name", name},
          {"role", "primary-candidate"},
          {"zone", "zone-" + name},
          {"lbIP", std::string("192.0.2.") + (name == "a" ? "95" : name == "b" ? "96" : "97")},
          {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
          {"storage", {{"size", "1Gi"}}}};
}

json group_object() {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
            {"pollInterval", "250ms"},
            {"failureThreshold", 2},
            {"recoveryThreshold", 1},
            {"promotionPolicy", "Fast"},
            {"replication", {{"user", "repl"}, {"password", "replpw"}, {"tls", true}}},
            {"sites", json::array({site("a"), site("b"), site("c")})}}}};
}

struct fence_fixture {
  br::kube_sim::simulator sim;
  br::kube_sim::test::temp_dir dir;
  std::string kubeconfig;
  std::shared_ptr<kube::client> c;
  std::shared_ptr<kube::client> operator_client;
  std::unique_ptr<test::kubelet_sim> kubelet;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  registry_actor registry;
  site_io_actor io;
  caf::actor root;

  fence_fixture() {
    log::set_level(log::level::warn);
    sim.set_rbac(br::kube_sim::chart_operator_rbac(source("charts/bloodraven"), {"operator-0"}));
    sim.start();
    kubeconfig = sim.write_kubeconfig(dir.path.string());
    kube::client_options co;
    co.timeout = 5s;
    co.identity = "test";
    c = std::make_shared<kube::client>(br::kube_sim::test::sim_config(sim), co);
    co.identity = "operator-0";
    operator_client = std::make_shared<kube::client>(br::kube_sim::test::sim_config(sim), co);
    co.identity = "kubelet-sim";
    kubelet = std::make_unique<test::kubelet_sim>(
        std::make_shared<kube::client>(br::kube_sim::test::sim_config(sim), co), ns);
    registry = spawn_registry(sys);
    io = spawn_site_io(sys);
  }

  ~fence_fixture() {
    if (root) self->request(root, 30s, stop_atom::value).receive([](bool) {}, [](caf::error&) {});
    kubelet->stop();
    for (const auto& d : sim.denials())
      BOOST_ERROR("operator request refused by the chart's RBAC: " << d.method << " " << d.path);
    self->send_exit(io, caf::exit_reason::user_shutdown);
    self->send_exit(registry, caf::exit_reason::user_shutdown);
    sim.stop();
    for (int i : {inst_a, inst_b, inst_c}) sandbox().run({"stop", std::to_string(i)});
  }

  void must_create(const kube::resource_ref& r, const std::string& in_ns, const json& obj) {
    auto made = c->create(r, in_ns, obj);
    BOOST_TEST_REQUIRE(made.ok(), "create: " << (made.ok() ? "" : made.error().describe()));
  }

  void start_operator() {
    group_source_options o;
    o.client = operator_client;
    o.site_io = io;
    o.instance = "operator-0";
    o.operator_namespace = "bloodraven-system";
    o.site_address = [](const std::string&, const std::string&, const std::string& s) {
      return config::address_spec{"127.0.0.1",
                                  sandbox().port(s == "a" ? inst_a : s == "b" ? inst_b : inst_c)};
    };
    o.sidecar_address = [](const std::string&, const std::string&, const std::string&) {
      return std::string{};
    };
    o.status_backoff_initial = 100ms;
    o.status_backoff_max = 400ms;
    o.status_coalesce = 50ms;
    o.reflector.backoff_initial = 50ms;
    o.reflector.backoff_max = 500ms;
    o.reconcile_interval = 300ms;
    o.reconcile_busy_interval = 300ms;
    o.restart_delay = 500ms;
    root = spawn_supervisor(sys, "root", restart_policy{}, {group_source_child(o)});
  }

  json mfg() {
    auto got = c->get(mfg_resource, ns, group);
    return got ? *got : json(nullptr);
  }
  json status() {
    auto g = mfg();
    return g.is_object() ? g.value("status", json::object()) : json::object();
  }
  json site_status(const std::string& s) {
    for (const auto& x : status().value("sites", json::array()))
      if (x.value("name", "") == s) return x;
    return json::object();
  }
  std::string condition_reason(const std::string& type) {
    for (const auto& cnd : status().value("conditions", json::array()))
      if (cnd.value("type", "") == type) return cnd.value("reason", "");
    return "";
  }

  /// The sites whose pods the -replicas Service's selector picks (its endpoints).
  std::set<std::string> replicas_endpoints() {
    std::set<std::string> out;
    auto svc = c->get(kube::resources::services, ns, "mysql-" + group + "-replicas");
    if (!svc) return out;
    std::string selector;
    for (const auto& [k, v] : (*svc)["spec"]["selector"].items())
      selector += (selector.empty() ? "" : ",") + k + "=" + v.get<std::string>();
    kube::list_options lo;
    lo.label_selector = selector;
    auto pods = c->list(kube::resources::pods, ns, lo);
    if (!pods) return out;
    for (const auto& p : (*pods)["items"])
      out.insert(p["metadata"]["labels"].value("shipstream.io/site", "?"));
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

  std::optional<mysql::probe_result> probe(int i) {
    auto conn = mysql::connection::open(sandbox().options(i, "bloodraven"));
    if (!conn.ok()) return std::nullopt;
    auto p = mysql::probe(*conn, mysql::mysql8());
    if (!p.ok()) return std::nullopt;
    return *p;
  }

  /// tools/kubectl-bloodraven through real kubectl: exit code and output.
  std::pair<int, std::string> plugin(std::vector<std::string> a) {
    a.insert(a.begin(), {"--kubeconfig", kubeconfig, "--cache-dir", (dir.path / "cache").string(),
                         "--request-timeout", "20s", "-n", ns});
    br::test::child_process p(source("tools/kubectl-bloodraven"), a,
                              {{"HOME", dir.path.string()}, {"KUBECONFIG", kubeconfig}});
    auto code = p.wait_exit(60s);
    BOOST_REQUIRE_MESSAGE(code.has_value(), "plugin did not finish: " + p.output());
    return {*code, p.output()};
  }

  void annotate(const std::string& value) {
    auto r = kube::update_with_retry(*c, mfg_resource, ns, group, [&](json& obj) {
      obj["metadata"]["annotations"][annotation] = value;
      return true;
    });
    BOOST_TEST_REQUIRE(r.ok(), "annotate: " << (r.ok() ? "" : r.error().describe()));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_manual_fence, fence_fixture)

BOOST_AUTO_TEST_CASE(a_fenced_replica_leaves_the_replicas_service_and_the_primary_is_refused) {
  for (int i : {inst_a, inst_b, inst_c}) sandbox().reset(i);
  sandbox().replicate(inst_b, inst_a);
  sandbox().replicate(inst_c, inst_a);
  must_create(kube::resources::crds, "",
              br::kube_sim::test::yaml_to_json(YAML::LoadFile(
                  source("charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"))));
  must_create(kube::resources::crds, "", br::kube_sim::test::dns_endpoint_crd());
  must_create(kube::resources::secrets, ns,
              {{"apiVersion", "v1"},
               {"kind", "Secret"},
               {"metadata", {{"name", group + "-operator"}, {"namespace", ns}}},
               {"data",
                {{"username", base64_encode("bloodraven")}, {"password", base64_encode("bloodravenpw")}}}});
  kubelet->start();
  start_operator();
  must_create(mfg_resource, ns, group_object());

  // The group settles: a active, b behind -replicas.
  BOOST_TEST_REQUIRE(eventually([&] {
    return status().value("activeSite", "") == "a" &&
           replicas_endpoints() == std::set<std::string>{"b", "c"};
  }, 120s), "never settled: " << status().dump() << " replicas " << replicas_endpoints().size());

  // -- the plugin refuses the active primary in one line, and writes nothing ------------------
  auto [rc_a, out_a] = plugin({"fence", "on", "a"});
  BOOST_TEST(rc_a != 0);
  BOOST_TEST(out_a.find("site a is the active primary of mf") != std::string::npos, out_a);
  BOOST_TEST(std::count(out_a.begin(), out_a.end(), '\n') <= 1, out_a);
  BOOST_TEST(!mfg()["metadata"].value("annotations", json::object()).contains(annotation));

  // -- fence the replica through the plugin: it leaves -replicas, stays read-only -------------
  auto [rc_b, out_b] = plugin({"fence", "on", "b"});
  BOOST_TEST_REQUIRE(rc_b == 0, out_b);
  BOOST_TEST(mfg()["metadata"]["annotations"].value(annotation, "") == "b");
  BOOST_TEST_REQUIRE(eventually([&] {
    return site_status("b").value("manuallyFenced", false) &&
           replicas_endpoints() == std::set<std::string>{"c"};
  }, 60s), "b never left -replicas: " << status().dump());
  BOOST_TEST(events("SiteFenced") >= 1u);
  BOOST_TEST(condition_reason("SitesFenced") == "ManuallyFenced");
  BOOST_TEST(status().value("activeSite", "") == "a");
  auto pb = probe(inst_b);
  BOOST_REQUIRE(pb.has_value());
  BOOST_TEST(pb->super_read_only);
  auto [rc_s, out_s] = plugin({"status", group});
  BOOST_TEST(out_s.find("b (fenced)") != std::string::npos, out_s);
  // c is now the only failover candidate left: the plugin refuses to fence it.
  auto [rc_c, out_c] = plugin({"fence", "on", "c"});
  BOOST_TEST(rc_c != 0);
  BOOST_TEST(out_c.find("would leave no failover candidate") != std::string::npos, out_c);
  BOOST_TEST(mfg()["metadata"]["annotations"].value(annotation, "") == "b");

  // -- written by hand, the primary in the annotation is refused by the operator ---------------
  annotate("a,b");
  BOOST_TEST_REQUIRE(eventually([&] { return events("FenceRejected") >= 1u; }, 30s),
                     "no FenceRejected: " << status().dump());
  BOOST_TEST(condition_reason("SitesFenced") == "FenceRejected");
  BOOST_TEST(!site_status("a").value("manuallyFenced", false));
  BOOST_TEST(site_status("b").value("manuallyFenced", false));  // unchanged: still b only
  BOOST_TEST(status().value("activeSite", "") == "a");
  auto pa = probe(inst_a);
  BOOST_REQUIRE(pa.has_value());
  BOOST_TEST(!pa->read_only);  // the primary still takes writes

  // -- unfence through the plugin: b is back behind -replicas ----------------------------------
  annotate("b");
  auto [rc_off, out_off] = plugin({"fence", "off", "b"});
  BOOST_TEST_REQUIRE(rc_off == 0, out_off);
  BOOST_TEST(!mfg()["metadata"].value("annotations", json::object()).contains(annotation));
  BOOST_TEST_REQUIRE(eventually([&] {
    return !site_status("b").value("manuallyFenced", false) &&
           replicas_endpoints() == std::set<std::string>{"b", "c"};
  }, 60s), "b never came back: " << status().dump());
  BOOST_TEST(events("SiteUnfenced") >= 1u);
}

BOOST_AUTO_TEST_SUITE_END()
