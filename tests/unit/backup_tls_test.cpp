// spec.tls in the backup engine (issue 26): the client tools' command lines verify the server
// (--ssl-mode=VERIFY_IDENTITY, --ssl-ca of the CA copied into the private directory), the jobs'
// sessions verify it (tls_mode::verify_identity), verify's scratch server serves a certificate
// with require_secure_transport; without a CA, as before (no --ssl flag, TLS when offered).
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "io/backup/ephemeral_mysqld.hpp"
#include "io/backup/job_common.hpp"
#include "io/backup/tool_args.hpp"
#include "io/backup/tool_env.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br::backup;
namespace fs = std::filesystem;

namespace {

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

size_t ssl_flags(const std::vector<std::string>& v) {
  return static_cast<size_t>(std::count_if(v.begin(), v.end(), [](const std::string& a) { return a.rfind("--ssl", 0) == 0; }));
}

mysql_target target(std::string ca = {}) {
  mysql_target t;
  t.host = "mysql-g-b.db.svc.cluster.local";
  t.port = 3306;
  t.user = "backup";
  t.tls_ca_file = std::move(ca);
  return t;
}

}  // namespace

BOOST_AUTO_TEST_CASE(client_tls_args_rows) {
  BOOST_TEST(client_tls_args("").empty());
  auto a = client_tls_args("/tmp/p/ca.pem");
  BOOST_TEST((a == std::vector<std::string>{"--ssl-mode=VERIFY_IDENTITY", "--ssl-ca=/tmp/p/ca.pem"}));
}

BOOST_AUTO_TEST_CASE(tool_command_lines_verify_with_a_ca) {
  const std::vector<std::string> schemas = {"appdb", "shop"};
  auto dump = dump_args(target(), "/p/client.cnf", "/p/ca.pem", schemas);
  BOOST_TEST(has(dump, "--ssl-mode=VERIFY_IDENTITY"));
  BOOST_TEST(has(dump, "--ssl-ca=/p/ca.pem"));
  BOOST_TEST(ssl_flags(dump) == 2u);
  BOOST_TEST(has(dump, "--host=mysql-g-b.db.svc.cluster.local"));  // the name the certificate must carry
  BOOST_TEST(dump.front() == "--defaults-file=/p/client.cnf");  // mysqldump wants it first
  BOOST_TEST(dump[dump.size() - 3] == "--databases");
  BOOST_TEST(dump.back() == "shop");
  auto load = load_args(target(), "/p/client.cnf", "/p/ca.pem");
  BOOST_TEST(has(load, "--ssl-mode=VERIFY_IDENTITY"));
  BOOST_TEST(has(load, "--ssl-ca=/p/ca.pem"));
  BOOST_TEST(load.front() == "--defaults-file=/p/client.cnf");
  BOOST_TEST(has(load, "--binary-mode"));
  // No RSA key is fetched in either case (the tools' default; never asked for).
  for (const auto& a : dump) BOOST_TEST(a.find("public-key") == std::string::npos);
  for (const auto& a : load) BOOST_TEST(a.find("public-key") == std::string::npos);
  // Without spec.tls: as before, no --ssl flag.
  BOOST_TEST(ssl_flags(dump_args(target(), "/p/client.cnf", "", schemas)) == 0u);
  BOOST_TEST(ssl_flags(load_args(target(), "/p/client.cnf", "")) == 0u);
}

BOOST_AUTO_TEST_CASE(sessions_verify_with_a_ca) {
  br::mysql::connect_options o;
  apply_tls(target("/etc/mysql/tls/ca.crt"), o);
  BOOST_TEST((o.tls == br::mysql::tls_mode::verify_identity));
  BOOST_TEST(o.tls_ca_file == "/etc/mysql/tls/ca.crt");
  br::mysql::connect_options p;
  apply_tls(target(), p);
  BOOST_TEST((p.tls == br::mysql::tls_mode::preferred));
  BOOST_TEST(p.tls_ca_file.empty());
}

BOOST_AUTO_TEST_CASE(the_ca_is_staged_in_the_private_directory) {
  br::test::temp_dir tmp("br-backup-tls");
  tool_settings t;
  t.work_dir = tmp.path.string();
  std::string err;
  private_dir dir(t, err);
  BOOST_TEST_REQUIRE(err.empty(), err);
  BOOST_TEST(stage_ca(dir, "", err).empty());
  BOOST_TEST(err.empty());
  const auto ca = (tmp.path / "ca.crt").string();
  std::ofstream(ca) << "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
  auto staged = stage_ca(dir, ca, err);
  BOOST_TEST_REQUIRE(err.empty(), err);
  BOOST_TEST(staged == dir.tool_path("ca.pem"));
  std::ifstream in(dir.host_path("ca.pem"));
  std::string text((std::istreambuf_iterator<char>(in)), {});
  BOOST_TEST(text.find("-----BEGIN CERTIFICATE") == 0u);
  BOOST_TEST(((fs::status(dir.host_path("ca.pem")).permissions() & fs::perms::all) == (fs::perms::owner_read | fs::perms::owner_write)));
  // Refusals: never an unverified fallback.
  private_dir d2(t, err);
  BOOST_TEST(stage_ca(d2, (tmp.path / "missing.crt").string(), err).empty());
  BOOST_TEST(err.find("the TLS CA (spec.tls): cannot read") == 0u, err);
  err.clear();
  std::ofstream(tmp.path / "empty.crt").close();
  BOOST_TEST(stage_ca(d2, (tmp.path / "empty.crt").string(), err).empty());
  BOOST_TEST(err.find("is empty") != std::string::npos, err);
  err.clear();
  std::ofstream(tmp.path / "big.crt") << std::string((1 << 20) + 1, 'x');
  BOOST_TEST(stage_ca(d2, (tmp.path / "big.crt").string(), err).empty());
  BOOST_TEST(err.find("over 1 MiB") != std::string::npos, err);
}

BOOST_AUTO_TEST_CASE(scratch_server_serves_tls_when_given_files) {
  ephemeral_options o;
  auto plain = ephemeral_run_args("/tmp/d", "", 40123, o);
  BOOST_TEST(ssl_flags(plain) == 0u);
  BOOST_TEST(!has(plain, "--require-secure-transport=ON"));
  o.tls_ca_file = "/etc/mysql/tls/ca.crt";
  o.tls_cert_file = "/etc/mysql/tls/tls.crt";
  o.tls_key_file = "/etc/mysql/tls/tls.key";
  auto run = ephemeral_run_args("/tmp/d", "", 40123, o);
  for (const char* want : {"--ssl-ca=/tmp/d/tls-ca.pem", "--ssl-cert=/tmp/d/tls-cert.pem", "--ssl-key=/tmp/d/tls-key.pem",
                           "--require-secure-transport=ON", "--bind-address=127.0.0.1"})
    BOOST_TEST(has(run, want), want);
}
