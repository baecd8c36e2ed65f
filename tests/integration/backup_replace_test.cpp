// `bloodraven restore --replace` (the Job of spec.restoreInPlace) on real MySQL 9.7: the data of
// a live server is replaced by a backup, optionally to a point in time.
//
// Source S (BR_REPLACE_FIRST_INSTANCE, default 207; reset: fresh) holds appdb.t rows 1-3 and
// shop.orders, is backed up; then rows 4-5, a schema made after the backup, and markers 1.5 s
// apart (the source's gtid_executed recorded after each) are written, logs flushed and archived.
// Refused, nothing changed: S with a replica (S+1) attached; S writable. Then S is fenced and
// replaced: rows 1-3 only, the later schema gone, the operator's schema and MySQL's accounts kept,
// the GTIDs after the backup reported as discarded and kept in gtid_executed (purged), fenced
// again. Then replaced again to a second between markers 2 and 3: markers 1-2, discarded = the
// source's set after marker 3 minus its set after marker 2; the CREATE USER and GRANT written
// after the backup are not replayed over the kept account (accountStatementsSkipped). The archive's lineage after a
// replace: backup_replace_lineage_test.cpp.
#include <boost/test/unit_test.hpp>

#include <thread>

#include "actors/sidecar/archive/binlog_scan.hpp"
#include "io/binlog/manifest.hpp"
#include "tests/integration/backup_cli_util.hpp"
#include "tests/integration/backup_env.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br;
using namespace br::test::backup_cli;
using namespace std::chrono_literals;

namespace {

using rows = std::vector<std::string>;

}  // namespace

BOOST_AUTO_TEST_CASE(restore_replace_on_mysql_97) {
  const int src = instance_from_env("BR_REPLACE_FIRST_INSTANCE", 207), replica = src + 1;
  const auto started = std::chrono::steady_clock::now();
  fresh_instances servers({src, replica});

  test::temp_dir tmp("br-replace");
  test::backup_storage storage(tmp.path.string(), src);
  auto& env = storage.env();
  const std::string addr = "127.0.0.1:" + std::to_string(sandbox().port(src));

  auto s = open_root(src);
  exec(s, "SET GLOBAL super_read_only = OFF");
  exec(s, "SET GLOBAL read_only = OFF");
  exec(s, "CREATE TABLE appdb.t (id INT PRIMARY KEY, v VARCHAR(20))");
  exec(s, "INSERT INTO appdb.t VALUES (1,'a'),(2,'b'),(3,'c')");
  exec(s, "CREATE SCHEMA shop");
  exec(s, "CREATE TABLE shop.orders (id INT PRIMARY KEY)");
  exec(s, "INSERT INTO shop.orders VALUES (10),(11)");
  exec(s, "CREATE TABLE appdb.markers (id INT PRIMARY KEY)");
  auto [backup_ok, backup] =
      run_cli({"backup", "run", "--name", "b1", "--source", addr, "--creds-dir", env["CREDS_DIR"]}, env);
  BOOST_TEST_REQUIRE(backup_ok, backup.dump());
  const std::string backup_set = gtid_set::parse(backup["gtidExecuted"].get<std::string>())->to_compact_string();
  BOOST_TEST(backup_set == gtids(s));

  // After the backup: replicated writes, a new schema; the operator's schema and an account
  // written without binlog (as the operator and the init container do).
  exec(s, "INSERT INTO appdb.t VALUES (4,'d'),(5,'e')");
  exec(s, "DELETE FROM shop.orders WHERE id = 10");
  exec(s, "CREATE SCHEMA later");
  exec(s, "CREATE TABLE later.x (id INT PRIMARY KEY)");
  {
    auto nb = open_root(src);
    exec(nb, "SET SESSION sql_log_bin = 0");
    exec(nb, "CREATE TABLE bloodraven.kept (id INT PRIMARY KEY)");
    exec(nb, "CREATE USER 'after_backup'@'%' IDENTIFIED BY 'pw'");
  }
  // Account statements in the binlog after the backup: a replace keeps the accounts, so its
  // replay must not run them again (CREATE USER of an existing account stops a replay).
  const std::string before_accounts = gtids(s);
  exec(s, "CREATE USER 'replayed'@'%' IDENTIFIED BY 'pw'");
  exec(s, "GRANT SELECT ON appdb.* TO 'replayed'@'%'");
  const std::string account_gtids =
      gtid_set::parse(gtids(s))->subtract(*gtid_set::parse(before_accounts)).to_compact_string();
  std::vector<std::string> after;
  std::vector<int64_t> committed;
  for (int k = 1; k <= 3; ++k) {
    exec(s, "INSERT INTO appdb.markers VALUES (" + std::to_string(k) + ")");
    after.push_back(gtids(s));
    committed.push_back(unix_now());
    if (k < 3) std::this_thread::sleep_for(1500ms);
  }
  exec(s, "FLUSH BINARY LOGS");
  sidecar::scan_options so;
  so.layout = {env["ARCHIVE_STAGE"], "s1"};
  so.binlog_dir = sandbox().datadir(src);
  so.index_name = "binlog.index";
  sidecar::scan_report report;
  auto archived = storage.archive(so, report);
  BOOST_TEST_REQUIRE(archived == "", archived);
  const std::string before_set = gtids(s);
  auto unchanged = [&](const std::string& why) {
    auto t = open_root(src);
    BOOST_TEST(column(t, "SELECT id FROM appdb.t ORDER BY id") == (rows{"1", "2", "3", "4", "5"}), why);
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME='later'") == "1", why);
    BOOST_TEST(gtids(t) == before_set, why);
  };
  auto replace = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"restore", "--replace", "--name", "b1", "--target", addr, "--creds-dir", env["CREDS_DIR"]};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_cli(args, env);
  };

  // Refused: a replica attached (the sandbox's replicate leaves the source writable too; the
  // replicas are named first).
  sandbox().replicate(replica, src);
  {
    auto [ok, j] = replace({});
    BOOST_TEST(!ok);
    BOOST_TEST(j.value("message", "").find("still has 1 replica(s) attached") != std::string::npos, j.dump());
    unchanged("replica attached");
  }
  // Refused: no replica any more, but writable. (A stopped replica's dump thread lingers until
  // its next heartbeat write fails: killed here.)
  sandbox().stop(replica);
  for (const auto& id : column(s, "SELECT PROCESSLIST_ID FROM performance_schema.threads WHERE PROCESSLIST_COMMAND LIKE 'Binlog Dump%'"))
    (void)s.exec("KILL " + id);
  for (int i = 0; i < 100 && scalar(s, "SELECT COUNT(*) FROM performance_schema.threads WHERE PROCESSLIST_COMMAND LIKE 'Binlog Dump%'") != "0"; ++i)
    std::this_thread::sleep_for(100ms);
  exec(s, "SET GLOBAL read_only = OFF");
  exec(s, "SET GLOBAL super_read_only = OFF");
  {
    auto [ok, j] = replace({});
    BOOST_TEST(!ok);
    BOOST_TEST(j.value("message", "").find("is writable (super_read_only is OFF)") != std::string::npos, j.dump());
    unchanged("writable");
  }

  // Fenced: replaced by the backup.
  exec(s, "SET GLOBAL super_read_only = ON");
  {
    auto [ok, j] = replace({});
    BOOST_TEST_REQUIRE(ok, j.dump());
    BOOST_TEST_MESSAGE("replace: " << j.dump());
    BOOST_TEST(j["dropped"] == nlohmann::json({"appdb", "later", "shop"}), j.dump());
    auto t = open_root(src);
    BOOST_TEST(column(t, "SELECT id FROM appdb.t ORDER BY id") == (rows{"1", "2", "3"}), boost::test_tools::per_element());
    BOOST_TEST(column(t, "SELECT id FROM shop.orders ORDER BY id") == (rows{"10", "11"}), boost::test_tools::per_element());
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM appdb.markers") == "0");
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME='later'") == "0");
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='bloodraven' AND TABLE_NAME='kept'") == "1");
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM mysql.user WHERE user='after_backup'") == "1");
    // What the replace discarded stays executed (as purged): its numbers are never issued again.
    BOOST_TEST(gtids(t) == before_set);
    BOOST_TEST(j["gtidExecuted"] == before_set);
    BOOST_TEST(j["discardedGtids"] == gtid_set::parse(before_set)->subtract(*gtid_set::parse(backup_set)).to_compact_string());
    BOOST_TEST(scalar(t, "SELECT @@GLOBAL.gtid_purged") != "");
    BOOST_TEST(scalar(t, "SELECT @@GLOBAL.super_read_only") == "1");  // fenced again
  }
  // Again, to a second between markers 2 and 3 (the archive of the server's history before the
  // first replace).
  {
    auto [ok, j] = replace({"--stop-datetime", binlog::rfc3339(committed[1] + 1)});
    BOOST_TEST_REQUIRE(ok, j.dump());
    BOOST_TEST_MESSAGE("replace to " << binlog::rfc3339(committed[1] + 1) << ": " << j.dump());
    auto t = open_root(src);
    BOOST_TEST(column(t, "SELECT id FROM appdb.markers ORDER BY id") == (rows{"1", "2"}), boost::test_tools::per_element());
    BOOST_TEST(column(t, "SELECT id FROM appdb.t ORDER BY id") == (rows{"1", "2", "3", "4", "5"}), boost::test_tools::per_element());
    BOOST_TEST(column(t, "SELECT id FROM shop.orders ORDER BY id") == (rows{"11"}), boost::test_tools::per_element());
    BOOST_TEST(gtids(t) == before_set);
    BOOST_TEST(j["gtidExecuted"] == before_set);
    // Replayed exactly the source's history up to marker 2: the rest is what was discarded.
    BOOST_TEST(j["discardedGtids"] == gtid_set::parse(before_set)->subtract(*gtid_set::parse(after[1])).to_compact_string());
    // The account statements were not run again; the account is as it was kept.
    BOOST_TEST(j["accountStatementsSkipped"] == account_gtids);
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM mysql.user WHERE user='replayed'") == "1");
    BOOST_TEST(column(t, "SHOW GRANTS FOR 'replayed'@'%'").back().find("GRANT SELECT ON `appdb`.*") == 0u);
    BOOST_TEST(scalar(t, "SELECT @@GLOBAL.super_read_only") == "1");
  }
  BOOST_TEST_MESSAGE("integration_backup_replace took "
                     << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count()
                     << " s");
}
