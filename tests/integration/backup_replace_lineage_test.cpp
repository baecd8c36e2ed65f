// The PITR archive's history across `bloodraven restore --replace` (an in-place restore) on real
// MySQL 9.7. Primary P (BR_REPLACE_LINEAGE_FIRST_INSTANCE, default 216) archives its binlogs as
// site s1 (the sidecar archiver's scan); F (the next instance) is a fresh server for the PITRs.
//
// P: rows 1-3, backup OLD; rows 4-6 (to be discarded), archived; fenced and replaced by OLD. Then:
// the discarded GTIDs are reported and stay executed; the server's binlog names continue past the
// archived ones; new rows 100-102 get GTIDs none of which was discarded; the archiver takes the new
// files under their new names with no conflict. Backup NEW, rows 103-104, archived.
// PITR into F: from NEW to a point after the new rows -> exactly the new history's rows and P's
// gtid_executed; from OLD to the same point -> refused, naming the reset (site, file) and changing
// nothing; from OLD to a point before the restore -> the old history's rows 1-6.
#include <boost/test/unit_test.hpp>

#include <thread>

#include "actors/sidecar/archive/binlog_scan.hpp"
#include "io/binlog/binlog_name.hpp"
#include "io/binlog/manifest.hpp"
#include "tests/integration/backup_cli_util.hpp"
#include "tests/integration/backup_env.hpp"
#include "tests/support/temp_dir.hpp"

using namespace br;
using namespace br::test::backup_cli;
using namespace std::chrono_literals;

namespace {

using rows = std::vector<std::string>;

uint64_t highest_index(const std::vector<std::string>& names) {
  uint64_t n = 0;
  for (const auto& name : names) n = std::max(n, binlog::parse_binlog_name(name).value_or(binlog::binlog_name{}).number);
  return n;
}

gtid_set set_of(const std::string& text) { return *gtid_set::parse(text); }

}  // namespace

BOOST_AUTO_TEST_CASE(archive_lineage_after_replace_on_mysql_97) {
  const int primary = instance_from_env("BR_REPLACE_LINEAGE_FIRST_INSTANCE", 216), fresh = primary + 1;
  const auto started = std::chrono::steady_clock::now();
  fresh_instances servers({primary, fresh});

  test::temp_dir tmp("br-lineage");
  test::backup_storage storage(tmp.path.string(), primary);
  auto& env = storage.env();
  const std::string addr = "127.0.0.1:" + std::to_string(sandbox().port(primary));
  const std::string fresh_addr = "127.0.0.1:" + std::to_string(sandbox().port(fresh));
  sidecar::scan_options so;
  so.layout = {env["ARCHIVE_STAGE"], "s1"};
  so.binlog_dir = sandbox().datadir(primary);
  so.index_name = "binlog.index";
  auto archive = [&](const std::string& why) {
    sidecar::scan_report report;
    auto err = storage.archive(so, report);
    BOOST_TEST_REQUIRE(err == "", why << ": " << err);
    BOOST_TEST_MESSAGE(why << ": archived " << nlohmann::json(report.archived).dump());
    return report.archived;
  };
  auto backup = [&](const std::string& name) {
    auto [ok, j] = run_cli({"backup", "run", "--name", name, "--source", addr, "--creds-dir", env["CREDS_DIR"]}, env);
    BOOST_TEST_REQUIRE(ok, j.dump());
    return set_of(j["gtidExecuted"].get<std::string>()).to_compact_string();
  };
  auto restore_into_fresh = [&](const std::string& name, int64_t stop) {
    return run_cli({"restore", "--name", name, "--target", fresh_addr, "--creds-dir", env["CREDS_DIR"],
                    "--stop-datetime", binlog::rfc3339(stop)},
                   env);
  };

  // The old history: rows 1-3, backup OLD, rows 4-6 (discarded by the restore below), archived.
  auto p = open_root(primary);
  exec(p, "SET GLOBAL super_read_only = OFF");
  exec(p, "SET GLOBAL read_only = OFF");
  exec(p, "CREATE TABLE appdb.t (id INT PRIMARY KEY)");
  exec(p, "INSERT INTO appdb.t VALUES (1),(2),(3)");
  const std::string old_set = backup("old");
  BOOST_TEST(old_set == gtids(p));
  for (int id : {4, 5, 6}) exec(p, "INSERT INTO appdb.t VALUES (" + std::to_string(id) + ")");
  const std::string executed_before = gtids(p);
  const std::string discarded = set_of(executed_before).subtract(set_of(old_set)).to_compact_string();
  const int64_t before_restore = unix_now() + 1;  // stop: every old write is before this second
  std::this_thread::sleep_for(1100ms);            // the reset comes in a later second
  exec(p, "FLUSH BINARY LOGS");
  auto old_files = archive("the old history");
  BOOST_TEST_REQUIRE(!old_files.empty());
  const uint64_t old_highest = highest_index(column(p, "SHOW BINARY LOGS"));

  // The in-place restore: fenced, replaced by OLD.
  exec(p, "SET GLOBAL super_read_only = ON");
  {
    auto [ok, j] = run_cli({"restore", "--replace", "--name", "old", "--target", addr, "--creds-dir", env["CREDS_DIR"]}, env);
    BOOST_TEST_REQUIRE(ok, j.dump());
    BOOST_TEST_MESSAGE("replace: " << j.dump());
    BOOST_TEST(j["discardedGtids"] == discarded);
    BOOST_TEST(j["gtidExecuted"] == executed_before);
  }
  auto names_after = column(p, "SHOW BINARY LOGS");
  BOOST_TEST_REQUIRE(!names_after.empty());
  BOOST_TEST(binlog::parse_binlog_name(names_after.front()).value_or(binlog::binlog_name{}).number == old_highest + 1,
             "first binlog after the replace: " << names_after.front() << ", highest before: " << old_highest);
  BOOST_TEST(column(p, "SELECT id FROM appdb.t ORDER BY id") == (rows{"1", "2", "3"}), boost::test_tools::per_element());

  // The new history: new writes take new GTIDs.
  exec(p, "SET GLOBAL super_read_only = OFF");
  exec(p, "SET GLOBAL read_only = OFF");
  const std::string e0 = gtids(p);
  for (int id : {100, 101, 102}) exec(p, "INSERT INTO appdb.t VALUES (" + std::to_string(id) + ")");
  const auto new_gtids = set_of(gtids(p)).subtract(set_of(e0));
  BOOST_TEST(new_gtids.count() == 3u, new_gtids.to_compact_string());
  BOOST_TEST(new_gtids.intersect(set_of(discarded)).empty(),
             "new writes " << new_gtids.to_compact_string() << " reuse discarded GTIDs " << discarded);
  BOOST_TEST(new_gtids.intersect(set_of(executed_before)).empty());
  exec(p, "FLUSH BINARY LOGS");
  auto new_files = archive("the new history");  // no conflict: archive() requires an empty error
  BOOST_TEST_REQUIRE(!new_files.empty());
  for (const auto& f : new_files)
    BOOST_TEST(binlog::parse_binlog_name(f).value_or(binlog::binlog_name{}).number > old_highest, f);

  const std::string new_set = backup("new");
  for (int id : {103, 104}) exec(p, "INSERT INTO appdb.t VALUES (" + std::to_string(id) + ")");
  const int64_t after_new = unix_now() + 1;
  std::this_thread::sleep_for(1100ms);  // the archive's newest event is at or after the stop
  exec(p, "FLUSH BINARY LOGS");
  archive("after backup NEW");
  const std::string final_set = gtids(p);
  BOOST_TEST(set_of(new_set).contains(set_of(discarded)));  // a later backup covers what was discarded

  // From NEW to after the new writes: exactly the new history.
  {
    auto [ok, j] = restore_into_fresh("new", after_new);
    BOOST_TEST_REQUIRE(ok, j.dump());
    BOOST_TEST_MESSAGE("PITR from NEW: " << j.dump());
    auto f = open_root(fresh);
    BOOST_TEST(column(f, "SELECT id FROM appdb.t ORDER BY id") == (rows{"1", "2", "3", "100", "101", "102", "103", "104"}),
               boost::test_tools::per_element());
    BOOST_TEST(gtids(f) == final_set);
  }
  sandbox().reset(fresh);
  // From OLD across the restore: refused, nothing written.
  {
    auto [ok, j] = restore_into_fresh("old", after_new);
    BOOST_TEST(!ok);
    const auto message = j.value("message", "");
    BOOST_TEST(message.find("lies past the start of another history: s1/" + names_after.front() + " starts a new history at") !=
                   std::string::npos,
               message);
    BOOST_TEST(message.find("the site's binary logs were reset") != std::string::npos, message);
    BOOST_TEST(message.find("restore from a backup taken after") != std::string::npos, message);
    auto f = open_root(fresh);
    BOOST_TEST(gtids(f) == "");
    BOOST_TEST(scalar(f, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA='appdb'") == "0");
  }
  // From OLD to before the restore: the old history, discarded rows included.
  {
    auto [ok, j] = restore_into_fresh("old", before_restore);
    BOOST_TEST_REQUIRE(ok, j.dump());
    BOOST_TEST_MESSAGE("PITR from OLD before the restore: " << j.dump());
    auto f = open_root(fresh);
    BOOST_TEST(column(f, "SELECT id FROM appdb.t ORDER BY id") == (rows{"1", "2", "3", "4", "5", "6"}),
               boost::test_tools::per_element());
    BOOST_TEST(gtids(f) == executed_before);
  }
  BOOST_TEST_MESSAGE("integration_backup_replace_lineage took "
                     << std::chrono::duration_cast<std::chrono::seconds>(std::chrono::steady_clock::now() - started).count()
                     << " s");
}
