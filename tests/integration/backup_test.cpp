// Backup, restore and point-in-time recovery on real MySQL 9.7 (issue 21 acceptance 1, PVC store;
// integration_backup_s3 runs the same scenario through the S3 server, see backup.cmake): the real
// `bloodraven backup run` / `bloodraven restore` processes, mysqldump/mysql/mysqlbinlog from the
// sandbox chroot, the sidecar archiver's scan (archive_scan) filling the PITR archive.
//
// Source 161 (reset: fresh), loaded, backed up under a steady write load; the load stops; marker
// rows are written 1.5 s apart with the source's gtid_executed recorded after each; the logs are
// flushed and archived. Then: a stop datetime before the backup is refused naming the flag and
// the target stays empty (acceptance 4); restore into a fresh 162 to a second between markers 2
// and 3: exactly the rows up to marker 2, and gtid_executed equal to the source's after marker 2;
// restore into a fresh 163 to the GTID set recorded after marker 3: rows up to marker 3.
// Sandbox instances BR_BACKUP_FIRST_INSTANCE (default 161) .. +2, reset at the start, stopped at
// the end.
#include <boost/test/unit_test.hpp>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "actors/sidecar/archive/binlog_scan.hpp"
#include "io/binlog/manifest.hpp"
#include "io/mysql/connection.hpp"
#include "io/mysql/dead_mans_switch.hpp"
#include "messages/gtid_set.hpp"
#include "tests/integration/backup_cli_util.hpp"
#include "tests/integration/backup_env.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

using namespace br::test::backup_cli;

int first_instance() {
  const char* v = std::getenv("BR_BACKUP_FIRST_INSTANCE");
  return v && *v ? std::atoi(v) : 161;
}

std::vector<std::string> marker_ids(mysql::connection& c) {
  auto r = c.query("SELECT id FROM appdb.markers ORDER BY id");
  BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  std::vector<std::string> out;
  for (const auto& row : r->rows) out.push_back(row[0].value_or(""));
  return out;
}

}  // namespace

#ifdef BR_BACKUP_S3
#define BACKUP_CASE backup_restore_pitr_on_mysql_97_through_s3
#else
#define BACKUP_CASE backup_restore_pitr_on_mysql_97
#endif

BOOST_AUTO_TEST_CASE(BACKUP_CASE) {
  const int src = first_instance(), dst1 = src + 1, dst2 = src + 2;
  const auto started = std::chrono::steady_clock::now();
  for (int i : {src, dst1, dst2}) sandbox().must({"up-ids", std::to_string(i)});
  for (int i : {src, dst1, dst2}) sandbox().reset(i);
  struct stopper {
    std::vector<int> ids;
    ~stopper() {
      for (int i : ids) sandbox().run({"stop", std::to_string(i)});
    }
  } stop_after{{src, dst1, dst2}};

  test::temp_dir tmp("br-backup");
  test::backup_storage storage(tmp.path.string(), src);
  auto& env = storage.env();
  BOOST_TEST_MESSAGE("storage: " << env["BLOODRAVEN_BACKUP_STORAGE_TYPE"]);

  // Source: writable, loaded.
  auto s = open_root(src);
  exec(s, "SET GLOBAL super_read_only = OFF");
  exec(s, "SET GLOBAL read_only = OFF");
  exec(s, "CREATE TABLE appdb.load (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload VARCHAR(255))");
  exec(s, "CREATE TABLE appdb.markers (id INT PRIMARY KEY, at DATETIME(3))");
  exec(s, "INSERT INTO appdb.load (payload) SELECT REPEAT('x', 200) FROM information_schema.COLUMNS LIMIT 1000");
  for (int k = 0; k < 6; ++k) exec(s, "INSERT INTO appdb.load (payload) SELECT payload FROM appdb.load");
  // A schema the dump loads after `bloodraven` (and so after the switch's EVENT), big enough that
  // its load takes seconds.
  exec(s, "CREATE SCHEMA zzdb");
  exec(s, "CREATE TABLE zzdb.t (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload VARCHAR(255))");
  exec(s, "INSERT INTO zzdb.t (payload) SELECT payload FROM appdb.load");
  exec(s, "INSERT INTO zzdb.t (payload) SELECT payload FROM zzdb.t");
  // The source is a primary of ours: its dead man's switch armed (4 s lease), its heartbeat kept
  // fresh as its sidecar would. The backup carries the switch's EVENT (ENABLED) and a heartbeat
  // row that is stale by the time it is restored: the restore must not let it fence the target.
  {
    auto sw = open_root(src);  // its own session: the switch's statements run with sql_log_bin=0
    BOOST_TEST_REQUIRE(mysql::ensure_switch(sw, 4000ms).ok());
    BOOST_TEST_REQUIRE(mysql::refresh_heartbeat(sw).ok());
  }
  std::atomic<bool> stop_heartbeat{false};
  std::thread heartbeat([&] {
    auto h = open_root(src);
    while (!stop_heartbeat) {
      (void)mysql::refresh_heartbeat(h);
      std::this_thread::sleep_for(300ms);
    }
  });
  struct joiner {
    std::atomic<bool>& stop;
    std::thread& t;
    ~joiner() {
      stop = true;
      t.join();
    }
  } join_heartbeat{stop_heartbeat, heartbeat};

  // Steady write load during the backup.
  std::atomic<bool> stop_load{false};
  std::atomic<int> load_writes{0};
  std::thread writer([&] {
    auto w = open_root(src);
    while (!stop_load) {
      if (w.exec("INSERT INTO appdb.load (payload) VALUES (REPEAT('w', 200))").ok()) ++load_writes;
      std::this_thread::sleep_for(5ms);
    }
  });
  std::this_thread::sleep_for(500ms);
  const std::string port = std::to_string(sandbox().port(src));
  auto [backup_ok, backup] =
      run_cli({"backup", "run", "--name", "acc1", "--source", "127.0.0.1:" + port, "--creds-dir", env["CREDS_DIR"]}, env);
  std::this_thread::sleep_for(500ms);
  stop_load = true;
  writer.join();
  BOOST_TEST_REQUIRE(backup_ok, backup.dump());
  BOOST_TEST_MESSAGE("backup: " << backup.dump());
  BOOST_TEST(backup["method"] == "mysqldump");
  BOOST_TEST(backup["binlogFile"].get<std::string>().rfind("binlog.", 0) == 0);
  const auto backup_set = *gtid_set::parse(backup["gtidExecuted"].get<std::string>());
  BOOST_TEST(load_writes.load() > 0);

  // Known writes, 1.5 s apart; the source's set after each.
  std::vector<std::string> after;  // after[k] = gtid_executed after marker k+1
  std::vector<int64_t> committed;  // unix seconds just after marker k+1 committed
  for (int k = 1; k <= 4; ++k) {
    exec(s, "INSERT INTO appdb.markers VALUES (" + std::to_string(k) + ", NOW(3))");
    after.push_back(gtids(s));
    committed.push_back(unix_now());
    if (k < 4) std::this_thread::sleep_for(1500ms);
  }
  // The writes after the snapshot are more than the markers: the replay carries the load too.
  BOOST_TEST(gtid_set::parse(after[1])->count() > backup_set.count() + 2);
  exec(s, "FLUSH BINARY LOGS");
  sidecar::scan_options so;
  so.layout = {env["ARCHIVE_STAGE"], "s1"};
  so.binlog_dir = sandbox().datadir(src);
  so.index_name = "binlog.index";
  sidecar::scan_report report;
  auto archived = storage.archive(so, report);
  BOOST_TEST_REQUIRE(archived == "", archived);
  BOOST_TEST(!report.archived.empty());

  const std::string dst1_addr = "127.0.0.1:" + std::to_string(sandbox().port(dst1));
  const std::string dst2_addr = "127.0.0.1:" + std::to_string(sandbox().port(dst2));
  // Acceptance 4: a stop datetime before the backup is refused, naming the flag; nothing written.
  {
    auto early = binlog::rfc3339(committed[0] - 3600);
    auto [ok, j] = run_cli({"restore", "--name", "acc1", "--target", dst1_addr, "--creds-dir", env["CREDS_DIR"],
                            "--stop-datetime", early},
                           env);
    BOOST_TEST(!ok);
    auto m = j.value("message", "");
    BOOST_TEST(m.find("--stop-datetime") != std::string::npos, m);
    BOOST_TEST(m.find("before the backup's consistent point") != std::string::npos, m);
    auto t = open_root(dst1);
    BOOST_TEST(scalar(t, "SELECT @@GLOBAL.gtid_executed") == "");
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='appdb'") == "0");
  }
  // A group that already bootstrapped is never overwritten (spec.initFromBackup's last layer): a
  // server holding only the operator's own schema, written with sql_log_bin=0 (no GTIDs), is
  // refused, naming the table, and keeps it.
  {
    auto t = open_root(dst1);
    const auto sro = scalar(t, "SELECT @@GLOBAL.super_read_only");
    const auto ro = scalar(t, "SELECT @@GLOBAL.read_only");
    exec(t, "SET SESSION sql_log_bin = 0");
    exec(t, "SET GLOBAL super_read_only = OFF");
    const bool had_schema =  // the sandbox's servers come with an empty one
        scalar(t, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME='bloodraven'") == "1";
    exec(t, "CREATE SCHEMA IF NOT EXISTS bloodraven");
    exec(t, "CREATE TABLE bloodraven.heartbeat (id INT PRIMARY KEY)");
    auto [ok, j] = run_cli({"restore", "--name", "acc1", "--target", dst1_addr, "--creds-dir", env["CREDS_DIR"]}, env);
    BOOST_TEST(!ok);
    auto m = j.value("message", "");
    BOOST_TEST(m.find("is not empty (it holds tables: bloodraven.heartbeat)") != std::string::npos, m);
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='bloodraven'") == "1");
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='appdb'") == "0");
    exec(t, had_schema ? "DROP TABLE bloodraven.heartbeat" : "DROP SCHEMA bloodraven");
    BOOST_TEST(scalar(t, "SELECT @@GLOBAL.gtid_executed") == "");
    exec(t, "SET GLOBAL read_only = " + std::string(ro == "1" ? "ON" : "OFF"));
    exec(t, "SET GLOBAL super_read_only = " + std::string(sro == "1" ? "ON" : "OFF"));
  }

  // Acceptance 1: to a second between markers 2 and 3.
  const int64_t stop = committed[1] + 1;
  {
    auto [ok, j] = run_cli({"restore", "--name", "acc1", "--target", dst1_addr, "--creds-dir", env["CREDS_DIR"],
                            "--stop-datetime", binlog::rfc3339(stop)},
                           env);
    BOOST_TEST_REQUIRE(ok, j.dump());
    BOOST_TEST_MESSAGE("restore to " << binlog::rfc3339(stop) << ": " << j.dump());
    BOOST_TEST(!j["binlogsReplayed"].empty());
    auto t = open_root(dst1);
    BOOST_TEST(marker_ids(t) == (std::vector<std::string>{"1", "2"}), boost::test_tools::per_element());
    BOOST_TEST(gtids(t) == after[1]);
    BOOST_TEST(j["gtidExecuted"] == after[1]);
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM appdb.load") == scalar(s, "SELECT COUNT(*) FROM appdb.load"));
    BOOST_TEST(scalar(t, "SELECT @@GLOBAL.super_read_only") == "1");  // fenced again
    BOOST_TEST(scalar(t, "SELECT COUNT(*) FROM zzdb.t") == scalar(s, "SELECT COUNT(*) FROM zzdb.t"));
    // The switch came along, ENABLED, and the scheduler is as it was (ON): once the target is
    // promoted, the operator's ensure_switch finds an armed switch to re-date.
    BOOST_TEST(scalar(t, "SELECT STATUS FROM information_schema.EVENTS WHERE EVENT_SCHEMA='bloodraven'") == "ENABLED");
    BOOST_TEST(scalar(t, "SELECT @@GLOBAL.event_scheduler") == "ON");
  }
  // Restored once, never again: the same restore into it is refused and changes nothing.
  {
    auto [ok, j] = run_cli({"restore", "--name", "acc1", "--target", dst1_addr, "--creds-dir", env["CREDS_DIR"]}, env);
    BOOST_TEST(!ok);
    BOOST_TEST(j.value("message", "").find("is not empty") != std::string::npos, j.dump());
    auto t = open_root(dst1);
    BOOST_TEST(marker_ids(t) == (std::vector<std::string>{"1", "2"}), boost::test_tools::per_element());
    BOOST_TEST(gtids(t) == after[1]);
  }
  // A GTID bound: the set after marker 3. As the Kubernetes restore Job runs it: `--user root`
  // with only a password file.
  {
    const std::string pw_only = env["CREDS_DIR"] + "-pw";
    std::filesystem::create_directories(pw_only);
    std::filesystem::copy_file(env["CREDS_DIR"] + "/password", pw_only + "/password",
                               std::filesystem::copy_options::overwrite_existing);
    auto [ok, j] = run_cli({"restore", "--name", "acc1", "--target", dst2_addr, "--creds-dir", pw_only,
                            "--user", "root", "--stop-gtid", after[2]},
                           env);
    BOOST_TEST_REQUIRE(ok, j.dump());
    auto t = open_root(dst2);
    BOOST_TEST(marker_ids(t) == (std::vector<std::string>{"1", "2", "3"}), boost::test_tools::per_element());
    BOOST_TEST(gtids(t) == after[2]);
  }
  // The backup is listed, and deleted with everything under its name.
  {
    test::child_process l(test::binary_path("bloodraven"), {"backup", "list"}, env);
    BOOST_TEST(l.wait_exit(120s).value_or(-1) == 0);
    BOOST_TEST(l.output().find("\"acc1\"") != std::string::npos, l.output());
    test::child_process d(test::binary_path("bloodraven"), {"backup", "delete", "--name", "acc1"}, env);
    BOOST_TEST(d.wait_exit(120s).value_or(-1) == 0, d.output());
    auto [ok, j] = run_cli({"restore", "--name", "acc1", "--target", dst2_addr, "--creds-dir", env["CREDS_DIR"]}, env);
    BOOST_TEST(!ok);
    BOOST_TEST(j.value("message", "").find("not found") != std::string::npos, j.dump());
  }
  BOOST_TEST_MESSAGE("integration_backup took "
                     << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count()
                     << " s");
}
