// Group Replication over verified TLS in Kubernetes mode (issue 26): the API simulator under the
// chart's RBAC, a simulated kubelet, the operator in process and three real MySQL 9.7 members
// (sandbox instances 370-372) with sandbox certificates and require_secure_transport; the group
// has `spec.tls`. The operator's sessions verify against the group's CA file (SIMULATED: the test
// writes the sandbox CA where the group TLS controller would). The operator bootstraps the group
// and joins the others; every member then runs the verified settings the operator set before its
// START (VERIFY_IDENTITY, the recovery channel verifying its donor, no RSA key fetch), every
// session of the recovery account (the group communication) and of the operator is TLS. Then the
// primary's certificate is rotated without a restart and a member that left joins again.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <thread>

#include "tests/integration/kube_gr_fixture.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::vector<int> ids = {370, 371, 372};

struct gr_tls_fixture : test::kube_gr_fixture {
  gr_tls_fixture() : kube_gr_fixture(ids, "grt") {
    tls = true;
    tls_ca_dir = (std::filesystem::temp_directory_path() / "br-kube-gr-tls-ca").string();
  }
  ~gr_tls_fixture() {
    for (int i : ids) test::gr_sandbox().run({"tls-off", std::to_string(i)});
    std::error_code ec;
    std::filesystem::remove_all(tls_ca_dir, ec);
  }
  std::string q(const std::string& site, const std::string& sql) {
    return test::gr_sandbox().sql(instance_of(site), sql);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_gr_tls, gr_tls_fixture)

BOOST_AUTO_TEST_CASE(the_operator_forms_the_group_over_verified_tls) {
  members_up();
  // The group's CA file, where the group TLS controller writes it (group_tls::group_ca_file).
  const auto ca = test::gr_sandbox().must({"tls-ca"});
  const auto dir = std::filesystem::path(tls_ca_dir) / ns / group;
  std::filesystem::create_directories(dir);
  std::filesystem::copy_file(ca, dir / "ca.crt", std::filesystem::copy_options::overwrite_existing);
  start_group();
  const auto t0 = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(test::eventually([&] { return online({"a", "b", "c"}); }, 240s),
                     "no 3 ONLINE members: " << status().dump());
  BOOST_TEST_MESSAGE("3 ONLINE "
                     << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()
                     << " s after the group was created");
  for (const std::string s : {"a", "b", "c"}) {
    BOOST_TEST_CONTEXT(s) {
      BOOST_TEST(q(s, "SELECT CONCAT_WS(',', @@group_replication_ssl_mode, "
                      "@@group_replication_recovery_use_ssl, @@group_replication_recovery_ssl_ca, "
                      "@@group_replication_recovery_ssl_verify_server_cert, "
                      "@@group_replication_recovery_get_public_key, @@require_secure_transport)") ==
                 "VERIFY_IDENTITY,1,/etc/mysql/tls/ca.crt,1,0,1");
      // No session of the recovery account (the group communication) or of the operator is
      // plain text, and the recovery account has at least one (the others talk to every member).
      BOOST_TEST(q(s, "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_USER IN "
                      "('repl', 'bloodraven') AND CONNECTION_TYPE <> 'SSL/TLS'") == "0");
      BOOST_TEST(std::stoi("0" + q(s, "SELECT COUNT(*) FROM performance_schema.threads WHERE "
                                      "PROCESSLIST_USER = 'repl' AND CONNECTION_TYPE = 'SSL/TLS'")) >
                 0);
    }
  }
  // The joiners' recovery channels verified their donor.
  const std::string primary = gr().value("primaryMember", "");
  for (const std::string s : {"a", "b", "c"})
    if (s != primary)
      BOOST_TEST(q(s, "SELECT CONCAT_WS(',', SSL_ALLOWED, SSL_CA_FILE, SSL_VERIFY_SERVER_CERTIFICATE, "
                      "GET_PUBLIC_KEY) FROM performance_schema.replication_connection_configuration "
                      "WHERE CHANNEL_NAME = 'group_replication_recovery'") ==
                     "YES,/etc/mysql/tls/ca.crt,YES,NO",
                 s);

  // Rotation without a restart: the primary serves a new certificate of the same CA after
  // ALTER INSTANCE RELOAD TLS (what the sidecar's tls_watcher runs); a secondary that leaves is
  // started again by the operator and connects to the primary, verifying the new certificate.
  BOOST_TEST_REQUIRE(!primary.empty());
  const int pi = instance_of(primary);
  const std::string not_after = "SELECT VARIABLE_VALUE FROM performance_schema.global_status "
                                "WHERE VARIABLE_NAME = 'Ssl_server_not_after'";
  const auto before = q(primary, not_after);
  const auto pid = test::gr_sandbox().must({"pid", std::to_string(pi)});
  std::this_thread::sleep_for(1100ms);  // a later notAfter, to the second
  test::gr_sandbox().must({"tls-cert", std::to_string(pi)});
  q(primary, "ALTER INSTANCE RELOAD TLS");
  BOOST_TEST_REQUIRE(q(primary, not_after) != before, "the primary still serves " << before);
  const std::string leaver = primary == "a" ? "b" : "a";
  q(leaver, "STOP GROUP_REPLICATION");
  BOOST_TEST_REQUIRE(q(leaver, "SELECT IFNULL((SELECT MEMBER_STATE FROM performance_schema."
                               "replication_group_members WHERE MEMBER_ID = @@server_uuid), "
                               "'OFFLINE')") == "OFFLINE");
  const auto t1 = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(test::eventually([&] { return online({"a", "b", "c"}); }, 120s),
                     "the member did not rejoin after the rotation: " << status().dump());
  BOOST_TEST_MESSAGE(leaver << " ONLINE again "
                            << std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count()
                            << " s after it left, the primary's certificate rotated");
  BOOST_TEST(test::gr_sandbox().must({"pid", std::to_string(pi)}) == pid);  // no restart
  // Admission alone does not show it: a member is admitted while it cannot reach one other member
  // (by hand, MySQL 9.7: with the primary's certificate rotated to another host name the leaver
  // was ONLINE again in 5 s, its connections to the primary refused). The primary must see a
  // group connection from each of the other two: the leaver's new one verified the new certificate.
  BOOST_TEST(test::eventually([&] {
    return q(primary, "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_USER = "
                      "'repl' AND CONNECTION_TYPE = 'SSL/TLS'") == "2";
  }, 30s), "group connections on the primary: " << q(primary, "SELECT COUNT(*) FROM "
                 "performance_schema.threads WHERE PROCESSLIST_USER = 'repl'"));
}

BOOST_AUTO_TEST_SUITE_END()
