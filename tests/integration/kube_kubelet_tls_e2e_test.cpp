// spec.tls end to end in Kubernetes mode on the process kubelet (issue 26): the operator's group
// source and the group TLS controller run in this process against the API simulator under the
// chart's RBAC; the kubelet runs the rendered pods for real (init container, mysqld 9.7 with the
// rendered ssl-* options, the real sidecar). Two sites on empty PVCs; no cert-manager (the
// operator's generated CA). The operator bootstraps the group: every MySQL session it opens must
// verify the server against the CA file the controller wrote (a site it cannot verify reads as
// unreachable, so no bootstrap without it), replication runs with SOURCE_SSL_VERIFY_SERVER_CERT.
// Checked afterwards on the servers: the replica's channel verifies its source's certificate and
// is encrypted; every session of the operator/sidecar account and of the replication account is
// TLS. requireSecureTransport is off only so the test's own root queries (no TLS) can look.
#include <boost/test/unit_test.hpp>

#include <filesystem>

#include "actors/operator/kube/core/group_tls.hpp"
#include "tests/integration/kube_kubelet_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::kubelet_e2e::eventually;
using br::test::kubelet_e2e::log_capture;

namespace {

const std::string group = "kx";
const std::vector<std::string> sites = {"a", "b"};
const std::string op_ns = "bloodraven-system";  // the chart release's namespace

json group_object() {
  json list = json::array();
  for (const auto& s : sites)
    list.push_back({{"name", s},
                    {"role", "primary-candidate"},
                    {"zone", "zone-" + s},
                    {"taintNodeSelector", {{"shipstream.io/site." + group, s}}},
                    {"lbIP", "192.0.2.8" + std::to_string(list.size() + 1)},
                    {"storage", {{"size", "1Gi"}}}});
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", "default"}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
            {"pollInterval", "500ms"},
            {"failureThreshold", 3},
            {"recoveryThreshold", 1},
            {"cloneTimeout", 300},
            {"sidecar", {{"leaseTimeout", "8s"}, {"peerCheckInterval", "1s"}, {"fenceTimeout", "5s"}}},
            {"tls", {{"requireSecureTransport", false}}},
            {"sites", list}}}};
}

struct tls_e2e_fixture : br::test::kubelet_e2e::operator_on_kubelet {
  tls_e2e_fixture() : operator_on_kubelet(::group, ::sites) {}
  ticking_actor tls;
  ~tls_e2e_fixture() {
    if (tls) caf::anon_send_exit(tls, caf::exit_reason::user_shutdown);
    std::error_code ec;
    std::filesystem::remove_all(std::string{group_tls::default_ca_dir} + "/" + ns + "/" + group, ec);
  }
  std::string describe() { return "status: " + status().dump() + "\noperator log tail:\n" + log_capture::tail(); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_kubelet_tls_e2e, tls_e2e_fixture)

BOOST_AUTO_TEST_CASE(operator_bootstraps_a_group_over_verified_tls) {
  const auto t0 = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(cluster.install_crds(true).empty());
  BOOST_TEST_REQUIRE(cluster.create(kube::resources::namespaces, "",
                                    {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", op_ns}}}})
                         .empty());
  std::error_code ec;
  std::filesystem::remove_all(std::string{group_tls::default_ca_dir} + "/" + ns + "/" + group, ec);
  // The group TLS controller beside the group source, as kube_mode starts it (same CA directory:
  // both defaults), under the chart's RBAC.
  auto made = c->create(mfg_resource, ns, group_object());
  BOOST_TEST_REQUIRE(made.ok(), (made.ok() ? "" : made.error().describe()));
  start();
  group_tls::controller_options to;
  to.client = cluster.client(br::kube_sim::test::operator_identity);
  to.operator_ns = op_ns;
  to.namespaces = {ns};
  to.interval = 1s;
  tls = group_tls::spawn_tls_controller(*sys, to);

  BOOST_TEST_REQUIRE(eventually([&] { return status().value("bootstrap", json::object()).value("phase", "") == "Done"; }, 420s),
                     "no bootstrap over TLS: " << describe());
  phase("apply to bootstrap Done", t0);
  const std::string first = active();
  BOOST_TEST_REQUIRE(!first.empty());
  const std::string other = first == "a" ? "b" : "a";
  BOOST_TEST_REQUIRE(eventually([&] { return replicating_ok(other, first); }, 60s), "not replicating: " << describe());

  // The replica's channel: encrypted, the source's certificate verified against the mounted CA.
  BOOST_TEST(qs(other, "SELECT CONCAT(SSL_ALLOWED, ' ', SSL_VERIFY_SERVER_CERTIFICATE, ' ', SSL_CA_FILE) FROM "
                       "performance_schema.replication_connection_configuration") ==
             "YES YES /etc/mysql/tls/ca.crt");
  BOOST_TEST(qs(first, "SELECT @@require_secure_transport") == "0");  // as asked, for these queries
  // Every session of the operator/sidecar account and of the replication account is TLS.
  for (const auto& s : sites) {
    BOOST_TEST_CONTEXT(s) {
      const std::string users = "('" + creds["username"] + "','" + creds["MYSQL_REPLICATION_USER"] + "')";
      BOOST_TEST(qs(s, "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_USER IN " + users +
                           " AND CONNECTION_TYPE <> 'SSL/TLS'") == "0");
    }
  }
  BOOST_TEST(std::stoi("0" + qs(first, "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_USER IN ('" +
                                            creds["username"] + "','" + creds["MYSQL_REPLICATION_USER"] +
                                            "') AND CONNECTION_TYPE = 'SSL/TLS'")) > 0);
  // Writes through the -primary Service reach the replica.
  q(primary_service(), "CREATE DATABASE IF NOT EXISTS app");
  q(primary_service(), "CREATE TABLE IF NOT EXISTS app.t (id INT PRIMARY KEY)");
  q(primary_service(), "INSERT INTO app.t VALUES (1)");
  BOOST_TEST(eventually([&] { return qs(other, "SELECT COUNT(*) FROM app.t") == "1"; }, 30s));
}

BOOST_AUTO_TEST_SUITE_END()
