// The APIs over mutual TLS in Kubernetes mode (issue 26): actors/operator/kube/core/api_tls_plan
// and config/render/api_tls_pod as table tests, the issue decisions on real certificates.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/core/api_tls_plan.hpp"
#include "config/render/api_tls_pod.hpp"
#include "config/render/names.hpp"
#include "io/codec/base64.hpp"
#include "io/crypto/x509_inspect.hpp"
#include "io/crypto/x509_issue.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br;
using namespace br::api_tls;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

config::failover_group base_group() { return render_test::group_of(render_test::base_doc()); }

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

BOOST_AUTO_TEST_CASE(site_and_operator_names) {
  const auto g = base_group();  // group orders in namespace db
  const auto n = site_cert_names(g, "pdx");
  BOOST_TEST(n.front() == "mysql-orders-pdx");  // the common name: short
  for (const std::string want : {"mysql-orders-pdx.db", "mysql-orders-pdx.db.svc",
                                 "mysql-orders-pdx.db.svc.cluster.local", "localhost", "127.0.0.1",
                                 "bloodraven://site/db/orders/pdx"})
    BOOST_TEST(has(n, want), want);
  // The host the operator and the peers dial (render::sidecar_peer_address) is named.
  const auto peer = render::sidecar_peer_address("orders", "pdx", "db");
  BOOST_TEST(has(n, peer.substr(0, peer.rfind(':'))));
  BOOST_TEST(!has(n, "bloodraven://operator"));
  BOOST_TEST(!has(n, "mysql-orders-iad"));  // one site's certificate names no other site
  const auto o = operator_cert_names("bloodraven", "ops");
  for (const std::string want : {"bloodraven", "bloodraven.ops", "bloodraven.ops.svc",
                                 "bloodraven.ops.svc.cluster.local", "localhost", "bloodraven://operator"})
    BOOST_TEST(has(o, want), want);
  BOOST_TEST(render::api_tls_secret_name("orders", "pdx") == "mysql-orders-pdx-api-tls");
}

BOOST_AUTO_TEST_CASE(site_secret_object_and_ownership) {
  const auto g = base_group();
  const json s = site_secret(g, "iad", "CA", {"CERT", "KEY"});
  BOOST_TEST(s["type"] == "kubernetes.io/tls");
  BOOST_TEST(s["metadata"]["name"] == "mysql-orders-iad-api-tls");
  BOOST_TEST(s["metadata"]["namespace"] == "db");
  BOOST_TEST(s["metadata"]["ownerReferences"][0]["uid"] == "0f1e2d3c-uid");
  BOOST_TEST(base64_decode(s["data"]["ca.crt"].get<std::string>()).value_or("") == "CA");
  BOOST_TEST(base64_decode(s["data"]["tls.key"].get<std::string>()).value_or("") == "KEY");
  struct row {
    const char* what;
    std::function<void(json&)> edit;
    bool ours;
  };
  const std::vector<row> rows = {
      {"as written", [](json&) {}, true},
      {"another site's", [](json& x) { x["metadata"]["labels"]["shipstream.io/site"] = "pdx"; }, false},
      {"the MySQL TLS component", [](json& x) { x["metadata"]["labels"]["app.kubernetes.io/component"] = "mysql-tls"; }, false},
      {"another manager", [](json& x) { x["metadata"]["labels"]["app.kubernetes.io/managed-by"] = "helm"; }, false},
      {"no labels", [](json& x) { x["metadata"].erase("labels"); }, false},
  };
  for (const auto& r : rows) {
    json x = s;
    r.edit(x);
    BOOST_TEST(ours(x, g, "iad") == r.ours, r.what);
  }
  BOOST_TEST(!ours(json(nullptr), g, "iad"));
}

BOOST_AUTO_TEST_CASE(site_issue_decisions_on_real_certificates) {
  const auto g = base_group();
  auto ca = crypto::make_ca("api-ca", op_ca::ca_validity);
  auto other_ca = crypto::make_ca("other-ca", op_ca::ca_validity);
  BOOST_TEST_REQUIRE((ca && other_ca));
  const auto names = site_cert_names(g, "iad");
  auto leaf = crypto::issue_peer_cert(*ca, names, op_ca::serving_validity);
  auto foreign = crypto::issue_peer_cert(*other_ca, names, op_ca::serving_validity);
  auto pdx = crypto::issue_peer_cert(*ca, site_cert_names(g, "pdx"), op_ca::serving_validity);
  // The same DNS names without the site's URI identity (a MySQL group certificate would be).
  std::vector<std::string> dns_only(names.begin(), names.end() - 1);
  auto no_uri = crypto::issue_peer_cert(*ca, dns_only, op_ca::serving_validity);
  BOOST_TEST_REQUIRE((leaf && foreign && pdx && no_uri));
  auto info = crypto::inspect_cert(leaf->cert_pem);
  BOOST_TEST_REQUIRE(info.has_value());
  BOOST_TEST((info->uris == std::vector<std::string>{"bloodraven://site/db/orders/iad"}));
  const auto now = std::chrono::system_clock::now();
  using group_tls::issue_step;
  struct row {
    const char* what;
    json have;
    op_ca::time_point at;
    issue_step want;
  };
  json unlabelled = site_secret(g, "iad", ca->cert_pem, *leaf);
  unlabelled["metadata"].erase("labels");
  const std::vector<row> rows = {
      {"absent", nullptr, now, issue_step::issue},
      {"current", site_secret(g, "iad", ca->cert_pem, *leaf), now, issue_step::keep},
      {"not yet due (59 of 90 days)", site_secret(g, "iad", ca->cert_pem, *leaf), now + 24h * 59, issue_step::keep},
      {"due (61 of 90 days)", site_secret(g, "iad", ca->cert_pem, *leaf), now + 24h * 61, issue_step::issue},
      {"from another CA", site_secret(g, "iad", ca->cert_pem, *foreign), now, issue_step::issue},
      {"another site's identity", site_secret(g, "iad", ca->cert_pem, *pdx), now, issue_step::issue},
      {"no URI identity", site_secret(g, "iad", ca->cert_pem, *no_uri), now, issue_step::issue},
      {"key of another certificate", site_secret(g, "iad", ca->cert_pem, {leaf->cert_pem, pdx->key_pem}), now,
       issue_step::issue},
      {"ca.crt stale", site_secret(g, "iad", other_ca->cert_pem, *leaf), now, issue_step::rewrite},
      {"not ours", unlabelled, now, issue_step::conflict},
  };
  for (const auto& r : rows) BOOST_TEST((decide_site(g, "iad", *ca, r.have, r.at).step == r.want), r.what);
}

BOOST_AUTO_TEST_CASE(operator_settings) {
  struct row {
    const char* what;
    std::string secret, dir;
    bool standalone;
    config::api_tls_settings given;
    bool ok;
    std::string cert;
  };
  config::api_tls_settings files{"/c.pem", "/k.pem", "/ca.pem", true};
  const std::vector<row> rows = {
      {"off", "", "/tmp/x", false, {}, true, ""},
      {"off keeps the files given", "", "/tmp/x", false, files, true, "/c.pem"},
      {"on", "bloodraven-api-ca", "/tmp/x", false, {}, true, "/tmp/x/tls.crt"},
      {"standalone refused", "bloodraven-api-ca", "/tmp/x", true, {}, false, ""},
      {"with --tls-* files refused", "bloodraven-api-ca", "/tmp/x", false, files, false, "/c.pem"},
      {"no dir refused", "bloodraven-api-ca", "", false, {}, false, ""},
  };
  for (const auto& r : rows) {
    auto tls = r.given;
    const auto err = operator_api_tls(r.secret, r.dir, r.standalone, tls);
    BOOST_TEST(err.empty() == r.ok, r.what << ": " << err);
    BOOST_TEST(tls.cert_file == r.cert, r.what);
    if (r.ok && !r.secret.empty()) {
      BOOST_TEST(tls.key_file == r.dir + "/tls.key", r.what);
      BOOST_TEST(tls.ca_file == r.dir + "/ca.crt", r.what);
      BOOST_TEST(tls.require_client_cert == r.given.require_client_cert, r.what);
    }
    if (!r.ok) BOOST_TEST(err.find("--api-tls-") != std::string::npos, r.what);
  }
}

BOOST_AUTO_TEST_CASE(pod_render_rows) {
  struct row {
    const char* what;
    bool api_tls;
    int version;
  };
  for (const auto& r : std::vector<row>{{"off", false, render::current_reconciler_version},
                                        {"on", true, render::current_reconciler_version},
                                        {"on, version 2 (liveness on the API port)", true, 2}}) {
    render::render_options o;
    o.api_tls = r.api_tls;
    o.reconciler_version = r.version;
    auto res = render_test::render(render_test::base_doc(), o);
    const json* d = render_test::find(res.objects, "Deployment", "mysql-orders-iad");
    BOOST_TEST_REQUIRE(d != nullptr);
    const json pod = (*d)["spec"]["template"]["spec"];
    const json* vol = nullptr;
    for (const auto& v : pod["volumes"])
      if (v.value("name", "") == "api-tls") vol = &v;
    BOOST_TEST((vol != nullptr) == r.api_tls, r.what);
    std::map<std::string, std::string> env;
    json sidecar, mysql;
    for (const auto& c : pod["containers"]) (c["name"] == "sidecar" ? sidecar : mysql) = c;
    for (const auto& e : sidecar["env"]) env[e.value("name", "")] = e.value("value", "");
    int mounted = 0;
    for (const auto& c : {sidecar, mysql})
      for (const auto& m : c.value("volumeMounts", json::array()))
        if (m.value("name", "") == "api-tls") {
          ++mounted;
          BOOST_TEST(c["name"] == "sidecar", r.what);  // mysqld never holds the API key
          BOOST_TEST(m["mountPath"] == "/etc/bloodraven/api-tls", r.what);
          BOOST_TEST(!m.contains("subPath"), r.what);  // updated in place on renewal
        }
    BOOST_TEST(mounted == (r.api_tls ? 1 : 0), r.what);
    const std::string readiness = sidecar["readinessProbe"]["httpGet"].value("scheme", "HTTP");
    const std::string liveness = sidecar["livenessProbe"]["httpGet"].value("scheme", "HTTP");
    if (!r.api_tls) {
      BOOST_TEST(env.count("BLOODRAVEN_TLS_CERT_FILE") == 0u, r.what);
      BOOST_TEST(readiness == "HTTP", r.what);
      continue;
    }
    BOOST_TEST((*vol)["secret"]["secretName"] == "mysql-orders-iad-api-tls", r.what);
    BOOST_TEST(env["BLOODRAVEN_TLS_CERT_FILE"] == "/etc/bloodraven/api-tls/tls.crt", r.what);
    BOOST_TEST(env["BLOODRAVEN_TLS_KEY_FILE"] == "/etc/bloodraven/api-tls/tls.key", r.what);
    BOOST_TEST(env["BLOODRAVEN_TLS_CA_FILE"] == "/etc/bloodraven/api-tls/ca.crt", r.what);
    BOOST_TEST(env["BLOODRAVEN_TLS_CLIENT_AUTH"] == "request", r.what);  // the kubelet's probes
    BOOST_TEST(readiness == "HTTPS", r.what);  // /ready is on the API port
    // Liveness: the plain liveness listener from version 3; the API port (HTTPS) before.
    BOOST_TEST(liveness == (r.version >= 3 ? "HTTP" : "HTTPS"), r.what);
  }
}
