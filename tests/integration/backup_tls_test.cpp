// Backup, restore and verify over verified TLS on real MySQL 9.7 (issue 26). Sandbox instances
// 350 (source), 351 (restore target) and 352 (a server whose certificate names another host), all
// started with require_secure_transport and certificates from the sandbox CA
// (tools/mysql-sandbox tls-cert/tls-config); the MySQL tools run in the sandbox chroot.
//  - `bloodraven backup run --tls-ca` dumps 350; two markers are written after it and archived;
//    `bloodraven restore --standalone <group file>` (its spec.tls.caFile) loads 351 and replays
//    the archive to a GTID set (mysqlbinlog | mysql over verified TLS): rows, markers and
//    gtid_executed arrive;
//  - `bloodraven backup verify --pitr latest --tls-ca/--tls-cert/--tls-key` restores and replays
//    into a scratch server that serves a certificate of the CA with require_secure_transport;
//  - against 352 the backup and the restore are refused with the verification error, and the
//    tools themselves (mysql, mysqldump with --ssl-mode=VERIFY_IDENTITY) refuse it too, while the
//    same tools without the flags connect (the refusal is the verification's);
//  - CLONE with clone_ssl_ca accepts 352 (MySQL 9.7's clone client checks the CA only).
// The instances are stopped and their TLS options removed at the end.
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "io/backup/tool_args.hpp"
#include "tests/integration/backup_cli_util.hpp"
#include "tests/integration/backup_env.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br;
using namespace br::test::backup_cli;

namespace {

constexpr int source = 350;
constexpr int target = 351;
constexpr int wrong = 352;

std::string tls_dir() {
  static const std::string d = sandbox().must({"tls-dir"});
  return d;
}
std::string ca_file() { return tls_dir() + "/ca.crt"; }

mysql::connection verified_root(int i) {
  auto o = sandbox().options(i, "root");
  o.read_timeout = std::chrono::seconds(120);
  o.tls = mysql::tls_mode::verify_identity;
  o.tls_ca_file = ca_file();
  auto c = mysql::connection::open(o);
  BOOST_TEST_REQUIRE(c.ok(), (c.ok() ? "" : c.error().to_string()));
  return std::move(*c);
}

std::string addr(int i) { return "127.0.0.1:" + std::to_string(sandbox().port(i)); }

struct tls_servers {
  tls_servers() {
    sandbox().must({"tls-ca"});
    for (int i : {source, target, wrong}) {
      if (i == wrong) sandbox().must({"tls-cert", std::to_string(i), "--wrong-host"});
      else sandbox().must({"tls-cert", std::to_string(i)});
      sandbox().must({"tls-config", std::to_string(i)});
      sandbox().must({"up-ids", std::to_string(i)});
      sandbox().reset(i);  // fresh, and started with the TLS options
    }
  }
  ~tls_servers() {
    for (int i : {source, target, wrong}) {
      sandbox().run({"stop", std::to_string(i)});
      sandbox().run({"tls-off", std::to_string(i)});
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(backup_tls, *boost::unit_test::fixture<tls_servers>())

BOOST_AUTO_TEST_CASE(backup_restore_and_verify_over_verified_tls) {
  test::temp_dir tmp("br-backup-tls");
  test::backup_storage storage(tmp.path.string(), source);
  auto& env = storage.env();
  {
    auto s = verified_root(source);
    exec(s, "SET GLOBAL super_read_only = OFF");
    exec(s, "SET GLOBAL read_only = OFF");
    exec(s, "CREATE TABLE appdb.t (id INT PRIMARY KEY, v VARCHAR(20))");
    exec(s, "INSERT INTO appdb.t VALUES (1,'a'),(2,'b'),(3,'c')");
    exec(s, "CREATE TABLE appdb.markers (id INT PRIMARY KEY)");
  }
  auto s2 = verified_root(source);
  const std::string source_set = gtids(s2);
  auto [ok, backup] = run_cli({"backup", "run", "--name", "b1", "--source", addr(source), "--creds-dir",
                               env["CREDS_DIR"], "--tls-ca", ca_file()},
                              env);
  BOOST_TEST_REQUIRE(ok, backup.dump());
  BOOST_TEST(backup["tlsVerified"] == true);
  BOOST_TEST(gtid_set::parse(backup["gtidExecuted"].get<std::string>())->to_compact_string() == source_set);
  // After the backup: two markers, the binlogs sealed and archived (the sidecar archiver's scan).
  exec(s2, "INSERT INTO appdb.markers VALUES (1)");
  exec(s2, "INSERT INTO appdb.markers VALUES (2)");
  exec(s2, "FLUSH BINARY LOGS");
  const std::string after_set = gtids(s2);
  sidecar::scan_options so;
  so.layout = {env["ARCHIVE_STAGE"], "s1"};
  so.binlog_dir = sandbox().datadir(source);
  so.index_name = "binlog.index";
  sidecar::scan_report report;
  auto archived = storage.archive(so, report);
  BOOST_TEST_REQUIRE(archived == "", archived);

  // A target whose certificate names another host: refused before anything is written.
  auto [wok0, wrong_restore] = run_cli({"restore", "--name", "b1", "--target", addr(wrong), "--creds-dir",
                                        env["CREDS_DIR"], "--tls-ca", ca_file()},
                                       env);
  BOOST_TEST(!wok0);
  BOOST_TEST(wrong_restore.value("message", "").find("cannot connect to the target " + addr(wrong)) == 0u,
             wrong_restore.dump());

  // The restore takes the CA from the standalone group file's spec.tls.caFile.
  const auto group_file = (tmp.path / "group.yaml").string();
  std::ofstream(group_file) << "apiVersion: shipstream.io/v1alpha1\nkind: MysqlFailoverGroup\n"
                               "metadata: {name: g, namespace: db}\nspec:\n  sites:\n"
                               "    - name: a\n      role: primary-candidate\n"
                               "      address: {host: 127.0.0.1, port: " << sandbox().port(source) << "}\n"
                               "      sidecarAddress: \"127.0.0.1:1\"\n"
                               "    - name: b\n      role: primary-candidate\n"
                               "      address: {host: 127.0.0.1, port: " << sandbox().port(target) << "}\n"
                               "      sidecarAddress: \"127.0.0.1:2\"\n"
                               "  tls: {caFile: \"" << ca_file() << "\", requireSecureTransport: true}\n";
  // Point in time: the load and the binlog replay (mysqlbinlog | mysql) over verified TLS.
  auto [rok, restore] = run_cli({"restore", "--name", "b1", "--target", addr(target), "--creds-dir",
                                 env["CREDS_DIR"], "--standalone", group_file, "--stop-gtid", after_set},
                                env);
  BOOST_TEST_REQUIRE(rok, restore.dump());
  BOOST_TEST(restore["tlsVerified"] == true);
  BOOST_TEST(!restore["binlogsReplayed"].empty(), restore.dump());
  auto t = verified_root(target);
  BOOST_TEST(column(t, "SELECT v FROM appdb.t ORDER BY id") == (std::vector<std::string>{"a", "b", "c"}));
  BOOST_TEST(column(t, "SELECT id FROM appdb.markers ORDER BY id") == (std::vector<std::string>{"1", "2"}));
  BOOST_TEST(gtids(t) == after_set);

  // verify: the scratch server serves a certificate of the CA naming 127.0.0.1 (the target's).
  const auto cert_dir = tls_dir() + "/" + std::to_string(target);
  auto [vok, verify] = run_cli({"backup", "verify", "--name", "b1", "--pitr", "latest", "--sanity-query",
                                "SELECT id FROM appdb.markers", "--expect-min-rows", "2", "--tls-ca", ca_file(),
                                "--tls-cert", cert_dir + "/tls.crt", "--tls-key", cert_dir + "/tls.key"},
                               env);
  BOOST_TEST(vok, verify.dump());
  BOOST_TEST(verify["tlsVerified"] == true);
  BOOST_TEST(verify.value("gtidExecuted", "") == after_set, verify.dump());
  // ... and one that names another host is refused by verify's own sessions.
  const auto wrong_dir = tls_dir() + "/" + std::to_string(wrong);
  auto [wok, wrong_verify] = run_cli({"backup", "verify", "--name", "b1", "--start-timeout", "5s", "--tls-ca",
                                      ca_file(), "--tls-cert", wrong_dir + "/tls.crt", "--tls-key",
                                      wrong_dir + "/tls.key"},
                                     env);
  BOOST_TEST(!wok, wrong_verify.dump());
  BOOST_TEST(wrong_verify.value("step", "") == "provision");
}

BOOST_AUTO_TEST_CASE(a_server_with_another_host_name_is_refused) {
  test::temp_dir tmp("br-backup-tls-wrong");
  test::backup_storage storage(tmp.path.string(), wrong);
  auto& env = storage.env();
  auto [ok, backup] = run_cli({"backup", "run", "--name", "w1", "--source", addr(wrong), "--creds-dir",
                               env["CREDS_DIR"], "--tls-ca", ca_file()},
                              env);
  BOOST_TEST_REQUIRE(!ok, backup.dump());
  const auto msg = backup.value("message", "");
  BOOST_TEST_MESSAGE("backup refused: " << msg);
  BOOST_TEST(msg.find("cannot connect to the source " + addr(wrong)) == 0u, msg);
  BOOST_TEST((msg.find("certificate") != std::string::npos || msg.find("TLS") != std::string::npos ||
              msg.find("SSL") != std::string::npos),
             msg);
  // A Group Replication member list: the members are read over verified TLS for the pick too
  // (these servers are no GR members: no source is picked, but each says how it was read).
  auto [gok, gr] = run_cli({"backup", "run", "--name", "w3", "--source", addr(wrong) + "," + addr(source),
                            "--creds-dir", env["CREDS_DIR"], "--tls-ca", ca_file()},
                           env);
  BOOST_TEST(!gok);
  BOOST_TEST_REQUIRE(gr["sourceMembers"].size() == 2u, gr.dump());
  BOOST_TEST(gr["sourceMembers"][0].get<std::string>().find("Validation of SSL server certificate failed") !=
                 std::string::npos,
             gr.dump());
  BOOST_TEST(gr["sourceMembers"][1].get<std::string>().find("SSL") == std::string::npos, gr.dump());
  // Unverified (no CA: TLS when offered), the same server is backed up: the refusal above is the
  // verification's.
  auto [pok, plain] = run_cli({"backup", "run", "--name", "w2", "--source", addr(wrong), "--creds-dir",
                               env["CREDS_DIR"]},
                              env);
  BOOST_TEST(pok, plain.dump());
}

BOOST_AUTO_TEST_CASE(the_tools_verify_the_host_name) {
  test::temp_dir tmp("br-backup-tls-tools");
  test::backup_storage storage(tmp.path.string(), wrong);
  backup::tool_settings tools;
  tools.chroot = storage.env()["BLOODRAVEN_TOOLS_CHROOT"];
  tools.timeout = std::chrono::seconds(60);
  std::string err;
  backup::private_dir dir(tools, err);
  BOOST_TEST_REQUIRE(err.empty(), err);
  auto opt = backup::write_option_file(dir, "client.cnf", "root", "rootpw", err);
  auto ca = backup::stage_ca(dir, ca_file(), err);
  BOOST_TEST_REQUIRE(err.empty(), err);
  backup::mysql_target t;
  t.host = "127.0.0.1";
  auto run = [&](int i, const char* tool, const std::string& tool_ca) {
    t.port = sandbox().port(i);
    std::vector<backup::command> cmds = {backup::tool_command(
        tools, tool,
        std::string(tool) == "mysql" ? backup::load_args(t, opt, tool_ca) : backup::dump_args(t, opt, tool_ca, {"mysql"}))};
    backup::pipeline_options po;
    po.deadline = std::chrono::seconds(60);
    po.env = backup::tool_environment(dir);
    std::string sql = "SELECT 1;\n";
    size_t fed = 0;
    if (std::string(tool) == "mysql") po.input = [&](char* buf, size_t cap) {
      size_t n = std::min(cap, sql.size() - fed);
      std::copy_n(sql.data() + fed, n, buf);
      fed += n;
      return static_cast<long>(n);
    };
    auto pr = backup::run_pipeline(cmds, po);
    return std::pair{pr.ok(), pr.describe(cmds)};
  };
  for (const char* tool : {"mysql", "mysqldump"}) {
    auto [good, good_why] = run(source, tool, ca);
    BOOST_TEST(good, tool << " against a right certificate: " << good_why);
    auto [accepted, why] = run(wrong, tool, ca);
    BOOST_TEST(!accepted, tool << " accepted a certificate for another host name");
    if (!accepted) BOOST_TEST_MESSAGE(tool << " refused as expected: " << why);
    auto [unverified, uwhy] = run(wrong, tool, "");
    BOOST_TEST(unverified, tool << " without the flags: " << uwhy);
  }
}

// MySQL 9.7's clone client raises its mode to VERIFY_CA when clone_ssl_ca is set and never to
// VERIFY_IDENTITY, and no clone_* variable changes that: a donor whose certificate names another
// host but chains to the CA is accepted. This case records that limit (docs/safety.md); it fails
// the day MySQL checks the host name, which is then the time to rely on it.
BOOST_AUTO_TEST_CASE(clone_checks_the_donor_ca_but_not_its_host_name) {
  auto r = verified_root(target);
  exec(r, "SET GLOBAL super_read_only = OFF");
  exec(r, "SET GLOBAL clone_ssl_ca = '/etc/mysql/tls/ca.crt'");  // the CA as the chrooted mysqld sees it
  exec(r, "SET GLOBAL clone_valid_donor_list = '127.0.0.1:" + std::to_string(sandbox().port(wrong)) + "'");
  const std::string dir = "/tmp/br-clone-wrong-host-" + std::to_string(::getpid());
  auto c = r.exec("CLONE INSTANCE FROM 'root'@'127.0.0.1':" + std::to_string(sandbox().port(wrong)) +
                  " IDENTIFIED BY 'rootpw' DATA DIRECTORY = '" + dir + "' REQUIRE SSL");
  const std::string root = tls_dir().substr(0, tls_dir().size() - std::string{"/etc/mysql/tls"}.size());
  std::error_code ec;
  std::filesystem::remove_all(root + dir, ec);
  exec(r, "SET GLOBAL clone_ssl_ca = ''");
  exec(r, "SET GLOBAL super_read_only = ON");
  BOOST_TEST(c.ok(), "CLONE from a donor whose certificate names another host: "
                         << (c.ok() ? std::string("accepted (host name not checked)") : c.error().to_string()));
}

BOOST_AUTO_TEST_SUITE_END()
