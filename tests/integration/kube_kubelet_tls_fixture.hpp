// The operator on the process kubelet (kube_kubelet_fixture.hpp) with the group TLS controller
// beside its group source, as kube_mode starts it (issue 26): the chart release's namespace, the
// controller's start and the wait for the bootstrap. Needs root (the kubelet). Used by
// kube_kubelet_tls_e2e_test.cpp and kube_kubelet_api_tls_test.cpp.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "actors/operator/kube/core/group_tls.hpp"
#include "tests/integration/kube_kubelet_fixture.hpp"

namespace br::test::kubelet_e2e {

struct operator_with_tls_on_kubelet : operator_on_kubelet {
  const std::string op_ns = "bloodraven-system";  // the chart release's namespace
  ticking_actor tls;                              // the group TLS controller, once started

  using operator_on_kubelet::operator_on_kubelet;
  ~operator_with_tls_on_kubelet() {
    if (tls) caf::anon_send_exit(tls, caf::exit_reason::user_shutdown);
  }

  std::string describe() { return "status: " + status().dump() + "\noperator log tail:\n" + log_capture::tail(); }

  json secret(const std::string& in, const std::string& name) {
    auto got = c->get(kube::resources::secrets, in, name);
    return got ? *got : json(nullptr);
  }

  /// The CRDs (with their validation) and the chart release's namespace.
  void install() {
    BOOST_TEST_REQUIRE(cluster.install_crds(true).empty());
    BOOST_TEST_REQUIRE(cluster.create(kube::resources::namespaces, "",
                                      {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", op_ns}}}})
                           .empty());
  }

  /// Create the group, start the operator (start()), then the group TLS controller beside the
  /// group source (same CA directory: both defaults) under the chart's RBAC, polling every
  /// second; `api_ca`: the API CA it issues the sites' API Secrets from (none: no API Secrets).
  void start_with_tls(const json& group_object, std::optional<op_ca::operator_ca_options> api_ca = std::nullopt) {
    auto made = c->create(mfg_resource, ns, group_object);
    BOOST_TEST_REQUIRE(made.ok(), (made.ok() ? "" : made.error().describe()));
    start();
    group_tls::controller_options to;
    to.client = cluster.client(br::kube_sim::test::operator_identity);
    to.operator_ns = op_ns;
    to.namespaces = {ns};
    to.interval = 1s;
    to.api_ca = std::move(api_ca);
    tls = group_tls::spawn_tls_controller(*sys, to);
  }

  /// Waits (420 s) for status.bootstrap Done ("no bootstrap <how>" otherwise), prints the phase
  /// "apply to bootstrap Done" since `t0`, then (60 s) for the other of two sites to replicate
  /// from the active one. Returns {active site, the other}.
  std::pair<std::string, std::string> bootstrapped(const std::string& how, std::chrono::steady_clock::time_point t0) {
    BOOST_TEST_REQUIRE(eventually([&] { return status().value("bootstrap", json::object()).value("phase", "") == "Done"; }, 420s),
                       "no bootstrap " << how << ": " << describe());
    phase("apply to bootstrap Done", t0);
    const std::string first = active();
    BOOST_TEST_REQUIRE(!first.empty());
    const std::string other = first == "a" ? "b" : "a";
    BOOST_TEST_REQUIRE(eventually([&] { return replicating_ok(other, first); }, 60s), "not replicating: " << describe());
    return {first, other};
  }

  /// Writes through the -primary Service (a table app.t, one row) reach `replica` (30 s).
  void write_reaches(const std::string& replica) {
    q(primary_service(), "CREATE DATABASE IF NOT EXISTS app");
    q(primary_service(), "CREATE TABLE IF NOT EXISTS app.t (id INT PRIMARY KEY)");
    q(primary_service(), "INSERT INTO app.t VALUES (1)");
    BOOST_TEST(eventually([&] { return qs(replica, "SELECT COUNT(*) FROM app.t") == "1"; }, 30s));
  }
};

}  // namespace br::test::kubelet_e2e
