// Binlog archiver (PITR) on real MySQL 9.7, sandbox instances 51 (the primary) and 52 (a fresh
// server the archive is replayed into). The scan is run directly, then inside the real sidecar.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "actors/sidecar/archive/binlog_scan.hpp"
#include "io/binlog/binlog_file.hpp"
#include "io/binlog/manifest.hpp"
#include "io/http/client.hpp"
#include "messages/gtid_set.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/eventually.hpp"

using namespace std::chrono_literals;
using br::gtid_set;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int primary = 51;  // this suite's instances only
constexpr int fresh = 52;

const br::test::mysql_sandbox& sandbox() {
  static const br::test::mysql_sandbox sb;
  return sb;
}

std::string sql(int i, const std::string& q) { return sandbox().sql(i, q); }

/// A GTID text (the server's or the manifest's) normalised: equal sets give equal strings, and a
/// failed check prints both.
std::string gtids(const std::string& text) {
  br::gtid_parse_error err;
  auto s = gtid_set::parse(br::test::unescape_batch(text), &err);
  BOOST_REQUIRE_MESSAGE(s.has_value(), "gtid text '" << text << "': " << err.to_string());
  return s->to_compact_string();
}

/// The server's own text of a file's Previous_gtids event (SHOW BINLOG EVENTS, 2nd event).
std::string server_previous_gtids(int i, const std::string& file) {
  auto rows = sql(i, "SHOW BINLOG EVENTS IN '" + file + "' LIMIT 2");
  auto last_line = rows.substr(rows.rfind('\n') + 1);
  // Log_name Pos Event_type Server_id End_log_pos Info
  std::vector<std::string> cols;
  size_t start = 0;
  for (size_t k = 0; k < 5; ++k) {
    auto tab = last_line.find('\t', start);
    cols.push_back(last_line.substr(start, tab - start));
    start = tab + 1;
  }
  BOOST_REQUIRE_MESSAGE(cols[2] == "Previous_gtids", "second event of " << file << ": " << last_line);
  return gtids(last_line.substr(start));
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

using br::test::eventually;

struct archiver_fixture {
  fs::path dir;
  br::sidecar::scan_options opts;

  archiver_fixture() {
    dir = fs::temp_directory_path() / ("br-archiver-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    sandbox().reset(primary);
    sql(primary, "SET GLOBAL super_read_only = OFF; SET GLOBAL read_only = OFF");
    opts.layout.root = (dir / "backups").string();
    opts.layout.site = "a";
    opts.binlog_dir = sandbox().datadir(primary);
    opts.index_name = "binlog.index";
  }
  ~archiver_fixture() {
    for (int i : {primary, fresh})
      if (sandbox().running(i)) {
        auto r = sandbox().run({"stop", std::to_string(i)});
        if (r.exit_code != 0) BOOST_TEST_MESSAGE("stop " << i << ": " << r.err);
      }
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  br::sidecar::scan_report scan(bool is_primary) {
    return br::sidecar::archive_scan(opts, [=] { return std::optional<bool>(is_primary); },
                                     [] { return int64_t{1795522986}; });
  }
  br::binlog::manifest manifest() {
    auto parsed = br::binlog::parse_manifest(read_all(opts.layout.manifest_path()));
    BOOST_REQUIRE_MESSAGE(parsed.value.has_value(), parsed.error);
    return *parsed.value;
  }
  /// Writes rows (and one tagged transaction) and rotates: `rotations` sealed files.
  void write_and_rotate(int rotations, int first_row) {
    for (int k = 0; k < rotations; ++k) {
      auto v = std::to_string(first_row + k);
      sql(primary, "INSERT INTO pitr.t VALUES (" + v + ", REPEAT('x', 100))");
      sql(primary, "SET gtid_next = 'AUTOMATIC:nightly'; INSERT INTO pitr.t VALUES (" +
                       std::to_string(1000 + first_row + k) + ", 'tagged'); SET gtid_next = 'AUTOMATIC'");
      sql(primary, "FLUSH BINARY LOGS");
    }
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(binlog_archiver, archiver_fixture)

BOOST_AUTO_TEST_CASE(scan_archives_sealed_binlogs_and_the_archive_replays_into_a_fresh_server) {
  sql(primary, "CREATE DATABASE pitr; CREATE TABLE pitr.t (id INT PRIMARY KEY, v TEXT)");
  write_and_rotate(3, 1);

  // -- a replica (read-only) never uploads --------------------------------------------------------
  auto as_replica = scan(false);
  BOOST_TEST(!as_replica.primary);
  BOOST_TEST(as_replica.archived.empty());
  BOOST_TEST(!fs::exists(opts.layout.manifest_path()));

  // -- the primary archives every sealed file, not the one being written --------------------------
  auto index = read_all(opts.binlog_dir + "/binlog.index");
  auto files = std::count(index.begin(), index.end(), '\n');
  BOOST_TEST_REQUIRE(files >= 4);
  auto r = scan(true);
  BOOST_TEST_REQUIRE(r.error.empty(), r.error);
  BOOST_TEST(r.archived.size() == static_cast<size_t>(files - 1));
  BOOST_TEST(r.backlog == 0u);
  auto m = manifest();
  BOOST_TEST(m.site == "a");
  BOOST_TEST_REQUIRE(m.files.size() == static_cast<size_t>(files - 1));
  for (size_t k = 0; k < m.files.size(); ++k) {
    const auto& e = m.files[k];
    BOOST_TEST_CONTEXT(e.name) {
      // The archived bytes are the server's bytes.
      BOOST_TEST((read_all(opts.layout.root + "/" + e.remote_path) == read_all(opts.binlog_dir + "/" + e.name)));
      BOOST_TEST(e.remote_path == "binlogs/a/" + e.name);
      // previousGtids is what the server itself says about the file; endGtids is the next file's.
      BOOST_TEST(gtids(e.previous_gtids) == server_previous_gtids(primary, e.name));
      auto next = k + 1 < m.files.size() ? m.files[k + 1].name : std::string{};
      if (!next.empty()) BOOST_TEST(gtids(e.end_gtids) == gtids(m.files[k + 1].previous_gtids));
      BOOST_TEST(e.first_event_time <= e.last_event_time);
      BOOST_TEST(e.archived_at == "2026-11-24T12:23:06Z");
    }
  }
  // Nothing was written after the last rotation: the newest archived file ends at gtid_executed,
  // tagged transactions included.
  auto executed = gtids(sql(primary, "SELECT @@global.gtid_executed"));
  BOOST_TEST(gtids(m.files.back().end_gtids) == executed);
  BOOST_TEST(m.files.back().end_gtids.find(":nightly:") != std::string::npos);

  // -- a second scan is a no-op; a new rotation archives exactly the new file ---------------------
  auto again = scan(true);
  BOOST_TEST(again.archived.empty());
  BOOST_TEST(again.error.empty(), again.error);
  BOOST_TEST(manifest().files.size() == m.files.size());
  write_and_rotate(1, 10);
  auto one_more = scan(true);
  BOOST_TEST_REQUIRE(one_more.archived.size() == 1u);
  BOOST_TEST(manifest().files.size() == m.files.size() + 1);

  // -- point-in-time restore by hand: replay the archive into a fresh server ----------------------
  sandbox().reset(fresh);
  m = manifest();
  std::vector<std::string> replay = {"binlog-replay", std::to_string(fresh)};
  for (const auto& e : m.files) replay.push_back(opts.layout.root + "/" + e.remote_path);
  sql(fresh, "SET GLOBAL super_read_only = OFF; SET GLOBAL read_only = OFF");
  sandbox().must(replay);
  BOOST_TEST(sql(fresh, "SELECT COUNT(*), SUM(id) FROM pitr.t") ==
             sql(primary, "SELECT COUNT(*), SUM(id) FROM pitr.t"));
  BOOST_TEST(gtids(sql(fresh, "SELECT @@global.gtid_executed")) == gtids(m.files.back().end_gtids));
}

BOOST_AUTO_TEST_CASE(a_damaged_manifest_is_never_overwritten) {
  sql(primary, "CREATE DATABASE pitr; CREATE TABLE pitr.t (id INT PRIMARY KEY, v TEXT)");
  write_and_rotate(1, 1);
  fs::create_directories(opts.layout.object_dir());
  std::ofstream(opts.layout.manifest_path()) << "{\"version\": 1, \"site\": \"a\", \"files\": [{}]}";
  auto r = scan(true);
  BOOST_TEST(r.archived.empty());
  BOOST_TEST(r.error.find("manifest.files[0].name") != std::string::npos, r.error);
  BOOST_TEST(read_all(opts.layout.manifest_path()) == "{\"version\": 1, \"site\": \"a\", \"files\": [{}]}");
}

BOOST_AUTO_TEST_CASE(the_sidecar_archives_while_primary_and_stops_when_fenced) {
  sql(primary, "CREATE DATABASE pitr; CREATE TABLE pitr.t (id INT PRIMARY KEY, v TEXT)");
  write_and_rotate(2, 1);
  auto port = br::test::free_port();
  std::map<std::string, std::string> env = {
      {"LISTEN_ADDR", "127.0.0.1:" + std::to_string(port)},
      {"MY_SITE", "a"},
      {"LEASE_TIMEOUT", "600s"},  // no operator, no peers: keep the lease rule out of this test
      {"DEAD_MANS_SWITCH", "false"},
      {"MYSQL_HOST", "127.0.0.1"},
      {"MYSQL_PORT", std::to_string(sandbox().port(primary))},
      {"MYSQL_USER", "bloodraven"},
      {"MYSQL_PASSWORD", "bloodravenpw"},
      {"BLOODRAVEN_PITR_ENABLED", "true"},
      {"BLOODRAVEN_PITR_BINLOG_DIR", opts.binlog_dir},
      {"BLOODRAVEN_PITR_BINLOG_INDEX", "binlog.index"},
      // One scan at start, then only the index watcher can trigger one within this test.
      {"BLOODRAVEN_PITR_POLL_INTERVAL", "600s"},
      {"BLOODRAVEN_PITR_STORAGE_TYPE", "PVC"},
      {"BLOODRAVEN_PITR_PVC_MOUNT_PATH", opts.layout.root},
  };
  br::test::child_process sidecar(br::test::binary_path("bloodraven-sidecar"), {}, env);
  BOOST_REQUIRE_MESSAGE(sidecar.wait_for_line("http server listening", 30s), sidecar.output());
  auto base = "http://127.0.0.1:" + std::to_string(port);
  auto status = [&] {
    auto res = br::http::client{}.get(base + "/archiver/status");
    auto j = json::parse(res.body, nullptr, false);
    return res.status == 200 && j.is_object() ? j : json::object();
  };
  auto archived = [&] { return status().value("filesArchived", 0); };
  BOOST_TEST_REQUIRE(eventually([&] { return archived() == 2; }, 30s), status().dump());
  auto st = status();
  BOOST_TEST(st["enabled"] == true);
  BOOST_TEST(st["primary"] == true);
  BOOST_TEST(st["storageType"] == "PVC");
  BOOST_TEST(st["site"] == "a");
  BOOST_TEST(st["lastError"] == "");
  BOOST_TEST(st["lastUploadTime"].is_string());
  BOOST_TEST(manifest().files.size() == 2u);
  auto metrics = br::http::client{}.get(base + "/metrics").body;
  BOOST_TEST(metrics.find("bloodraven_archiver_files_archived_total 2") != std::string::npos, metrics);

  // A rotation is archived right away (inotify on the index; the periodic scan is 10 min away).
  write_and_rotate(1, 20);
  BOOST_TEST(eventually([&] { return archived() == 3; }, 30s), status().dump());

  // Fenced (read-only): the scan the next rotation triggers sees a replica and uploads nothing;
  // the sealed file is left for the new primary's archive.
  auto scans = status().value("scans", 0);
  sql(primary, "SET GLOBAL super_read_only = ON");
  sql(primary, "FLUSH BINARY LOGS");
  BOOST_TEST_REQUIRE(eventually([&] { return status().value("primary", true) == false; }, 30s),
                     status().dump());
  BOOST_TEST(status().value("scans", 0) > scans);
  BOOST_TEST(archived() == 3);
  BOOST_TEST(manifest().files.size() == 3u);
  sidecar.signal(SIGTERM);
  BOOST_TEST(sidecar.wait_exit(15s).value_or(-1) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
