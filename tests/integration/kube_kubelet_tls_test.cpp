// spec.tls on the process kubelet (issue 26, acceptance 2: rotation reaches the sidecars without a
// pod restart). The API simulator holds what config/render produces for a group with spec.tls
// (only site a's Deployment is applied: one pod is enough) and the TLS Secret the group TLS
// controller (actors/operator/kube/core/group_tls.hpp, generated CA: no cert-manager here) issues;
// the kubelet runs the pod for real (mysqld 9.7 from the sandbox chroot with the rendered my.cnf's
// ssl-* files under /etc/mysql/tls, the real bloodraven-sidecar). No operator runs here.
//  1. mysqld serves the issued certificate (Ssl_server_not_after as the server reports it);
//  2. the Secret is renewed (a certificate from the same CA, another lifetime: what a renewal by
//     the controller or cert-manager writes): the kubelet rewrites the mounted files in place and
//     the sidecar has mysqld re-read them (ALTER INSTANCE RELOAD TLS): Ssl_server_not_after
//     changes while neither container restarted (same pids, restartCount 0).
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/core/generated_credentials.hpp"
#include "actors/operator/kube/core/group_tls.hpp"
#include "config/render/group_objects.hpp"
#include "config/render/names.hpp"
#include "io/codec/base64.hpp"
#include "io/crypto/x509_inspect.hpp"
#include "io/crypto/x509_issue.hpp"
#include "tests/integration/kube_kubelet_rendered_fixture.hpp"
#include "tests/support/mtls_client.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using namespace br::test::kubelet_rendered;

namespace {

const std::string op_ns = "bloodraven-system";
const std::string dep_a = "mysql-kt-a";

json tls_group_document() {
  json doc = group_document();
  // requireSecureTransport off: the test's root queries (MariaDB Connector/C, no TLS asked) read
  // the server's status; the sidecar's sessions verify the server either way (MYSQL_TLS_CA).
  doc["spec"]["tls"] = {{"requireSecureTransport", false}};
  return doc;
}

struct kubelet_tls_fixture : rendered_pods_on_kubelet {
  ~kubelet_tls_fixture() { show_logs({dep_a}); }

  /// The certificate mysqld serves, as it reports it (global status: what it loaded).
  std::string served_not_after(const std::string& ip) {
    return scalar(ip, "SELECT VARIABLE_VALUE FROM performance_schema.global_status "
                      "WHERE VARIABLE_NAME='Ssl_server_not_after'");
  }
};

using br::test::secret_item;

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_kubelet_tls, kubelet_tls_fixture)

BOOST_AUTO_TEST_CASE(renewed_secret_reaches_mysqld_without_a_restart) {
  start_kubelet();

  // -- the group, its TLS Secret from the controller, the rendered objects of site a ----------
  create_crd();
  must_create(kube::resources::namespaces, {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", op_ns}}}});
  must_create(br::kube_sim::test::mfg_ref, tls_group_document());
  const auto g = parsed_group(tls_group_document(), get(br::kube_sim::test::mfg_ref, group)["metadata"].value("uid", ""));

  group_tls::controller_options to;
  to.client = c;
  to.operator_ns = op_ns;
  to.namespaces = {ns};
  const auto pass = group_tls::reconcile_tls_once(to);
  BOOST_TEST_REQUIRE(pass.failures == 0);
  const json tls_secret = get(kube::resources::secrets, ns, "kt-tls");
  BOOST_TEST_REQUIRE(tls_secret.is_object());
  const auto first = crypto::inspect_cert(secret_item(tls_secret, "tls.crt"));
  BOOST_TEST_REQUIRE(first.has_value());

  auto rendered = render::render_group(g, {});
  BOOST_TEST_REQUIRE(rendered.ok(), config::to_string(rendered.errors));
  auto op_secret = generated_operator_secret(g, random_password);
  creds = secret_data(op_secret);
  must_create(kube::resources::secrets, op_secret);
  bool added = false;
  must_create(kube::resources::secrets, generated_keys_secret(g, completed_keys(g, {}, added)));
  for (const auto& obj : rendered.objects) {
    const auto kind = obj.value("kind", "");
    const auto site = obj["metadata"].value("labels", json::object()).value(std::string{render::label_site}, "");
    if (site == "b") continue;  // one pod is enough
    if (kind == "Deployment") must_create(kube::resources::deployments, obj);
    else if (kind == "ConfigMap") must_create(kube::resources::configmaps, obj);
    else if (kind == "PersistentVolumeClaim") must_create(kube::resources::pvcs, obj);
    else if (kind == "Service") must_create(kube::resources::services, obj);
  }

  // -- 1. mysqld serves the issued certificate ---------------------------------------------
  std::string ip;
  BOOST_TEST_REQUIRE(eventually([&] {
    ip = kubelet->pod_ip(dep_a);
    return !ip.empty() && scalar(ip, "SELECT 1") == "1";
  }, 240s), "site a's mysqld never answered; kubelet: " << kubelet->error());
  BOOST_TEST(scalar(ip, "SELECT @@ssl_cert") == "/etc/mysql/tls/tls.crt");
  const std::string served_first = served_not_after(ip);
  BOOST_TEST(!served_first.empty());
  const auto mysql_before = kubelet->container(dep_a, "mysql");
  const auto sidecar_before = kubelet->container(dep_a, "sidecar");
  BOOST_TEST_REQUIRE((mysql_before && sidecar_before));
  BOOST_TEST_REQUIRE(sidecar_before->pid > 0);

  // -- 2. a renewal: same CA, a 30-day certificate instead of the 90-day one ------------------
  const json ca_secret = get(kube::resources::secrets, op_ns, "bloodraven-mysql-ca");
  auto renewed = crypto::issue_peer_cert({secret_item(ca_secret, "ca.crt"), secret_item(ca_secret, "ca.key")},
                                         first->names, 24h * 30);
  BOOST_TEST_REQUIRE(renewed.has_value());
  json s = get(kube::resources::secrets, ns, "kt-tls");
  s["data"]["tls.crt"] = base64_encode(renewed->cert_pem);
  s["data"]["tls.key"] = base64_encode(renewed->key_pem);
  const int updates_before = kubelet->volume_updates();
  auto u = c->update(kube::resources::secrets, s);
  BOOST_TEST_REQUIRE(u.ok(), (u.ok() ? "" : u.error().describe()));
  BOOST_TEST(eventually([&] { return kubelet->volume_updates() >= updates_before + 2; }, 30s),
             "the kubelet did not rewrite tls.crt and tls.key in the running pod");
  std::string served_now;
  BOOST_TEST(eventually([&] {
    served_now = served_not_after(ip);
    return !served_now.empty() && served_now != served_first;
  }, 60s), "mysqld still serves the old certificate (" << served_first << "): the sidecar did not have it reload");
  // Neither container restarted for it.
  const auto mysql_after = kubelet->container(dep_a, "mysql");
  const auto sidecar_after = kubelet->container(dep_a, "sidecar");
  BOOST_TEST(mysql_after->pid == mysql_before->pid);
  BOOST_TEST(sidecar_after->pid == sidecar_before->pid);
  BOOST_TEST(mysql_after->restarts == 0);
  BOOST_TEST(sidecar_after->restarts == 0);
  BOOST_TEST(kubelet->pod_ip(dep_a) == ip);
}

BOOST_AUTO_TEST_SUITE_END()
