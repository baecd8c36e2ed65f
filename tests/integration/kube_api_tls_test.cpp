// The operator and sidecar APIs over mutual TLS in Kubernetes mode on the API SIMULATOR (issue
// 26): with the API CA configured (--api-tls-ca-secret), the group TLS controller keeps the CA
// Secret in the operator's namespace and issues every site of every group a Secret
// mysql-<group>-<site>-api-tls carrying the site's URI identity and the names it is dialled by;
// OpenSSL (the command line tool) verifies each for server and client use against the CA; a
// certificate due for renewal is issued again from the same CA; the controller runs under the
// chart's RBAC (a refused request fails the test). The real bloodraven binary with the flag
// writes its own certificate (bloodraven://operator) before its API listener starts and serves
// mutual TLS with it: a site's certificate from the Secret is accepted, its report for another
// site refused (403), a certificate of another CA and a call without one refused at the
// handshake. No MySQL, no pod: the sidecars in pods are the process-kubelet test's (not built).
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "actors/common/peer_identity.hpp"
#include "actors/operator/kube/core/api_tls_plan.hpp"
#include "actors/operator/kube/core/group_tls.hpp"
#include "config/render/api_tls_pod.hpp"
#include "io/codec/base64.hpp"
#include "io/crypto/x509_inspect.hpp"
#include "io/crypto/x509_issue.hpp"
#include "io/log/log.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/integration/kube_tls_sim_fixture.hpp"
#include "tests/support/mtls_client.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using namespace br::test::tls_sim;
using br::test::mtls_call;
using br::test::read_text;
using br::test::secret_item;
using br::test::write_pem_files;
using br::test::write_text;

namespace {

/// `openssl verify -purpose <purpose>` of `cert_pem` against `ca_pem` (the OpenSSL tool, not the
/// project's libcrypto code): true when it prints OK.
bool openssl_verifies(const std::filesystem::path& dir, const std::string& ca_pem, const std::string& cert_pem,
                      const char* purpose) {
  write_text(dir / "verify-ca.pem", ca_pem);
  write_text(dir / "verify-cert.pem", cert_pem);
  const auto out = dir / "verify.out";
  const std::string cmd = "timeout 20 openssl verify -purpose " + std::string{purpose} + " -CAfile '" +
                          (dir / "verify-ca.pem").string() + "' '" + (dir / "verify-cert.pem").string() +
                          "' >'" + out.string() + "' 2>&1";
  const int rc = std::system(cmd.c_str());
  const auto text = read_text(out);
  BOOST_TEST_MESSAGE("openssl verify -purpose " << purpose << ": " << text);
  return rc == 0 && text.find(": OK") != std::string::npos;
}

op_ca::operator_ca_options api_ca_options(std::shared_ptr<kube::client> c, const std::string& in) {
  op_ca::operator_ca_options o;
  o.client = std::move(c);
  o.ns = in;
  o.secret = api_tls::default_ca_secret;
  o.service = "bloodraven";
  o.names = api_tls::operator_cert_names(o.service, in);
  o.client_auth = true;
  o.component = api_tls::ca_component;
  return o;
}

struct api_tls_fixture : br::test::tls_sim::tls_controller_fixture {
  api_tls_fixture() : tls_controller_fixture({"default"}) { o.api_ca = api_ca_options(o.client, op_ns); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_api_tls, api_tls_fixture)

BOOST_AUTO_TEST_CASE(site_secrets_issued_verified_and_renewed) {
  must(cluster.create(kube::resources::mysqlfailovergroups, ns, group_object("orders")));
  BOOST_TEST(pass().writes == 2);  // the two sites' Secrets (the CA Secret is the keeper's write)
  auto ca_secret = get(kube::resources::secrets, op_ns, api_tls::default_ca_secret);
  BOOST_TEST_REQUIRE(ca_secret.is_object());
  BOOST_TEST(ca_secret["metadata"]["labels"]["app.kubernetes.io/component"] == "api-ca");
  const std::string ca_pem = secret_item(ca_secret, "ca.crt");
  // Not the MySQL CA: a group's MySQL certificate (no bloodraven:// name) must not pass here.
  BOOST_TEST(get(kube::resources::secrets, op_ns, "bloodraven-mysql-ca").is_null());
  // The operator's own pair in the same Secret: bloodraven://operator, server and client use.
  auto op_info = crypto::inspect_cert(secret_item(ca_secret, "tls.crt"));
  BOOST_TEST_REQUIRE(op_info.has_value());
  BOOST_TEST((op_info->uris == std::vector<std::string>{"bloodraven://operator"}));
  BOOST_TEST(openssl_verifies(dir.path, ca_pem, secret_item(ca_secret, "tls.crt"), "sslclient"));
  BOOST_TEST(openssl_verifies(dir.path, ca_pem, secret_item(ca_secret, "tls.crt"), "sslserver"));
  for (const std::string s : {"a", "b"}) {
    auto sec = get(kube::resources::secrets, ns, "mysql-orders-" + s + "-api-tls");
    BOOST_TEST_REQUIRE(sec.is_object(), s);
    BOOST_TEST(sec["type"] == "kubernetes.io/tls");
    BOOST_TEST(secret_item(sec, "ca.crt") == ca_pem);
    BOOST_TEST(crypto::key_matches(secret_item(sec, "tls.crt"), secret_item(sec, "tls.key")), s);
    BOOST_TEST(openssl_verifies(dir.path, ca_pem, secret_item(sec, "tls.crt"), "sslserver"), s);
    BOOST_TEST(openssl_verifies(dir.path, ca_pem, secret_item(sec, "tls.crt"), "sslclient"), s);
    auto info = crypto::inspect_cert(secret_item(sec, "tls.crt"));
    BOOST_TEST_REQUIRE(info.has_value());
    BOOST_TEST((info->uris == std::vector<std::string>{auth::site_identity_uri(ns, "orders", s)}), s);
    const std::string dialled = "mysql-orders-" + s + ".default.svc.cluster.local";  // sidecar_peer_address
    BOOST_TEST((std::find(info->names.begin(), info->names.end(), dialled) != info->names.end()), s);
    BOOST_TEST(sec["metadata"]["ownerReferences"][0]["kind"] == "MysqlFailoverGroup");
  }
  // A certificate of another CA does not verify against this one (the check can fail).
  auto other = crypto::make_ca("other", 24h);
  auto forged = crypto::issue_peer_cert(*other, api_tls::site_cert_names(
                                                    config::failover_group{}, "a"), 24h);
  BOOST_TEST_REQUIRE((other && forged));
  BOOST_TEST(!openssl_verifies(dir.path, ca_pem, forged->cert_pem, "sslclient"));
  auto a = get(kube::resources::secrets, ns, "mysql-orders-a-api-tls");
  const std::string first = secret_item(a, "tls.crt");
  BOOST_TEST(pass().writes == 0);  // current: kept

  // Due (a certificate past 2/3 of its life: a 0-hour one from the same CA): issued again.
  auto info = crypto::inspect_cert(first);
  BOOST_TEST_REQUIRE(info.has_value());
  auto names = info->names;
  names.insert(names.end(), info->uris.begin(), info->uris.end());
  auto due = crypto::issue_peer_cert({ca_pem, secret_item(ca_secret, "ca.key")}, names, 0h);
  BOOST_TEST_REQUIRE(due.has_value());
  a["data"]["tls.crt"] = base64_encode(due->cert_pem);
  a["data"]["tls.key"] = base64_encode(due->key_pem);
  auto u = c->update(kube::resources::secrets, a);
  BOOST_TEST_REQUIRE(u.ok(), why(u));
  BOOST_TEST(pass().writes == 1);
  a = get(kube::resources::secrets, ns, "mysql-orders-a-api-tls");
  BOOST_TEST(secret_item(a, "tls.crt") != due->cert_pem);
  BOOST_TEST(secret_item(a, "tls.crt") != first);
  BOOST_TEST(openssl_verifies(dir.path, ca_pem, secret_item(a, "tls.crt"), "sslclient"));
  BOOST_TEST(secret_item(get(kube::resources::secrets, op_ns, api_tls::default_ca_secret), "ca.crt") == ca_pem);
  // A site added: its Secret too.
  auto g = get(kube::resources::mysqlfailovergroups, ns, "orders");
  g["spec"]["sites"].push_back(site("c", "orders"));
  auto gu = c->update(kube::resources::mysqlfailovergroups, g);
  BOOST_TEST_REQUIRE(gu.ok(), why(gu));
  BOOST_TEST(pass().writes == 1);
  BOOST_TEST(get(kube::resources::secrets, ns, "mysql-orders-c-api-tls").is_object());
}

BOOST_AUTO_TEST_CASE(without_the_setting_nothing_is_issued) {
  o.api_ca.reset();
  must(cluster.create(kube::resources::mysqlfailovergroups, ns, group_object("orders")));
  BOOST_TEST(pass().writes == 0);
  BOOST_TEST(get(kube::resources::secrets, ns, "mysql-orders-a-api-tls").is_null());
  BOOST_TEST(get(kube::resources::secrets, op_ns, api_tls::default_ca_secret).is_null());
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

std::string report_of(const std::string& group, const std::string& s) { return br::test::unsigned_report(ns, group, s); }

}  // namespace

// The wiring: the real bloodraven binary with --api-tls-ca-secret writes its own certificate from
// the CA it creates before the API listener starts, serves mutual TLS with it, and once it leads
// issues the sites' Secrets; a site's certificate from its Secret is accepted by the operator
// (verified by the client against the CA and the host name 127.0.0.1).
BOOST_FIXTURE_TEST_CASE(the_operator_binary_serves_mutual_tls_from_its_own_ca, operator_binary_on_sim) {
  const std::string name = "apitls";
  create_group(group_object(name));
  const auto api_dir = dir.path / "api";
  const uint16_t port = br::test::free_port();
  auto& p = start_operator("127.0.0.1:" + std::to_string(port), "op-api-tls",
                           {"--api-tls-ca-secret", "bloodraven-api-ca", "--api-tls-dir", api_dir.string()});
  json sa;
  BOOST_TEST_REQUIRE(br::test::eventually(
                         [&] {
                           auto s = c.get(kube::resources::secrets, ns, "mysql-" + name + "-a-api-tls");
                           if (s) sa = *s;
                           return s.ok();
                         },
                         30s, 100ms),
                     p.output());
  auto ca = c.get(kube::resources::secrets, ns, "bloodraven-api-ca");
  BOOST_TEST_REQUIRE(ca.ok(), why(ca));
  const std::string ca_pem = secret_item(*ca, "ca.crt");
  // The operator's own files: the CA and a certificate from it naming bloodraven://operator.
  BOOST_TEST(read_text(api_dir / "ca.crt") == ca_pem);
  auto op_info = crypto::inspect_cert(read_text(api_dir / "tls.crt"));
  BOOST_TEST_REQUIRE(op_info.has_value());
  BOOST_TEST((op_info->uris == std::vector<std::string>{"bloodraven://operator"}));
  BOOST_TEST(openssl_verifies(dir.path, ca_pem, read_text(api_dir / "tls.crt"), "sslserver"));
  BOOST_TEST(openssl_verifies(dir.path, ca_pem, secret_item(sa, "tls.crt"), "sslclient"));

  const std::string url = "https://127.0.0.1:" + std::to_string(port);
  const std::string ca_file = (api_dir / "ca.crt").string();
  const auto site_a = write_pem_files(dir.path, "site-a", secret_item(sa, "tls.crt"), secret_item(sa, "tls.key"));
  // A site's certificate: served (the client verified the operator's certificate: CA and host).
  auto ok = mtls_call("GET", url + "/healthz", ca_file, &site_a);
  BOOST_TEST(ok.status == 200, ok.message << " " << ok.body);
  // Its own report passes the identity check and fails on the signature (401, once the group
  // source has registered the group: 404 before); one claiming site b with it: 403.
  http::client_result own;
  BOOST_TEST(br::test::eventually(
                 [&] {
                   own = mtls_call("POST", url + "/sidecar/report", ca_file, &site_a, report_of(name, "a"));
                   return own.status != 404;
                 },
                 30s, 100ms),
             own.body);
  BOOST_TEST(own.status == 401, own.status << " " << own.body);
  auto claim = mtls_call("POST", url + "/sidecar/report", ca_file, &site_a, report_of(name, "b"));
  BOOST_TEST(claim.status == 403, claim.body);
  // Without a certificate, and with site a's identity from another CA: refused at the handshake.
  auto none = mtls_call("GET", url + "/healthz", ca_file, nullptr);
  BOOST_TEST(none.status == 0, none.status);
  auto other = crypto::make_ca("other", 24h);
  BOOST_TEST_REQUIRE(other.has_value());
  config::failover_group g;
  g.metadata.name = name;
  g.metadata.namespace_name = ns;
  auto forged = crypto::issue_peer_cert(*other, api_tls::site_cert_names(g, "a"), 24h);
  BOOST_TEST_REQUIRE(forged.has_value());
  const auto forged_files = write_pem_files(dir.path, "forged", forged->cert_pem, forged->key_pem);
  auto refused = mtls_call("GET", url + "/healthz", ca_file, &forged_files);
  BOOST_TEST(refused.status == 0, refused.status);
  // The group source renders the sidecars with their site's API Secret (render_options::api_tls).
  json dep;
  BOOST_TEST(br::test::eventually(
                 [&] {
                   auto d = c.get(kube::resources::deployments, ns, "mysql-" + name + "-a");
                   if (d) dep = *d;
                   return d.ok();
                 },
                 30s, 100ms),
             "no Deployment rendered");
  bool mounted = false;
  for (const auto& v : dep["spec"]["template"]["spec"].value("volumes", json::array()))
    mounted = mounted || v.value("secret", json::object()).value("secretName", "") == "mysql-" + name + "-a-api-tls";
  BOOST_TEST(mounted, dep.dump());
  p.signal(SIGTERM);
  BOOST_TEST(p.wait_exit(30s).has_value());
}
