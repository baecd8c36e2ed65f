// Integration (issue 25): semi-synchronous replication on real MySQL 9.7 with the options the
// operator renders into my.cnf (config/render/semisync_my_cnf.*), K=1, sandbox instances 270
// (source) and 271 (replica). A commit returns while the replica receives; with the replica's
// receiver stopped a commit blocks (ended by the client's read timeout, the test's own bound) and
// the probe shows the waiting session. Instances are stopped and their extra options removed at
// the end.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config/render/my_cnf.hpp"
#include "io/mysql/semisync.hpp"
#include "tests/integration/mysql_test_common.hpp"

using namespace br::test;
namespace m = br::mysql;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

constexpr int source = 270;
constexpr int replica = 271;

fs::path extra_args_file(int i) {
  const char* dir = std::getenv("BR_SANDBOX_DIR");
  const char* src = std::getenv("BR_SOURCE_DIR");
  fs::path root = dir != nullptr ? fs::path{dir} : fs::path{src != nullptr ? src : "."} / ".sandbox";
  return root / "instances" / std::to_string(i) / "mysqld-extra.args";
}

/// The semi-sync lines of the my.cnf the operator renders for a 2-site group with K=1, as mysqld
/// arguments. The sandbox loads the clone plugin itself, so it is left out of plugin-load-add.
std::vector<std::string> rendered_semisync_args() {
  br::config::group_spec spec;
  spec.sites.resize(2);
  spec.sites[0].name = "a";
  spec.sites[1].name = "b";
  spec.replication.semi_sync = {true, 1};
  auto cnf = br::render::render_my_cnf(spec, 0);
  BOOST_TEST_REQUIRE(cnf.errors.empty());
  std::vector<std::string> args;
  std::istringstream in{cnf.content};
  for (std::string line; std::getline(in, line);) {
    auto eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    std::string k = line.substr(0, eq), v = line.substr(eq + 3);
    if (k == "plugin-load-add") {
      const std::string clone = "mysql_clone.so;";
      BOOST_TEST_REQUIRE(v.starts_with(clone));
      args.push_back("--plugin-load-add=" + v.substr(clone.size()));
    } else if (k.starts_with("rpl-semi-sync-")) {
      args.push_back("--" + k + "=" + v);
    }
  }
  BOOST_TEST_REQUIRE(args.size() == 7u);
  return args;
}

/// (Re)starts instance i with `args` added to the sandbox's own options.
void restart_with(int i, const std::vector<std::string>& args) {
  if (sandbox().running(i)) sandbox().stop(i);
  fs::create_directories(extra_args_file(i).parent_path());
  {
    std::ofstream out(extra_args_file(i), std::ios::trunc);
    for (const auto& a : args) out << a << "\n";
  }
  sandbox().must({"up-ids", std::to_string(i)});
}

std::string var(int i, const std::string& name) {
  return sandbox().sql(i, "SELECT @@GLOBAL." + name);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(semisync_mysql)

BOOST_AUTO_TEST_CASE(rendered_options_block_a_commit_without_a_receiver) {
  const auto args = rendered_semisync_args();
  restart_with(source, args);
  restart_with(replica, args);
  struct cleanup {
    ~cleanup() {
      try {
        for (int i : {replica, source}) {
          sandbox().stop(i);
          fs::remove(extra_args_file(i));
        }
      } catch (const std::exception& e) {
        BOOST_TEST_MESSAGE("cleanup: " << e.what());
      }
    }
  } cleanup_at_end;

  // Booted with the rendered options (no loose-: a missing plugin would have stopped the boot).
  for (int i : {source, replica}) {
    BOOST_TEST_CONTEXT("instance " << i) {
      BOOST_TEST(var(i, "rpl_semi_sync_replica_enabled") == "1");
      BOOST_TEST(var(i, "rpl_semi_sync_source_enabled") == "0");  // OFF at boot
      BOOST_TEST(var(i, "rpl_semi_sync_source_wait_point") == "AFTER_SYNC");
      BOOST_TEST(var(i, "rpl_semi_sync_source_wait_for_replica_count") == "1");
      BOOST_TEST(var(i, "rpl_semi_sync_source_timeout") == std::to_string(br::semisync_timeout_max_ms));
      BOOST_TEST(var(i, "rpl_semi_sync_source_wait_no_replica") == "1");
    }
  }
  sandbox().replicate(replica, source);
  auto c = admin(source);
  {  // What the executor does on the promoted primary (io/mysql/semisync.hpp).
    auto on = m::semisync_source_on(c, 1);
    BOOST_TEST_REQUIRE(on.ok(), (on.ok() ? "" : on.error().to_string()));
  }
  BOOST_TEST_REQUIRE(eventually([&] { return probe_ok(c).semisync.clients == 1u; }, 20000ms),
                     "the replica never connected as a semi-sync client");
  ensure_marker_table(source);

  // 1. The replica receives: the commit returns, acknowledged.
  auto writer = as_user(source, "root");
  insert_marker(writer, marker("semisync-acked"));
  auto p = probe_ok(c);
  BOOST_TEST(p.semisync.source_on);
  BOOST_TEST(p.semisync.wait_sessions == 0u);
  BOOST_TEST(p.semisync.no_tx == 0u);

  // 2. The replica's receiver stopped: the next commit waits for an acknowledgement that cannot
  //    come. The client gives up after its read timeout (the C API reads up to 3 times); the
  //    session keeps waiting on the server.
  //    (The source counts the stopped receiver as a client until its dump thread next writes to
  //    it: Rpl_semi_sync_source_clients is not a live view of the receivers.)
  sandbox().sql(replica, "STOP REPLICA IO_THREAD");
  auto o = sandbox().options(source, "root");
  o.read_timeout = 2s;
  auto blocked = open_or_fail(o);
  const auto key = marker("semisync-blocked");
  auto r = blocked.exec("INSERT INTO appdb.io_mysql_markers (k) VALUES ('" + key + "')");
  BOOST_TEST_REQUIRE(!r.ok(), "the commit returned without an acknowledgement");
  // The C API reports its read timeout as 2013 "Lost connection to server during query".
  BOOST_TEST((r.error().kind == m::error_kind::timeout ||
              r.error().kind == m::error_kind::lost_connection),
             r.error().to_string());
  p = probe_ok(c);
  BOOST_TEST(p.semisync.source_on);  // still semi-synchronous: never fell back
  BOOST_TEST(p.semisync.wait_sessions >= 1u);
  BOOST_TEST(p.semisync.no_tx == 0u);
  BOOST_TEST_MESSAGE("while blocked: clients " << p.semisync.clients << ", waiting sessions "
                                               << p.semisync.wait_sessions);

  // 3. The receiver back: the waiting commit is acknowledged and nothing waits any more.
  sandbox().sql(replica, "START REPLICA IO_THREAD");
  BOOST_TEST(eventually([&] { return probe_ok(c).semisync.wait_sessions == 0u; }, 20000ms));
  BOOST_TEST(probe_ok(c).semisync.no_tx == 0u);
  auto reader = as_user(source, "root");
  BOOST_TEST(has_marker(reader, key));  // written to the binary log, then acknowledged
}

BOOST_AUTO_TEST_SUITE_END()
