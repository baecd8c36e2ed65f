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

#include "tests/integration/kube_kubelet_tls_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string group = "kx";
const std::vector<std::string> sites = {"a", "b"};

json group_object() {
  json g = br::test::kubelet_e2e::kubelet_group_object(group, sites, "192.0.2.8");
  g["spec"]["tls"] = {{"requireSecureTransport", false}};
  return g;
}

struct tls_e2e_fixture : br::test::kubelet_e2e::operator_with_tls_on_kubelet {
  tls_e2e_fixture() : operator_with_tls_on_kubelet(::group, ::sites) {}
  ~tls_e2e_fixture() {
    if (tls) caf::anon_send_exit(tls, caf::exit_reason::user_shutdown);
    remove_ca_files();
  }
  void remove_ca_files() {
    std::error_code ec;
    std::filesystem::remove_all(std::string{group_tls::default_ca_dir} + "/" + ns + "/" + group, ec);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_kubelet_tls_e2e, tls_e2e_fixture)

BOOST_AUTO_TEST_CASE(operator_bootstraps_a_group_over_verified_tls) {
  const auto t0 = std::chrono::steady_clock::now();
  install();
  remove_ca_files();
  // The group TLS controller beside the group source, as kube_mode starts it, under the chart's
  // RBAC.
  start_with_tls(group_object());

  const auto [first, other] = bootstrapped("over TLS", t0);

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
  write_reaches(other);
}

BOOST_AUTO_TEST_SUITE_END()
