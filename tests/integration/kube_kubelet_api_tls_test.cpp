// The operator and sidecar APIs over mutual TLS in Kubernetes mode on the process kubelet (issue
// 26): the operator's group source, its API and the group TLS controller run in this process
// against the API simulator under the chart's RBAC; the kubelet runs the rendered pods for real
// (mysqld 9.7, the real sidecar with its site's API Secret mounted, the readiness probe over
// HTTPS). The API CA is the operator's (op_ca, as --api-tls-ca-secret keeps it); the operator's
// certificate names the "bloodraven" Service the sidecars dial. Checked:
//  - two sites bootstrap: the operator's view pushes to the sidecars and the sidecars' reports to
//    the operator all go over mutual TLS (the operator refuses a request without a certificate);
//  - a forged identity is refused: a site's certificate pushing a view to a sidecar (403), a
//    site's certificate reporting for the other site (403), and the operator's identity from
//    another CA (handshake refused);
//  - a renewal of a site's Secret reaches the running sidecar: it serves the new certificate
//    (read with `openssl s_client`), keeps its pid with 0 restarts, and, two lease timeouts
//    later, is still the unfenced primary (its lease calls went on with the new certificate).
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "actors/operator/kube/core/api_tls_plan.hpp"
#include "config/render/api_tls_pod.hpp"
#include "config/render/names.hpp"
#include "io/codec/base64.hpp"
#include "io/crypto/x509_inspect.hpp"
#include "io/crypto/x509_issue.hpp"
#include "tests/integration/kube_kubelet_tls_fixture.hpp"
#include "tests/support/mtls_client.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::kubelet_e2e::eventually;
using br::test::kubelet_e2e::log_capture;

namespace {

const std::string group = "ka";
const std::vector<std::string> sites = {"a", "b"};
json group_object() { return br::test::kubelet_e2e::kubelet_group_object(group, sites, "192.0.2.9"); }

using br::test::pem_files;
using br::test::read_text;
using br::test::secret_item;
using br::test::write_text;

struct api_tls_e2e_fixture : br::test::kubelet_e2e::operator_with_tls_on_kubelet {
  api_tls_e2e_fixture() : operator_with_tls_on_kubelet(::group, ::sites) {}

  pem_files files(const std::string& name, const std::string& cert, const std::string& key) {
    return br::test::write_pem_files(dir.path, name, cert, key);
  }

  /// A site's certificate and key from its API Secret, as files.
  pem_files site_files(const std::string& s) {
    const auto sec = secret(ns, render::api_tls_secret_name(group, s));
    return files("site-" + s, secret_item(sec, "tls.crt"), secret_item(sec, "tls.key"));
  }

  http::client_result call(const std::string& method, const std::string& url, const pem_files* id,
                           const std::string& body = {}) {
    return br::test::mtls_call(method, url, api_tls.ca_file, id, body);
  }

  std::string sidecar_url(const std::string& s) {
    return "https://" + render::sidecar_peer_address(group, s, ns);
  }

  /// The SHA-256 fingerprint of the certificate the sidecar of `s` serves (`openssl s_client`,
  /// presenting the operator's certificate); "" when none was read.
  std::string served_fingerprint(const std::string& s) {
    const auto out = dir.path / "served.txt";
    const std::string cmd = "timeout 10 openssl s_client -connect " + pod_ip(s) + ":8080 -cert '" +
                            api_tls.cert_file + "' -key '" + api_tls.key_file +
                            "' </dev/null 2>/dev/null | timeout 10 openssl x509 -noout -fingerprint -sha256 >'" +
                            out.string() + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) return "";
    return read_text(out);
  }

  std::string fingerprint(const std::string& pem) {
    write_text(dir.path / "fp.pem", pem);
    const auto out = dir.path / "fp.txt";
    const std::string cmd = "timeout 10 openssl x509 -noout -fingerprint -sha256 -in '" +
                            (dir.path / "fp.pem").string() + "' >'" + out.string() + "' 2>/dev/null";
    if (std::system(cmd.c_str()) != 0) return "";
    return read_text(out);
  }

  /// The sidecar report time the operator shows for site `s` ("" when none).
  std::string report_seen(const std::string& s) {
    auto r = call("GET", "https://127.0.0.1:" + std::to_string(op_port) + "/status", &op_files);
    if (!r.ok()) return "";
    auto j = json::parse(r.body, nullptr, false);
    const std::string key = ns + "/" + group;
    if (!j.is_object() || !j.contains(key)) return "";
    for (const auto& e : j[key].value("sites", json::array()))
      if (e.value("name", "") == s && e.contains("sidecar")) return e["sidecar"].dump();
    return "";
  }

  pem_files op_files;
};

std::string report_of(const std::string& s) { return br::test::unsigned_report("default", group, s); }

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_kubelet_api_tls, api_tls_e2e_fixture)

BOOST_AUTO_TEST_CASE(operator_and_sidecars_talk_over_mutual_tls) {
  const auto t0 = std::chrono::steady_clock::now();
  install();
  // The operator's own certificate from its API CA, as --api-tls-ca-secret writes it before the
  // listener starts; it names the "bloodraven" Service of the pods' namespace they dial.
  op_ca::operator_ca_options api;
  api.client = cluster.client(br::kube_sim::test::operator_identity);
  api.ns = op_ns;
  api.secret = api_tls::default_ca_secret;
  api.service = "bloodraven";
  api.names = api_tls::operator_cert_names("bloodraven", ns);
  api.client_auth = true;
  api.component = api_tls::ca_component;
  api.log_name = "API CA";
  const auto api_dir = dir.path / "api";
  api.cert_file = (api_dir / "tls.crt").string();
  api.key_file = (api_dir / "tls.key").string();
  api.ca_file = (api_dir / "ca.crt").string();
  BOOST_TEST_REQUIRE(op_ca::prepare_operator_ca(api, 30s).empty());
  api_tls = {api.cert_file, api.key_file, api.ca_file, true};
  op_files = {api.cert_file, api.key_file};

  start_with_tls(group_object(), api);

  // -- 1. bootstrap: view pushes and reports over mutual TLS ------------------------------------
  const auto [first, other] = bootstrapped("with the APIs over mutual TLS", t0);
  for (const auto& s : sites)
    BOOST_TEST(eventually([&] { return !report_seen(s).empty(); }, 30s), "no report of " << s << " accepted");
  // Both sidecars Ready: the kubelet's readiness probe reached /ready over HTTPS without a
  // client certificate (BLOODRAVEN_TLS_CLIENT_AUTH=request).
  for (const auto& s : sites)
    BOOST_TEST(eventually([&] {
                 auto v = kubelet->container(dep(s), "sidecar");
                 return v && v->ready;
               }, 30s),
               "sidecar of " << s << " not Ready");
  BOOST_TEST(log_capture::tail().find("\"status\":403") == std::string::npos, log_capture::tail());

  // -- 2. forged identities ------------------------------------------------------------------
  const auto other_files = site_files(other);
  auto push = call("PUT", sidecar_url(first) + "/view", &other_files, "{}");
  BOOST_TEST(push.status == 403, push.status << " " << push.message << " " << push.body);
  auto as_op = call("PUT", sidecar_url(first) + "/view", &op_files, "{}");
  BOOST_TEST(as_op.status == 400, as_op.status << " " << as_op.body);  // past the identity check
  auto claim = call("POST", "https://127.0.0.1:" + std::to_string(op_port) + "/sidecar/report", &other_files,
                    report_of(first));
  BOOST_TEST(claim.status == 403, claim.status << " " << claim.body);
  auto foreign_ca = crypto::make_ca("forger", 24h);
  BOOST_TEST_REQUIRE(foreign_ca.has_value());
  auto forged = crypto::issue_peer_cert(*foreign_ca, api_tls::operator_cert_names("bloodraven", ns), 24h);
  BOOST_TEST_REQUIRE(forged.has_value());
  const auto forged_files = files("forged", forged->cert_pem, forged->key_pem);
  auto forged_push = call("PUT", sidecar_url(first) + "/view", &forged_files, "{}");
  BOOST_TEST(forged_push.status == 0, forged_push.status << " " << forged_push.body);  // handshake refused
  auto bare = call("GET", sidecar_url(first) + "/peer/active-site", nullptr);
  BOOST_TEST(bare.status == 403, bare.status << " " << bare.body);  // no certificate: refused by the route

  // -- 3. a renewal reaches the running sidecar, no restart ------------------------------------
  const std::string name = render::api_tls_secret_name(group, first);
  json s = secret(ns, name);
  const auto before = kubelet->container(dep(first), "sidecar");
  BOOST_TEST_REQUIRE((before && before->pid > 0));
  BOOST_TEST(eventually([&] { return served_fingerprint(first) == fingerprint(secret_item(s, "tls.crt")); }, 30s),
             "the sidecar does not serve its Secret's certificate");
  const json ca_secret = secret(op_ns, api_tls::default_ca_secret);
  auto info = crypto::inspect_cert(secret_item(s, "tls.crt"));
  BOOST_TEST_REQUIRE(info.has_value());
  auto names = info->names;
  names.insert(names.end(), info->uris.begin(), info->uris.end());
  auto due = crypto::issue_peer_cert({secret_item(ca_secret, "ca.crt"), secret_item(ca_secret, "ca.key")}, names, 0h);
  BOOST_TEST_REQUIRE(due.has_value());
  s["data"]["tls.crt"] = base64_encode(due->cert_pem);
  s["data"]["tls.key"] = base64_encode(due->key_pem);
  auto u = c->update(kube::resources::secrets, s);
  BOOST_TEST_REQUIRE(u.ok(), (u.ok() ? "" : u.error().describe()));
  // The controller issues it again (it is due); the kubelet rewrites the files; the sidecar's
  // server reads them on the next connection.
  std::string renewed_fp;
  BOOST_TEST_REQUIRE(eventually([&] {
    const auto now = secret(ns, name);
    if (secret_item(now, "tls.crt") == due->cert_pem || secret_item(now, "tls.crt") == secret_item(s, "tls.crt")) return false;
    renewed_fp = fingerprint(secret_item(now, "tls.crt"));
    return !renewed_fp.empty();
  }, 30s), "the due certificate was not issued again");
  BOOST_TEST(eventually([&] { return served_fingerprint(first) == renewed_fp; }, 90s),
             "the sidecar still serves the old certificate");
  const auto after = kubelet->container(dep(first), "sidecar");
  BOOST_TEST_REQUIRE(after.has_value());
  BOOST_TEST(after->pid == before->pid);
  BOOST_TEST(after->restarts == 0);
  // Its calls go on with the renewed certificate: the primary keeps its lease through them
  // (signed /active-site answers from the operator or its peer), so two lease timeouts (8 s)
  // after the switch it is still the writable primary, and its peer still accepts it.
  std::this_thread::sleep_for(20s);
  BOOST_TEST(active() == first, describe());
  BOOST_TEST(qs(first, "SELECT @@super_read_only") == "0", "the primary fenced itself: " << describe());
  write_reaches(other);
  phase("total", t0);
}

BOOST_AUTO_TEST_SUITE_END()
