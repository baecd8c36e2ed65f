// Rendered pods on the process kubelet with no operator (label kubelet): the API simulator without
// RBAC, the process kubelet, the group "kt" of two sites whose objects the test renders and
// creates itself, and what the suites look with (root over TCP, the containers' log tails).
// Needs root (the kubelet). Used by kube_kubelet_test.cpp and kube_kubelet_tls_test.cpp.
#pragma once

#include <boost/test/unit_test.hpp>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/failover_group.hpp"
#include "io/kube/client.hpp"
#include "io/log/log.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/harness/root_query.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/process_kubelet/kubelet.hpp"

namespace br::test::kubelet_rendered {

using nlohmann::json;
using namespace std::chrono_literals;
namespace kl = br::test::kubelet;

inline const std::string group = "kt";
inline const std::string ns = "default";

inline bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout) {
  return br::test::eventually(pred, timeout, 200ms);
}

/// The group "kt" with sites a and b (lbIPs 192.0.2.71, .72) and its operator Secret's name;
/// the caller adds to spec what its test is about.
inline json group_document() {
  auto site = [](const std::string& name) {
    return json{{"name", name},
                {"role", "primary-candidate"},
                {"lbIP", name == "a" ? "192.0.2.71" : "192.0.2.72"},
                {"zone", "zone-" + name},
                {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
                {"storage", {{"size", "1Gi"}}}};
  };
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
            {"sites", json::array({site("a"), site("b")})}}}};
}

/// The group as the operator would parse it (uid: the simulator's, so the objects' owner
/// references resolve and its garbage collector keeps them).
inline config::failover_group parsed_group(json doc, const std::string& uid) {
  doc["metadata"]["uid"] = uid;
  auto r = config::load_group_json(doc.dump(), config::run_mode::kubernetes);
  std::string errs;
  for (const auto& e : r.errors) errs += e.path + ": " + e.message + "; ";
  BOOST_TEST_REQUIRE(r.ok(), "group: " << errs);
  r.group.metadata.uid = uid;
  return r.group;
}

struct rendered_pods_on_kubelet {
  br::kube_sim::test::sim_cluster cluster{false};  // no RBAC: no operator runs here
  std::shared_ptr<kube::client> c = cluster.client("test");
  std::unique_ptr<kl::process_kubelet> kubelet;
  std::map<std::string, std::string> creds;  // the generated operator Secret's data

  rendered_pods_on_kubelet() {
    log::set_level(log::level::warn);
    auto o = kl::options::from_test_env();
    o.ns = ns;
    kubelet = std::make_unique<kl::process_kubelet>(cluster.client("process-kubelet"), o);
  }
  ~rendered_pods_on_kubelet() { kubelet->stop(); }

  /// The last 20000 characters of the mysql and sidecar containers' logs of `deployments`.
  void show_logs(const std::vector<std::string>& deployments) {
    for (const auto& d : deployments)
      for (const char* cn : {"mysql", "sidecar"}) {
        auto log = kubelet->container_log(d, cn);
        if (log.size() > 20000) log = log.substr(log.size() - 20000);
        BOOST_TEST_MESSAGE("---- " << d << "/" << cn << " log tail ----\n" << log);
      }
  }

  /// The kubelet, then this thread's view of the cluster DNS.
  void start_kubelet() {
    BOOST_TEST_REQUIRE(kubelet->start(), "kubelet: " << kubelet->error());
    std::string dns_err;
    BOOST_TEST_REQUIRE(kl::use_cluster_dns(kubelet->hosts_file(), dns_err), dns_err);
  }

  /// The chart's MysqlFailoverGroup CRD.
  void create_crd() {
    must_create(kube::resources::crds, br::kube_sim::test::yaml_to_json(YAML::LoadFile(
        br::kube_sim::test::source_path("charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"))));
  }

  void must_create(const kube::resource_ref& r, const json& obj) {
    auto made = c->create(r, r.namespaced ? obj["metadata"].value("namespace", ns) : "", obj);
    BOOST_TEST_REQUIRE(made.ok(), "create " << obj["metadata"].value("name", "") << ": "
                                            << (made.ok() ? "" : made.error().describe()));
  }

  json get(const kube::resource_ref& r, const std::string& in, const std::string& name) {
    auto got = c->get(r, in, name);
    return got ? *got : json(nullptr);
  }
  json get(const kube::resource_ref& r, const std::string& name) { return get(r, ns, name); }

  /// One value as root over TCP, "" when the server cannot be reached.
  std::string scalar(const std::string& host, const std::string& sql) {
    return br::kube_sim::test::root_scalar(host, creds.at("MYSQL_ROOT_PASSWORD"), sql);
  }
};

}  // namespace br::test::kubelet_rendered
