// spec.tls in Kubernetes mode on the API SIMULATOR (issue 26, acceptance 2 at the API level): the
// group TLS controller (actors/operator/kube/core/group_tls.hpp) runs its passes in this process
// under the chart's RBAC for the operator's identity (a request the chart does not allow fails
// the test). cert-manager is SIMULATED: the test installs a Certificate CRD (so discovery serves
// certificates.cert-manager.io/v1) and plays cert-manager's issuer by writing the issued Secret
// (signed by a test CA) for the Certificate the operator created, and later a renewed one.
//  - with the CRD: the Certificate in the operator's namespace (names, issuer), the issued Secret
//    copied into the group's namespace, the renewal copied again, a site added updates the
//    Certificate's names, the group deleted deletes the Certificate and its Secret;
//  - without the CRD: a CA Secret generated in the operator's namespace and the group's Secret
//    issued from it (verified with OpenSSL: signed by the CA, the key matches, every name), kept
//    on the next pass, re-issued when due; the CRD present but no issuerRef: the generated CA too;
//    a Secret of that name the operator did not write is left alone (Warning Event).
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "actors/operator/kube/core/group_tls.hpp"
#include "io/codec/base64.hpp"
#include "io/crypto/x509_inspect.hpp"
#include "io/crypto/x509_issue.hpp"
#include "io/log/log.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/integration/kube_tls_sim_fixture.hpp"
#include "tests/support/mtls_client.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using namespace br::test::tls_sim;

namespace {

const std::string cert_name = "mysql-default.orders-tls";

json group_object(const std::string& name, const json& tls) {
  json g = br::test::tls_sim::group_object(name);
  g["spec"]["tls"] = tls;
  return g;
}

/// cert-manager's Certificate CRD, reduced to what the simulator needs to serve the kind.
json certificate_crd() {
  return {{"apiVersion", "apiextensions.k8s.io/v1"},
          {"kind", "CustomResourceDefinition"},
          {"metadata", {{"name", "certificates.cert-manager.io"}}},
          {"spec",
           {{"group", "cert-manager.io"},
            {"scope", "Namespaced"},
            {"names", {{"kind", "Certificate"}, {"plural", "certificates"}, {"singular", "certificate"}}},
            {"versions",
             json::array({{{"name", "v1"},
                           {"served", true},
                           {"storage", true},
                           {"subresources", {{"status", json::object()}}},
                           {"schema",
                            {{"openAPIV3Schema",
                              {{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}}}}}}})}}}};
}

using br::test::secret_item;

struct tls_fixture : br::test::tls_sim::tls_controller_fixture {
  tls_fixture() : tls_controller_fixture({"default", "shop"}) {}

  std::vector<std::string> reasons() {
    std::vector<std::string> out;
    auto l = c->list(kube::resources::events, ns);
    if (l)
      for (const auto& e : (*l)["items"]) out.push_back(e.value("reason", ""));
    return out;
  }

  /// The CA file the operator's MySQL sessions to group `name` verify against.
  std::string ca_file(const std::string& name) {
    std::ifstream in{group_tls::group_ca_file(o.ca_dir, ns, name), std::ios::binary};
    std::stringstream b;
    b << in.rdbuf();
    return b.str();
  }

  bool has_event(const std::string& reason) {
    auto r = reasons();
    return std::find(r.begin(), r.end(), reason) != r.end();
  }

  /// cert-manager SIMULATED: the Secret its issuer writes for Certificate `cert_name`, signed by
  /// `ca` for the Certificate's names.
  crypto::pem_pair issue_as_cert_manager(const crypto::pem_pair& ca, const std::string& rv = {}) {
    auto cert = get(group_tls::certificates, op_ns, cert_name);
    BOOST_TEST_REQUIRE(cert.is_object());
    std::vector<std::string> names = cert["spec"]["dnsNames"];
    for (const auto& ip : cert["spec"]["ipAddresses"]) names.push_back(ip);
    auto leaf = crypto::issue_peer_cert(ca, names, 24h * 90);
    BOOST_TEST_REQUIRE(leaf.has_value());
    json s = {{"apiVersion", "v1"},
              {"kind", "Secret"},
              {"type", "kubernetes.io/tls"},
              {"metadata", {{"name", cert_name}, {"namespace", op_ns},
                            {"labels", cert["spec"]["secretTemplate"]["labels"]},
                            {"annotations", {{"cert-manager.io/certificate-name", cert_name}}}}},
              {"data", {{"ca.crt", base64_encode(ca.cert_pem)}, {"tls.crt", base64_encode(leaf->cert_pem)},
                        {"tls.key", base64_encode(leaf->key_pem)}}}};
    if (rv.empty()) {
      must(cluster.create(kube::resources::secrets, op_ns, s));
    } else {
      s["metadata"]["resourceVersion"] = rv;
      auto u = c->update(kube::resources::secrets, s);
      BOOST_TEST_REQUIRE(u.ok(), why(u));
    }
    return *leaf;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_tls, tls_fixture)

BOOST_AUTO_TEST_CASE(cert_manager_certificate_copy_renewal_and_cleanup) {
  must(cluster.create(kube::resources::crds, "", certificate_crd()));
  must(cluster.create(kube::resources::mysqlfailovergroups, ns,
                      group_object("orders", {{"issuerRef", {{"name", "ca-issuer"}, {"kind", "ClusterIssuer"}}}})));

  // 0. A ClusterIssuer the operator was not given (--tls-cluster-issuers): nothing requested, a
  // Warning on the group (review V7 H2).
  auto r = pass();
  BOOST_TEST(get(group_tls::certificates, op_ns, cert_name).is_null());
  const auto before = reasons();
  BOOST_TEST((std::find(before.begin(), before.end(), "TLSIssuerNotAllowed") != before.end()));
  o.cluster_issuers = {"ca-issuer"};

  // 1. The Certificate, in the operator's namespace; nothing copied before cert-manager issued.
  r = pass();
  BOOST_TEST((r.cert_manager == std::optional<bool>{true}));
  auto cert = get(group_tls::certificates, op_ns, cert_name);
  BOOST_TEST_REQUIRE(cert.is_object());
  BOOST_TEST(cert["spec"]["issuerRef"]["name"] == "ca-issuer");
  BOOST_TEST(cert["spec"]["issuerRef"]["kind"] == "ClusterIssuer");
  BOOST_TEST(cert["spec"]["secretName"] == cert_name);
  const json dns = cert["spec"]["dnsNames"];
  for (const std::string want : {"mysql-orders-a.default.svc.cluster.local", "mysql-orders-b.default.svc.cluster.local",
                                 "mysql-orders-primary.default.svc", "localhost"})
    BOOST_TEST((std::find(dns.begin(), dns.end(), want) != dns.end()), want);
  BOOST_TEST(get(kube::resources::secrets, ns, "orders-tls").is_null());
  BOOST_TEST(get(kube::resources::secrets, op_ns, "bloodraven-mysql-ca").is_null());  // no generated CA
  BOOST_TEST(ca_file("orders").empty());  // nothing to verify against yet
  BOOST_TEST(has_event(group_tls::reason_certificate_requested));

  // 2. cert-manager issues: the Secret is copied into the group's namespace, owned by the group.
  auto ca = crypto::make_ca("cert-manager test CA", 24h * 365);
  BOOST_TEST_REQUIRE(ca.has_value());
  const auto first = issue_as_cert_manager(*ca);
  r = pass();
  BOOST_TEST(r.writes == 1);
  auto copy = get(kube::resources::secrets, ns, "orders-tls");
  BOOST_TEST_REQUIRE(copy.is_object());
  BOOST_TEST(copy["type"] == "kubernetes.io/tls");
  BOOST_TEST(secret_item(copy, "tls.crt") == first.cert_pem);
  BOOST_TEST(secret_item(copy, "tls.key") == first.key_pem);
  BOOST_TEST(secret_item(copy, "ca.crt") == ca->cert_pem);
  const auto group = get(kube::resources::mysqlfailovergroups, ns, "orders");
  BOOST_TEST(copy["metadata"]["ownerReferences"][0]["uid"] == group["metadata"]["uid"]);
  BOOST_TEST(has_event(group_tls::reason_secret_copied));
  BOOST_TEST(ca_file("orders") == ca->cert_pem);  // the operator's sessions verify against it
  BOOST_TEST(pass().writes == 0);  // current: nothing written

  // 3. cert-manager renews (a new key): copied again, no restart of anything needed here.
  const auto issued_rv = get(kube::resources::secrets, op_ns, cert_name)["metadata"]["resourceVersion"];
  const auto renewed = issue_as_cert_manager(*ca, issued_rv);
  BOOST_TEST(pass().writes == 1);
  copy = get(kube::resources::secrets, ns, "orders-tls");
  BOOST_TEST(secret_item(copy, "tls.crt") == renewed.cert_pem);
  BOOST_TEST(secret_item(copy, "tls.key") == renewed.key_pem);
  BOOST_TEST(secret_item(copy, "tls.crt") != first.cert_pem);

  // 4. A site added: the Certificate's names follow (cert-manager then re-issues).
  auto g = get(kube::resources::mysqlfailovergroups, ns, "orders");
  g["spec"]["sites"].push_back(site("c"));
  auto u = c->update(kube::resources::mysqlfailovergroups, g);
  BOOST_TEST_REQUIRE(u.ok(), why(u));
  pass();
  cert = get(group_tls::certificates, op_ns, cert_name);
  const json dns2 = cert["spec"]["dnsNames"];
  BOOST_TEST((std::find(dns2.begin(), dns2.end(), "mysql-orders-c.default.svc.cluster.local") != dns2.end()));

  // 5. The group deleted: its Certificate and the issued Secret go (the copy goes with the group
  // through its owner reference, the API server's garbage collector).
  auto d = c->remove(kube::resources::mysqlfailovergroups, ns, "orders");
  BOOST_TEST_REQUIRE(d.ok(), why(d));
  r = pass();
  BOOST_TEST(r.writes == 2);
  BOOST_TEST(get(group_tls::certificates, op_ns, cert_name).is_null());
  BOOST_TEST(get(kube::resources::secrets, op_ns, cert_name).is_null());
}

BOOST_AUTO_TEST_CASE(generated_ca_without_cert_manager) {
  // An issuerRef, but the cluster does not serve the Certificate kind: the generated CA.
  must(cluster.create(kube::resources::mysqlfailovergroups, ns,
                      group_object("orders", {{"issuerRef", {{"name", "ca-issuer"}}}})));
  auto r = pass();
  BOOST_TEST((r.cert_manager == std::optional<bool>{false}));
  auto ca_secret = get(kube::resources::secrets, op_ns, "bloodraven-mysql-ca");
  BOOST_TEST_REQUIRE(ca_secret.is_object());
  BOOST_TEST(!ca_secret["data"].contains("tls.crt"));  // only the CA
  const std::string ca_pem = secret_item(ca_secret, "ca.crt");
  auto s = get(kube::resources::secrets, ns, "orders-tls");
  BOOST_TEST_REQUIRE(s.is_object());
  BOOST_TEST(secret_item(s, "ca.crt") == ca_pem);
  BOOST_TEST(crypto::signed_by(secret_item(s, "tls.crt"), ca_pem));
  BOOST_TEST(crypto::key_matches(secret_item(s, "tls.crt"), secret_item(s, "tls.key")));
  auto info = crypto::inspect_cert(secret_item(s, "tls.crt"));
  BOOST_TEST_REQUIRE(info.has_value());
  for (const std::string want : {"mysql-orders-a.default.svc.cluster.local", "mysql-orders-b", "127.0.0.1"})
    BOOST_TEST((std::find(info->names.begin(), info->names.end(), want) != info->names.end()), want);
  BOOST_TEST(has_event(group_tls::reason_secret_issued));
  BOOST_TEST(ca_file("orders") == ca_pem);
  const std::string first = secret_item(s, "tls.crt");
  BOOST_TEST(pass().writes == 0);  // kept

  // Due for renewal (a certificate past 2/3 of its life: here a 0-hour one from the same CA):
  // re-issued from the same CA.
  auto due = crypto::issue_peer_cert({ca_pem, secret_item(ca_secret, "ca.key")}, info->names, 0h);
  BOOST_TEST_REQUIRE(due.has_value());
  s["data"]["tls.crt"] = base64_encode(due->cert_pem);
  s["data"]["tls.key"] = base64_encode(due->key_pem);
  auto u = c->update(kube::resources::secrets, s);
  BOOST_TEST_REQUIRE(u.ok(), why(u));
  BOOST_TEST(pass().writes == 1);
  s = get(kube::resources::secrets, ns, "orders-tls");
  BOOST_TEST(secret_item(s, "tls.crt") != due->cert_pem);
  BOOST_TEST(secret_item(s, "tls.crt") != first);
  BOOST_TEST(crypto::signed_by(secret_item(s, "tls.crt"), ca_pem));
  BOOST_TEST(secret_item(get(kube::resources::secrets, op_ns, "bloodraven-mysql-ca"), "ca.crt") == ca_pem);  // same CA
}

BOOST_AUTO_TEST_CASE(crd_without_issuer_and_a_foreign_secret) {
  must(cluster.create(kube::resources::crds, "", certificate_crd()));
  // No issuerRef: the generated CA even though cert-manager is there; no Certificate.
  must(cluster.create(kube::resources::mysqlfailovergroups, ns, group_object("orders", json::object())));
  // A Secret the operator did not write, named by another group's secretName: left alone.
  must(cluster.create(kube::resources::secrets, ns,
                      {{"apiVersion", "v1"}, {"kind", "Secret"},
                       {"metadata", {{"name", "mine"}, {"namespace", ns}}},
                       {"data", {{"tls.crt", base64_encode("MINE")}}}}));
  must(cluster.create(kube::resources::mysqlfailovergroups, ns, group_object("billing", {{"secretName", "mine"}})));
  auto r = group_tls::reconcile_tls_once(o);
  BOOST_TEST((r.cert_manager == std::optional<bool>{true}));
  BOOST_TEST(get(group_tls::certificates, op_ns, cert_name).is_null());
  auto s = get(kube::resources::secrets, ns, "orders-tls");
  BOOST_TEST_REQUIRE(s.is_object());
  BOOST_TEST(crypto::signed_by(secret_item(s, "tls.crt"),
                               secret_item(get(kube::resources::secrets, op_ns, "bloodraven-mysql-ca"), "ca.crt")));
  auto mine = get(kube::resources::secrets, ns, "mine");
  BOOST_TEST(secret_item(mine, "tls.crt") == "MINE");
  BOOST_TEST(has_event(group_tls::reason_secret_conflict));
}

BOOST_AUTO_TEST_SUITE_END()

// The wiring: the real bloodraven binary in Kubernetes mode starts the group TLS controller once
// it leads (kube_mode), which issues the group's Secret from the generated CA it creates in the
// operator's namespace (--namespace) and writes the CA file the group's sessions read.
BOOST_FIXTURE_TEST_CASE(the_operator_binary_runs_the_controller_once_leading, operator_binary_on_sim) {
  const std::string name = "tlsproc";
  create_group(group_object(name, json::object()));
  const std::string ca_path = group_tls::group_ca_file(group_tls::default_ca_dir, ns, name);
  std::error_code ec;
  std::filesystem::remove(ca_path, ec);
  auto& p = start_operator("127.0.0.1:0", "op-tls");
  BOOST_TEST_REQUIRE(p.wait_for_line("group TLS: Secret written from the generated CA", 30s).has_value(), p.output());
  auto s = c.get(kube::resources::secrets, ns, name + "-tls");
  BOOST_TEST_REQUIRE(s.ok(), why(s));
  auto ca = c.get(kube::resources::secrets, ns, "bloodraven-mysql-ca");
  BOOST_TEST_REQUIRE(ca.ok(), why(ca));
  BOOST_TEST(crypto::signed_by(secret_item(*s, "tls.crt"), secret_item(*ca, "ca.crt")));
  BOOST_TEST(std::filesystem::exists(ca_path));
  p.signal(SIGTERM);
  BOOST_TEST(p.wait_exit(30s).has_value());
  std::filesystem::remove_all(std::filesystem::path{ca_path}.parent_path(), ec);
}
