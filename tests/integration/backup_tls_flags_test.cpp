// The TLS flags of `bloodraven backup run|verify` and `restore` (issue 26), the real binary, no
// MySQL: where the CA comes from (--tls-ca, else the --standalone group file's spec.tls.caFile,
// else none) shows in the result's tlsVerified before the run fails on an empty store; an
// unreadable or invalid group file and an incomplete set of verify's TLS files are refused.
#include <boost/test/unit_test.hpp>

#include <fstream>

#include "tests/integration/backup_cli_util.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br;
using namespace br::test::backup_cli;

namespace {

struct cli_env {
  test::temp_dir tmp{"br-backup-tls-flags"};
  std::map<std::string, std::string> env;
  cli_env() {
    std::filesystem::create_directories(tmp.path / "backups");
    std::filesystem::create_directories(tmp.path / "creds");
    std::ofstream(tmp.path / "creds" / "username") << "root";
    std::ofstream(tmp.path / "creds" / "password") << "pw";
    env["BLOODRAVEN_BACKUP_STORAGE_TYPE"] = "PVC";
    env["BLOODRAVEN_BACKUP_PVC_MOUNT_PATH"] = (tmp.path / "backups").string();
  }
  std::string creds() const { return (tmp.path / "creds").string(); }
  /// A standalone group file with `tls` as its spec.tls line ("" = none).
  std::string group_file(const std::string& tls) const {
    auto p = (tmp.path / "group.yaml").string();
    std::ofstream f(p, std::ios::trunc);
    f << "apiVersion: shipstream.io/v1alpha1\nkind: MysqlFailoverGroup\nmetadata: {name: g, namespace: db}\n"
         "spec:\n  sites:\n";
    for (const char* s : {"a", "b"})
      f << "    - name: " << s << "\n      role: primary-candidate\n      address: {host: 127.0.0.1, port: 1}\n"
        << "      sidecarAddress: \"127.0.0.1:2\"\n";
    if (!tls.empty()) f << "  tls: " << tls << "\n";
    return p;
  }
  std::pair<bool, nlohmann::json> restore(std::vector<std::string> extra) {
    std::vector<std::string> args = {"restore", "--name", "nope", "--target", "127.0.0.1:1", "--creds-dir", creds()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args, env);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(backup_tls_flags, cli_env)

BOOST_AUTO_TEST_CASE(where_the_ca_comes_from) {
  auto [ok1, flag] = restore({"--tls-ca", "/etc/mysql/tls/ca.crt"});
  BOOST_TEST(!ok1);
  BOOST_TEST(flag.value("tlsVerified", false), flag.dump());
  BOOST_TEST(flag.value("message", "").find("not found") != std::string::npos, flag.dump());
  auto [ok2, file] = restore({"--standalone", group_file("{caFile: /etc/bloodraven/ca.pem}")});
  BOOST_TEST(!ok2);
  BOOST_TEST(file.value("tlsVerified", false), file.dump());
  BOOST_TEST(file.value("message", "").find("not found") != std::string::npos, file.dump());
  auto [ok3, none] = restore({"--standalone", group_file("")});
  BOOST_TEST(!ok3);
  BOOST_TEST(!none.contains("tlsVerified"), none.dump());  // no spec.tls: TLS when offered, unverified
  BOOST_TEST(none.value("message", "").find("not found") != std::string::npos, none.dump());
}

BOOST_AUTO_TEST_CASE(bad_group_files_and_incomplete_verify_files_are_refused) {
  auto [ok1, missing] = restore({"--standalone", (tmp.path / "absent.yaml").string()});
  BOOST_TEST(!ok1);
  BOOST_TEST(missing.value("message", "").find("--standalone: cannot read the group file") == 0u, missing.dump());
  auto [ok2, invalid] = restore({"--standalone", group_file("{caFile: relative/ca.pem}")});
  BOOST_TEST(!invalid.value("message", "").empty());
  BOOST_TEST(!ok2);
  BOOST_TEST(invalid.value("message", "").find("--standalone: invalid group file") == 0u, invalid.dump());
  BOOST_TEST(invalid.value("message", "").find("spec.tls.caFile") != std::string::npos, invalid.dump());
  auto [ok3, backup] = run_cli({"backup", "run", "--name", "b", "--source", "127.0.0.1:1", "--creds-dir", creds(),
                                "--standalone", (tmp.path / "absent.yaml").string()},
                               env);
  BOOST_TEST(!ok3);
  BOOST_TEST(backup.value("message", "").find("--standalone: cannot read the group file") == 0u, backup.dump());
  auto [ok4, verify] = run_cli({"backup", "verify", "--tls-ca", "/etc/mysql/tls/ca.crt"}, env);
  BOOST_TEST(!ok4);
  BOOST_TEST(verify.value("message", "") == "--tls-ca, --tls-cert and --tls-key go together", verify.dump());
}

BOOST_AUTO_TEST_SUITE_END()
