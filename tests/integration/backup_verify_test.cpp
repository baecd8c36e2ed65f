// `bloodraven backup verify` on real MySQL 9.7: the real process restores into a mysqld it starts
// itself (the sandbox chroot's 9.7 binaries), through the PVC store and the sidecar archiver's
// scan for the PITR archive (tests/integration/backup_env.hpp).
//
// Source 194 loaded and backed up, then marker rows written, the logs flushed and archived.
// Cases: the newest backup verifies (gtid_executed = the backup's); --pitr latest with a sanity
// query verifies (gtid_executed = the source's, the markers there); a sanity query expecting too
// many rows fails in step check; an initialisation deadline too short fails in step provision; the dump
// corrupted in storage fails on its SHA-256 (and --keep-on-failure keeps the directory, server
// stopped); SIGTERM to the command while its server runs fails it naming the signal. After each:
// no process runs with the scratch directory in its command line, and the directory is gone
// (unless kept).
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include <csignal>
#include <nlohmann/json.hpp>

#include "actors/sidecar/archive/binlog_scan.hpp"
#include "io/mysql/connection.hpp"
#include "messages/gtid_set.hpp"
#include "tests/integration/backup_cli_util.hpp"
#include "tests/integration/backup_env.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using namespace br::test::backup_cli;

int source_instance() {
  const char* v = std::getenv("BR_VERIFY_SOURCE_INSTANCE");
  return v && *v ? std::atoi(v) : 194;
}

/// Processes whose command line mentions `needle` (the scratch directory's name).
std::vector<std::string> processes_with(const std::string& needle) {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/proc", ec)) {
    auto name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmd;
    try {  // a process may end while it is read (libstdc++ throws on ESRCH)
      std::ifstream f(e.path() / "cmdline", std::ios::binary);
      cmd.assign(std::istreambuf_iterator<char>(f), {});
    } catch (const std::exception&) {
      continue;
    }
    for (auto& c : cmd)
      if (c == '\0') c = ' ';
    if (cmd.find(needle) != std::string::npos) out.push_back(name + ": " + cmd.substr(0, 200));
  }
  return out;
}

/// After a verify run: its server is gone, and its scratch directory too unless `kept`.
void check_cleaned_up(const json& j, bool kept = false) {
  BOOST_TEST_REQUIRE(j.contains("scratch"), j.dump());
  const std::string scratch = j["scratch"];
  const std::string base = fs::path(scratch).filename().string();
  BOOST_TEST_REQUIRE(base.rfind("bloodraven-backup-", 0) == 0u, scratch);
  auto left = processes_with(base);
  BOOST_TEST(left.empty(), "still running: " << (left.empty() ? "" : left.front()));
  BOOST_TEST(fs::exists(scratch) == kept, scratch);
}

}  // namespace

BOOST_AUTO_TEST_CASE(verify_backups_on_mysql_97) {
  const int src = source_instance();
  const auto started = std::chrono::steady_clock::now();
  sandbox().must({"up-ids", std::to_string(src)});
  sandbox().reset(src);
  struct stopper {
    int id;
    ~stopper() { sandbox().run({"stop", std::to_string(id)}); }
  } stop_after{src};

  test::temp_dir tmp("br-verify");
  test::backup_storage storage(tmp.path.string(), src);
  auto& env = storage.env();

  auto s = open_root(src);
  exec(s, "SET GLOBAL super_read_only = OFF");
  exec(s, "SET GLOBAL read_only = OFF");
  exec(s, "CREATE TABLE appdb.load (id BIGINT AUTO_INCREMENT PRIMARY KEY, payload VARCHAR(255))");
  exec(s, "CREATE TABLE appdb.markers (id INT PRIMARY KEY)");
  exec(s, "INSERT INTO appdb.load (payload) SELECT REPEAT('x', 200) FROM information_schema.COLUMNS LIMIT 1000");
  const std::string port = std::to_string(sandbox().port(src));
  auto [backup_ok, backup] =
      run_cli({"backup", "run", "--name", "v1", "--source", "127.0.0.1:" + port, "--creds-dir", env["CREDS_DIR"]}, env);
  BOOST_TEST_REQUIRE(backup_ok, backup.dump());
  const std::string backup_set = backup["gtidExecuted"];
  for (int k = 1; k <= 3; ++k) exec(s, "INSERT INTO appdb.markers VALUES (" + std::to_string(k) + ")");
  exec(s, "FLUSH BINARY LOGS");
  const std::string source_set = gtids(s);
  sidecar::scan_options so;
  so.layout = {env["ARCHIVE_STAGE"], "s1"};
  so.binlog_dir = sandbox().datadir(src);
  so.index_name = "binlog.index";
  sidecar::scan_report report;
  auto archived = storage.archive(so, report);
  BOOST_TEST_REQUIRE(archived == "", archived);

  // 1. The newest backup (no --name) verifies: tables there, gtid_executed the backup's.
  {
    auto [ok, j] = run_cli({"backup", "verify"}, env);
    BOOST_TEST_MESSAGE("verify: " << j.dump());
    BOOST_TEST_REQUIRE(ok, j.dump());
    BOOST_TEST(j["name"] == "v1");
    BOOST_TEST(j["gtidExecuted"] == backup_set);
    BOOST_TEST(j["tables"].get<int>() >= 2);
    BOOST_TEST(!j.contains("serverKilled"), j.dump());
    check_cleaned_up(j);
  }
  // 2. Replayed to the newest archived event, with a sanity query that sees the markers.
  {
    auto [ok, j] = run_cli({"backup", "verify", "--name", "v1", "--pitr", "latest", "--sanity-query",
                            "SELECT id FROM appdb.markers", "--expect-min-rows", "3"},
                           env);
    BOOST_TEST_MESSAGE("verify --pitr latest: " << j.dump());
    BOOST_TEST_REQUIRE(ok, j.dump());
    BOOST_TEST(j["gtidExecuted"] == source_set);
    BOOST_TEST(!j["binlogsReplayed"].empty());
    BOOST_TEST(j["sanity"]["rows"] == 3);
    BOOST_TEST(j.contains("replayLagSeconds"));
    check_cleaned_up(j);
  }
  // 3. A sanity query expecting more rows than there are fails in the check step.
  {
    auto [ok, j] = run_cli({"backup", "verify", "--sanity-query", "SELECT id FROM appdb.markers", "--expect-min-rows",
                            "1000"},
                           env);
    BOOST_TEST(!ok);
    BOOST_TEST(j["step"] == "check", j.dump());
    BOOST_TEST(j.value("message", "").find("returned 0 row(s), expected at least 1000") != std::string::npos, j.dump());
    check_cleaned_up(j);
  }
  // A bound without its query is bad usage: refused before anything starts.
  {
    auto [ok, j] = run_cli({"backup", "verify", "--expect-min-rows", "5"}, env);
    BOOST_TEST(!ok);
    BOOST_TEST(j.value("message", "") == "--expect-min-rows needs --sanity-query (it bounds that query)", j.dump());
    BOOST_TEST(!j.contains("scratch"), j.dump());
  }
  // 4. A step past its deadline (the initialisation takes seconds, it gets 1): provision fails,
  // the killed mysqld --initialize and the directory are gone.
  {
    auto [ok, j] = run_cli({"backup", "verify", "--init-timeout", "1s"}, env);
    BOOST_TEST(!ok);
    BOOST_TEST(j["step"] == "provision", j.dump());
    BOOST_TEST(j.value("message", "").find("deadline of 1 s passed") != std::string::npos, j.dump());
    check_cleaned_up(j);
  }
  // 5. The dump corrupted in storage: the checksum fails the restore; kept on request.
  {
    const fs::path dump = tmp.path / "backups" / "v1" / "dump.sql.gz";
    BOOST_TEST_REQUIRE(fs::exists(dump));
    {
      std::fstream f(dump, std::ios::in | std::ios::out | std::ios::binary);
      f.seekp(static_cast<std::streamoff>(fs::file_size(dump) / 2));
      char c = 0;
      f.read(&c, 1);
      f.seekp(static_cast<std::streamoff>(fs::file_size(dump) / 2));
      c = static_cast<char>(c ^ 0x5a);
      f.write(&c, 1);
    }
    auto [ok, j] = run_cli({"backup", "verify", "--name", "v1"}, env);
    BOOST_TEST(!ok);
    BOOST_TEST(j["step"] == "restore", j.dump());
    BOOST_TEST(j.value("message", "").find("SHA-256") != std::string::npos, j.dump());
    check_cleaned_up(j);
    auto [ok2, k] = run_cli({"backup", "verify", "--name", "v1", "--keep-on-failure"}, env);
    BOOST_TEST(!ok2);
    BOOST_TEST(k["scratchKept"] == k["scratch"], k.dump());
    check_cleaned_up(k, true);
    fs::remove_all(k.value("scratch", std::string("/nonexistent")));
  }
  // 6. SIGTERM to the command while its server runs (a Job's deadline, Ctrl-C): the server's
  // group is killed at once, the step fails naming the signal, the cleanup still runs.
  {
    auto [v2_ok, v2] =
        run_cli({"backup", "run", "--name", "v2", "--source", "127.0.0.1:" + port, "--creds-dir", env["CREDS_DIR"]}, env);
    BOOST_TEST_REQUIRE(v2_ok, v2.dump());
    // The check step holds the server for 30 s.
    test::child_process p(test::binary_path("bloodraven"),
                          {"backup", "verify", "--name", "v2", "--sanity-query", "SELECT SLEEP(30)", "--max-duration", "60s"},
                          env);
    BOOST_TEST_REQUIRE(p.wait_for_line("verify: the sanity query", 180s).has_value(), p.output());
    std::this_thread::sleep_for(1s);
    p.signal(SIGTERM);
    auto rc = p.wait_exit(120s);
    BOOST_TEST_REQUIRE(rc.has_value());
    BOOST_TEST(*rc == 1, p.output());
    const auto& out = p.output();
    auto at = out.rfind("BLOODRAVEN_VERIFY_FAILED ");
    BOOST_TEST_REQUIRE(at != std::string::npos, out);
    auto line = out.substr(at + 25, out.find('\n', at) - at - 25);
    auto j = json::parse(line, nullptr, false);
    BOOST_TEST_REQUIRE(!j.is_discarded(), line);
    BOOST_TEST(j.value("message", "").find("terminated by signal 15") == 0u, j.dump());
    check_cleaned_up(j);
  }
  BOOST_TEST_MESSAGE("integration_backup_verify took "
                     << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count()
                     << " s");
}
