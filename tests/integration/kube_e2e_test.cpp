// Kubernetes mode end to end: the API simulator, a SIMULATED kubelet (tests/integration/kubelet_sim.hpp:
// nothing runs pods here; a Deployment "restart" is its pod template changing) and two real
// MySQL 9.7 sites (sandbox instances 41 and 42; the sites' addresses are overridden to them).
// One scenario, in order: apply -> every object; an edit that needs no rollout rolls nothing;
// a my.cnf change rolls the replica, hands the primary over, then rolls the old primary;
// kill -9 of the primary flips pod labels, the DNSEndpoint, taints, status and Events; delete ->
// the finalizer removes the taints.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <functional>
#include <map>
#include <thread>

#include "actors/operator/kube/core/generated_credentials.hpp"
#include "actors/operator/kube/core/kube_credentials.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "actors/operator/api/operator_api.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "tests/integration/kube_operator_fixture.hpp"
#include "tests/integration/kubelet_sim.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

constexpr int inst_a = 41, inst_b = 42;  // this test's sandbox instances (41-43 are reserved for it)
const std::string group = "e2e";
const std::string ns = "default";
const std::string lb_a = "192.0.2.41", lb_b = "192.0.2.42";

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

using br::test::eventually;

json site(const std::string& name, const std::string& lb) {
  return {{"name", name},
          {"role", "primary-candidate"},
          {"zone", "zone-" + name},
          {"lbIP", lb},
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
            {"failoverCooldown", "2s"},
            {"relayDrainTimeout", "10s"},
            // Fast: no sidecars run here, so the Safe gate could not prove a dead primary isolated.
            {"promotionPolicy", "Fast"},
            {"updateStrategy", "OrderedUpdate"},
            {"replication", {{"user", "repl"}, {"password", "replpw"}, {"tls", true}}},
            {"sites", json::array({site("a", lb_a), site("b", lb_b)})}}}};
}

json node(const std::string& name, json labels, json taints = json::array()) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
          {"spec", {{"taints", std::move(taints)}}}};
}

struct e2e_fixture : test::kube_operator_fixture {
  // The operator ("operator-0") runs as the chart's ServiceAccount: what its RBAC does not
  // grant is refused with 403 (checked at teardown: no denials).
  br::kube_sim::simulator& sim = cluster.sim;

  e2e_fixture() : kube_operator_fixture(ns, {inst_a, inst_b}) {}

  void must_create(const kube::resource_ref& r, const std::string& in_ns, const json& obj) {
    auto error = cluster.create(r, in_ns, obj);
    BOOST_TEST_REQUIRE(error.empty(), error);
  }

  void start_operator() {
    auto o = br::kube_sim::test::fast_group_source(cluster.client(br::kube_sim::test::operator_identity), op.io);
    o.operator_namespace = "bloodraven-system";  // the finalizer deletes a credential copy there
    o.site_address = [](const std::string&, const std::string&, const std::string& s) {
      return config::address_spec{"127.0.0.1", sandbox().port(s == "a" ? inst_a : inst_b)};
    };
    // No sidecars run here (policy Fast): nothing to push views to. integration_kube_gate runs
    // real sidecars in Kubernetes mode under Safe.
    o.sidecar_address = [](const std::string&, const std::string&, const std::string&) {
      return std::string{};
    };
    op.start(sys, o);
  }

  json get(const kube::resource_ref& r, const std::string& name, const std::string& in_ns = ns) {
    auto got = c->get(r, in_ns, name);
    return got ? *got : json(nullptr);
  }

  json mfg() { return get(mfg_resource, group); }
  json status() {
    auto g = mfg();
    return g.is_object() ? g.value("status", json::object()) : json::object();
  }

  static std::string condition(const json& st, const std::string& type) {
    for (const auto& cnd : st.value("conditions", json::array()))
      if (cnd.value("type", "") == type) return cnd.value("status", "");
    return "";
  }

  /// role/healthy labels of the site's (only) pod, "" when there is none.
  std::string pod_labels(const std::string& s) {
    kube::list_options lo;
    lo.label_selector = "shipstream.io/failover-group=" + group + ",shipstream.io/site=" + s;
    auto pods = c->list(kube::resources::pods, ns, lo);
    if (!pods || (*pods)["items"].size() != 1) return "";
    auto labels = (*pods)["items"][0]["metadata"].value("labels", json::object());
    return labels.value("shipstream.io/role", "?") + "/" + labels.value("shipstream.io/healthy", "?");
  }

  std::string dns_target() {
    auto d = get(kube::resources::dnsendpoints, "bloodraven-" + group);
    if (!d.is_object()) return "";
    return d["spec"]["endpoints"][0]["targets"][0].get<std::string>();
  }

  bool tainted(const std::string& node_name) {
    auto n = get(kube::resources::nodes, node_name, "");
    for (const auto& t : n["spec"].value("taints", json::array()))
      if (t.value("key", "") == "shipstream.io/db-readonly-" + group && t.value("value", "") == "true" &&
          t.value("effect", "") == "NoExecute")
        return true;
    return false;
  }

  /// a's nodes carry the taint iff `a_tainted`, b's iff not.
  bool taints_for_active(const std::string& active) {
    bool a = active != "a", b = active != "b";
    return tainted("node-a-1") == a && tainted("node-a-2") == a && tainted("node-b-1") == b;
  }

  size_t events(const std::string& reason) {
    auto r = c->list(kube::resources::events, ns);
    size_t n = 0;
    if (r)
      for (const auto& e : (*r)["items"])
        if (e["involvedObject"].value("name", "") == group && e.value("reason", "") == reason) ++n;
    return n;
  }

  void edit_spec(const std::function<void(json& spec)>& f) {
    auto r = kube::update_with_retry(*c, mfg_resource, ns, group, [&](json& obj) {
      f(obj["spec"]);
      return true;
    });
    BOOST_TEST_REQUIRE(r.ok(), "edit: " << (r.ok() ? "" : r.error().describe()));
  }

  std::optional<mysql::probe_result> probe(int i) {
    auto conn = mysql::connection::open(sandbox().options(i, "bloodraven"));
    if (!conn.ok()) return std::nullopt;
    auto p = mysql::probe(*conn, mysql::mysql8());
    if (!p.ok()) return std::nullopt;
    return *p;
  }

  /// Writes by the operator to `path_part` (verb filter) from write-log index `from`.
  std::vector<size_t> operator_writes(const std::vector<kube_sim::write_record>& log, size_t from,
                                      const std::string& verb, const std::string& path_part) {
    std::vector<size_t> out;
    for (size_t i = from; i < log.size(); ++i)
      if (log[i].identity == "operator-0" && log[i].verb == verb && log[i].status < 300 &&
          log[i].path.find(path_part) != std::string::npos)
        out.push_back(i);
    return out;
  }
};

const std::string deploy_path = "/apis/apps/v1/namespaces/default/deployments/";

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_e2e, e2e_fixture)

BOOST_AUTO_TEST_CASE(apply_failover_noop_edit_ordered_update_and_delete) {
  // -- setup: two real MySQL 9.7 sites (a primary, b its replica), the API, nodes -------------
  for (int i : {inst_a, inst_b}) sandbox().reset(i);
  sandbox().replicate(inst_b, inst_a);
  auto crds = cluster.install_crds();
  BOOST_TEST_REQUIRE(crds.empty(), crds);
  auto secret = cluster.create_operator_secret(ns, group + "-operator", "bloodraven", "bloodravenpw");
  BOOST_TEST_REQUIRE(secret.empty(), secret);
  const json other_taint = {{"key", "dedicated"}, {"value", "x"}, {"effect", "NoSchedule"}};
  must_create(kube::resources::nodes, "", node("node-a-1", {{"shipstream.io/site.e2e", "a"}}));
  must_create(kube::resources::nodes, "", node("node-a-2", {{"shipstream.io/site.e2e", "a"}}));
  must_create(kube::resources::nodes, "", node("node-b-1", {{"shipstream.io/site.e2e", "b"}}));
  must_create(kube::resources::nodes, "", node("node-other", json::object(), json::array({other_taint})));
  kubelet->start();
  start_operator();
  must_create(mfg_resource, ns, group_object());
  const auto uid = mfg()["metadata"].value("uid", "");

  // -- (1) applying the group creates every object ------------------------------------------------
  BOOST_TEST_REQUIRE(eventually([&] {
    auto st = status();
    return st.value("activeSite", "") == "a" && condition(st, "WorkloadReady") == "True" &&
           condition(st, "ReconcileSuccess") == "True";
  }, 120s), "group never became ready with a active: " << status().dump());
  for (const auto& [res, name] : std::vector<std::pair<kube::resource_ref, std::string>>{
           {kube::resources::deployments, "mysql-e2e-a"},
           {kube::resources::deployments, "mysql-e2e-b"},
           {kube::resources::pvcs, "mysql-e2e-a-data"},
           {kube::resources::pvcs, "mysql-e2e-b-data"},
           {kube::resources::services, "mysql-e2e-a"},
           {kube::resources::services, "mysql-e2e-b"},
           {kube::resources::services, "mysql-e2e-primary"},
           {kube::resources::services, "mysql-e2e-replicas"},
           {kube::resources::pdbs, "mysql-e2e"}}) {
    auto obj = get(res, name);
    BOOST_TEST_CONTEXT(res.plural << "/" << name) {
      BOOST_TEST_REQUIRE(obj.is_object());
      BOOST_TEST(obj["metadata"]["ownerReferences"][0].value("uid", "") == uid);
      BOOST_TEST(obj["metadata"]["annotations"].contains("bloodraven.shipstream.io/reconciler-version"));
    }
  }
  // The group's keys: generated once per group, owned by it; each site's sidecar mounts the
  // operator's public key, its own site key and the sites' public keys, never another site's
  // private key.
  {
    auto keys = get(kube::resources::secrets, "mysql-e2e-keys");
    BOOST_TEST_REQUIRE(keys.is_object());
    BOOST_TEST(keys["metadata"]["ownerReferences"][0].value("uid", "") == uid);
    auto data = secret_data(keys);
    BOOST_TEST(data.count("operator.key") == 1u);
    auto d = get(kube::resources::deployments, "mysql-e2e-a");
    bool mounted = false;
    for (const auto& v : d["spec"]["template"]["spec"]["volumes"])
      if (v.value("name", "") == "keys") {
        mounted = v["secret"].value("secretName", "") == "mysql-e2e-keys";
        for (const auto& i : v["secret"]["items"]) {
          auto k = i.value("key", "");
          BOOST_TEST((k.size() < 4 || k.substr(k.size() - 4) != ".key" || k == "site-a.key"), k);
          BOOST_TEST(data.count(k) == 1u, k);
        }
      }
    BOOST_TEST(mounted);
  }
  kube::list_options by_group;
  by_group.label_selector = "shipstream.io/failover-group=" + group;
  auto first_cms = c->list(kube::resources::configmaps, ns, by_group);
  BOOST_TEST_REQUIRE(first_cms.ok());
  std::vector<std::string> first_config_maps;
  for (const auto& cm : (*first_cms)["items"])
    if (cm["metadata"].value("annotations", json::object()).contains("shipstream.io/config-hash"))
      first_config_maps.push_back(cm["metadata"]["name"]);
  BOOST_TEST(first_config_maps.size() == 2u);
  BOOST_TEST(eventually([&] { return dns_target() == lb_a; }, 30s), "dns: " << dns_target());
  BOOST_TEST(eventually([&] { return pod_labels("a") == "primary/yes" && pod_labels("b") == "replica/yes"; }, 30s),
             "pods: a " << pod_labels("a") << ", b " << pod_labels("b"));
  BOOST_TEST(eventually([&] { return taints_for_active("a"); }, 30s));
  BOOST_TEST(get(kube::resources::nodes, "node-other", "")["spec"]["taints"] == json::array({other_taint}));
  auto fins = mfg()["metadata"].value("finalizers", json::array());
  BOOST_TEST((std::find(fins.begin(), fins.end(), json("shipstream.io/graceful-shutdown")) != fins.end()));
  BOOST_TEST(status().value("reconcileInfo", json::object()).value("generation", 0) == 1);

  // -- (2) an edit that needs no rollout rolls nothing -------------------------------------------
  auto restarts_before = kubelet->restarts();
  auto log_mark = sim.writes().size();
  edit_spec([](json& spec) { spec["failoverCooldown"] = "3s"; });
  BOOST_TEST_REQUIRE(eventually([&] {
    auto st = status();
    return st.value("reconcileInfo", json::object()).value("generation", 0) == 2 &&
           st.value("activeSite", "") == "a";
  }, 60s), "no pass after the edit: " << status().dump());
  {
    auto log = sim.writes();
    BOOST_TEST(operator_writes(log, log_mark, "PUT", deploy_path).empty());
    BOOST_TEST(operator_writes(log, log_mark, "POST", "/deployments").empty());
    BOOST_TEST(kubelet->restarts() == restarts_before);
  }

  // -- (3) a my.cnf change: replica first, handoff, old primary last ------------------------------
  auto failovers_before = events("FailoverExecuted");
  log_mark = sim.writes().size();
  edit_spec([](json& spec) { spec["mysqlConf"] = {{"max_connections", "600"}}; });
  BOOST_TEST_REQUIRE(eventually([&] {
    auto st = status();
    return st.value("activeSite", "") == "b" && st.value("updatePhase", "x").empty() &&
           condition(st, "WorkloadReady") == "True" &&
           st.value("reconcileInfo", json::object()).value("generation", 0) == 3;
  }, 150s), "ordered update did not finish with b active: " << status().dump());
  {
    auto log = sim.writes();
    auto puts_a = operator_writes(log, log_mark, "PUT", deploy_path + "mysql-e2e-a");
    auto puts_b = operator_writes(log, log_mark, "PUT", deploy_path + "mysql-e2e-b");
    std::vector<size_t> dns_to_b;
    for (auto i : operator_writes(log, log_mark, "PUT", "/dnsendpoints/bloodraven-e2e"))
      if (log[i].object["spec"]["endpoints"][0]["targets"][0] == lb_b) dns_to_b.push_back(i);
    BOOST_TEST_REQUIRE(puts_a.size() == 1u);
    BOOST_TEST_REQUIRE(puts_b.size() == 1u);
    BOOST_TEST_REQUIRE(!dns_to_b.empty());
    // The replica rolled before the handoff; the serving primary only after it.
    BOOST_TEST(puts_b[0] < dns_to_b[0]);
    BOOST_TEST(dns_to_b[0] < puts_a[0]);
    // The status the operator wrote before rolling a already named b as the active site.
    bool b_active_before_a_rolled = false;
    for (auto i : operator_writes(log, log_mark, "PUT", "/mysqlfailovergroups/e2e/status"))
      if (i < puts_a[0] && log[i].object["status"].value("activeSite", "") == "b")
        b_active_before_a_rolled = true;
    BOOST_TEST(b_active_before_a_rolled);
    auto r = kubelet->restarts();
    BOOST_TEST_REQUIRE(r.size() == restarts_before.size() + 2);
    BOOST_TEST(r[r.size() - 2].first == "mysql-e2e-b");
    BOOST_TEST(r[r.size() - 1].first == "mysql-e2e-a");
  }
  BOOST_TEST(events("FailoverExecuted") > failovers_before);
  BOOST_TEST(events("PlannedFailoverStarted") >= 1u);
  BOOST_TEST(events("WorkloadRolled") >= 2u);
  BOOST_TEST(eventually([&] {
    auto pa = probe(inst_a), pb = probe(inst_b);
    return pa && pb && pb->writable() && pa->channel.configured &&
           pa->channel.source_port == sandbox().port(inst_b) && pa->channel.io == mysql::thread_state::on;
  }, 60s), "b is not the primary with a replicating from it");
  BOOST_TEST(eventually([&] {
    for (const auto& name : first_config_maps)
      if (get(kube::resources::configmaps, name).is_object()) return false;
    return true;
  }, 30s), "the old my.cnf ConfigMaps were not deleted");
  BOOST_TEST(eventually([&] { return pod_labels("b") == "primary/yes" && pod_labels("a") == "replica/yes"; }, 30s),
             "pods: a " << pod_labels("a") << ", b " << pod_labels("b"));
  BOOST_TEST(eventually([&] { return taints_for_active("b") && dns_target() == lb_b; }, 30s));

  // -- (4) kill -9 the primary (b): a takes over ---------------------------------------------------
  failovers_before = events("FailoverExecuted");
  sandbox().kill9(inst_b);
  BOOST_TEST_REQUIRE(eventually([&] { return status().value("activeSite", "") == "a"; }, 90s),
                     "no failover to a: " << status().dump());
  BOOST_TEST(eventually([&] { return pod_labels("a") == "primary/yes" && pod_labels("b") == "replica/no"; }, 30s),
             "pods: a " << pod_labels("a") << ", b " << pod_labels("b"));
  BOOST_TEST(eventually([&] { return dns_target() == lb_a; }, 30s), "dns: " << dns_target());
  BOOST_TEST(eventually([&] { return taints_for_active("a"); }, 30s));
  BOOST_TEST(eventually([&] { return events("FailoverExecuted") > failovers_before; }, 30s));
  BOOST_TEST(events("FailoverStarted") >= 2u);
  auto pa = probe(inst_a);
  BOOST_TEST((pa && pa->writable()), "a is not writable after the failover");

  // -- (5) delete: the finalizer removes the group's taints, then the group goes ----------------
  auto del = c->remove(mfg_resource, ns, group);
  BOOST_TEST_REQUIRE(del.ok(), (del.ok() ? std::string{} : del.error().describe()));
  BOOST_TEST(eventually([&] { return !mfg().is_object(); }, 60s), "group still present");
  BOOST_TEST(!tainted("node-a-1"));
  BOOST_TEST(!tainted("node-a-2"));
  BOOST_TEST(!tainted("node-b-1"));
  BOOST_TEST(get(kube::resources::nodes, "node-other", "")["spec"]["taints"] == json::array({other_taint}));
  BOOST_TEST(events("GracefulShutdown") >= 2u);
}

BOOST_AUTO_TEST_SUITE_END()
