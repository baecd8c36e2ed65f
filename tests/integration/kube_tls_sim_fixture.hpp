// The group TLS controller (actors/operator/kube/core/group_tls.hpp) on the API SIMULATOR, for
// kube_tls_test.cpp (spec.tls) and kube_api_tls_test.cpp (the APIs over mutual TLS): the
// simulator under the chart's RBAC for the operator's identity (a refused request fails the test
// at the end), the CRDs and the chart release's namespace, the controller's options (its CA files
// in a temporary directory) and one pass of it; the two-site group objects; and the real
// bloodraven binary against a bare simulator (the suites' wiring cases).
#pragma once

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "actors/operator/kube/core/group_tls.hpp"
#include "io/log/log.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"

namespace br::test::tls_sim {

using nlohmann::json;

inline const std::string ns = "default";
inline const std::string op_ns = "bloodraven-system";  // the chart release's namespace (chart_rbac.hpp)

inline json site(const std::string& name, const std::string& group = "orders") {
  return {{"name", name},
          {"zone", "z-" + name},
          {"lbIP", "192.0.2.1"},
          {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
          {"storage", {{"size", "1Gi"}}}};
}

/// Group `name` in "default" with sites a and b; the caller adds to spec what its test is about.
inline json group_object(const std::string& name) {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", name + "-operator"}}},
            {"dns", {{"hostname", name + ".example.com"}}},
            {"sites", json::array({site("a", name), site("b", name)})}}}};
}

template <class R>
std::string why(const R& r) {
  return r.ok() ? std::string{} : r.error().describe();
}

struct tls_controller_fixture {
  kube_sim::test::sim_cluster cluster;  // the chart's RBAC for the operator's identity
  std::shared_ptr<kube::client> c = cluster.client("test");
  kube_sim::test::temp_dir dir;  // the operator's CA files
  group_tls::controller_options o;

  /// The controller serves the groups of `namespaces`.
  explicit tls_controller_fixture(std::vector<std::string> namespaces) {
    log::set_level(log::level::warn);
    must(cluster.install_crds(false));
    must(cluster.create(kube::resources::namespaces, "",
                        {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", op_ns}}}}));
    o.client = cluster.client(kube_sim::test::operator_identity);
    o.operator_ns = op_ns;
    o.namespaces = std::move(namespaces);
    o.ca_dir = dir.path.string();
    o.instance = kube_sim::test::operator_identity;
    o.events = std::make_shared<kube::event_recorder>(*o.client, kube::event_recorder_options{});
  }

  ~tls_controller_fixture() {
    auto denied = cluster.denials();
    BOOST_TEST(denied.empty(), "operator requests refused by the chart's RBAC:\n" << denied);
  }

  void must(const std::string& error) { BOOST_TEST_REQUIRE(error.empty(), error); }

  json get(const kube::resource_ref& r, const std::string& in, const std::string& name) {
    auto got = c->get(r, in, name);
    return got ? *got : json(nullptr);
  }

  /// One pass of the controller; no API call of it failed.
  group_tls::pass_result pass() {
    auto r = group_tls::reconcile_tls_once(o);
    BOOST_TEST(r.failures == 0);
    return r;
  }
};

/// The real bloodraven binary in Kubernetes mode against a bare simulator (no RBAC) holding the
/// group CRD; the test's client is "test-driver".
struct operator_binary_on_sim {
  kube_sim::simulator sim;
  bool started = (sim.start(), true);
  kube_sim::test::temp_dir dir;
  kube::client c{kube_sim::test::sim_config(sim), driver_options()};
  std::unique_ptr<child_process> process;  // the operator, once started

  operator_binary_on_sim() {
    BOOST_TEST_REQUIRE(c.create(kube::resources::crds, "",
                                kube_sim::test::yaml_to_json(YAML::LoadFile(kube_sim::test::source_path(
                                    "charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"))))
                           .ok());
  }

  static kube::client_options driver_options() {
    kube::client_options co;
    co.identity = "test-driver";
    return co;
  }

  void create_group(const json& g) {
    auto made = c.create(kube::resources::mysqlfailovergroups, ns, g);
    BOOST_TEST_REQUIRE(made.ok(), why(made));
  }

  /// bloodraven with --listen `listen`, no metrics listener, --namespace default and `more`, as
  /// pod `pod`; returns once it leads (30 s).
  child_process& start_operator(const std::string& listen, const std::string& pod, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--kubeconfig", sim.write_kubeconfig(dir.path.string()), "--listen", listen,
                                     "--metrics-listen", "", "--namespace", ns};
    args.insert(args.end(), more.begin(), more.end());
    process = std::make_unique<child_process>(binary_path("bloodraven"), args,
                                              std::map<std::string, std::string>{{"POD_NAME", pod}});
    BOOST_TEST_REQUIRE(process->wait_for_line("leading; starting group work", std::chrono::seconds(30)).has_value(),
                       process->output());
    return *process;
  }
};

}  // namespace br::test::tls_sim
