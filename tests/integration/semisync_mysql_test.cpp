// Integration (issue 25): semi-synchronous replication on real MySQL 9.7 with the options the
// operator renders into my.cnf (config/render/semisync_my_cnf.*), K=1, sandbox instances 270
// (source) and 271 (replica). A commit returns while the replica receives; with the replica's
// receiver stopped a commit blocks (ended by the client's read timeout, the test's own bound) and
// the probe shows the waiting session. A deposed source with a commit waiting is fenced by the
// bounded fence and by the dead man's switch (docs/safety.md "Fencing a semi-synchronous
// primary"): the waiting client is disconnected, never answered OK. Instances are stopped and
// their extra options removed at the end.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <optional>
#include <thread>

#include "config/render/my_cnf.hpp"
#include "io/mysql/dead_mans_switch.hpp"
#include "io/mysql/fencing.hpp"
#include "io/mysql/mysql8_dialect.hpp"
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

/// The same over an open operator session: SET GLOBAL offline_mode=ON also ends connections still
/// in their handshake (seen: a root client's TLS handshake cut), so polls during a fence use it.
std::string var(m::connection& c, const std::string& name) {
  auto r = c.query("SELECT @@GLOBAL." + name);
  BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  return r->rows.at(0).at(0).value_or("NULL");
}

/// Both instances booted once with the rendered options; stopped and their options removed at
/// the end of the run.
struct semisync_pair {
  semisync_pair() {
    const auto args = rendered_semisync_args();
    restart_with(source, args);
    restart_with(replica, args);
  }
  ~semisync_pair() {
    try {
      for (int i : {replica, source}) {
        sandbox().stop(i);
        fs::remove(extra_args_file(i));
      }
    } catch (const std::exception& e) {
      BOOST_TEST_MESSAGE("cleanup: " << e.what());
    }
  }
};

/// No dead man's switch on the source (a DROP fails on a fenced server, and a switch with a stale
/// heartbeat fences again between the unfence and the DROP: retried).
void drop_switch(m::connection& c) {
  bool dropped = false;
  for (int attempt = 0; attempt < 5 && !dropped; ++attempt) {
    exec_ok(c, "SET GLOBAL super_read_only = OFF");
    dropped = c.exec(m::drop_event_sql()).ok();
  }
  BOOST_TEST_REQUIRE(dropped, "could not drop the switch");
}

/// The replica receiving from a writable source whose source side is on (K=1), the receiver
/// connected as a semi-sync client, the marker table present. Every case starts from here.
m::connection semisync_primary() {
  sandbox().replicate(replica, source);
  auto c = admin(source);
  drop_switch(c);  // one left by an earlier, interrupted run would fence the source
  {  // What the executor does on the promoted primary (io/mysql/semisync.hpp).
    auto on = m::semisync_source_on(c, 1);
    BOOST_TEST_REQUIRE(on.ok(), (on.ok() ? "" : on.error().to_string()));
  }
  BOOST_TEST_REQUIRE(eventually([&] { return probe_ok(c).semisync.clients == 1u; }, 20000ms),
                     "the replica never connected as a semi-sync client");
  ensure_marker_table(source);
  return c;
}

/// An application commit on the source in its own thread (the sandbox's `app` account: no
/// CONNECTION_ADMIN), with a long read timeout: it waits for an acknowledgement until something
/// ends the wait. `outcome` is the statement's result once it returned.
struct blocked_writer {
  std::string key = marker("semisync-deposed");
  std::optional<m::result<uint64_t>> outcome;
  std::thread t;
  explicit blocked_writer(const std::string& user = "app") {
    auto o = sandbox().options(source, user);
    o.read_timeout = 60s;
    t = std::thread([this, o] {
      auto w = m::connection::open(o);
      if (!w) {
        outcome = w.error();
        return;
      }
      outcome = w->exec("INSERT INTO appdb.io_mysql_markers (k) VALUES ('" + key + "')");
    });
  }
  ~blocked_writer() {
    if (t.joinable()) t.join();
  }
  /// Joins and returns true when the client was answered OK (an acknowledged write).
  bool acknowledged() {
    if (t.joinable()) t.join();
    BOOST_TEST_REQUIRE(outcome.has_value());
    if (!outcome->ok()) BOOST_TEST_MESSAGE("the waiting client saw: " << outcome->error().to_string());
    return outcome->ok();
  }
};

/// Fenced for real (both flags), applications admitted again, the source side off.
void deposed_and_fenced(m::connection& c) {
  BOOST_TEST(var(c, "read_only") == "1");
  BOOST_TEST(var(c, "super_read_only") == "1");
  BOOST_TEST(var(c, "offline_mode") == "0");
  BOOST_TEST(var(c, "rpl_semi_sync_source_enabled") == "0");
  BOOST_TEST(probe_ok(c).semisync.wait_sessions == 0u);
}

/// Back to the start: no switch, the receiver running (the next case's replicate makes the
/// source writable again).
void restore(m::connection& c) {
  drop_switch(c);
  exec_ok(c, "SET GLOBAL super_read_only = ON");
  sandbox().sql(replica, "START REPLICA IO_THREAD");
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(semisync_pair);

BOOST_AUTO_TEST_SUITE(semisync_mysql)

BOOST_AUTO_TEST_CASE(rendered_options_block_a_commit_without_a_receiver) {

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
  auto c = semisync_primary();

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

// The deposed source of a rule-4 failover: its receiver stopped, an application commit waits for
// an acknowledgement that cannot come and holds the commit lock, which SET GLOBAL
// super_read_only=ON waits for (a KILL does not end the wait). The bounded fence (the operator's
// and the sidecar's) releases it clients first: the waiting client is disconnected, never told OK;
// the released commit is on the source only (divergent, never acknowledged).
BOOST_AUTO_TEST_CASE(bounded_fence_releases_a_deposed_source_clients_first) {
  auto c = semisync_primary();
  // An idle session the fence may not kill (root has SYSTEM_USER, the operator account does not:
  // 1095) does not stop the release; only a refused session that waits would.
  auto idle_root = as_user(source, "root");
  sandbox().sql(replica, "STOP REPLICA IO_THREAD");
  blocked_writer w;
  BOOST_TEST_REQUIRE(eventually([&] { return probe_ok(c).semisync.wait_sessions >= 1u; }, 20000ms),
                     "the application commit never waited for an acknowledgement");
  m::fence_options fo;
  fo.budget = 5s;
  fo.policy.protected_users.insert("bloodraven");
  const auto t0 = std::chrono::steady_clock::now();
  auto f = m::fence_bounded(c, m::mysql8(), fo);
  BOOST_TEST_REQUIRE(f.ok(), (f.ok() ? "" : f.error().to_string()));
  BOOST_TEST_MESSAGE("semi-sync fence: " << ms_since(t0) << " ms, attempts " << f->attempts
                                         << ", killed " << f->killed_ids.size());
  BOOST_TEST((f->semisync == m::semisync_fence_steps{true, true, true}));
  BOOST_TEST(f->lock_waits == 1u);  // released after the first attempt waited
  BOOST_TEST(f->attempts == 2u);
  BOOST_TEST(f->kill_failures.size() >= 1u);  // the idle root session (per kill round)
  BOOST_TEST(!w.acknowledged());
  deposed_and_fenced(c);
  auto reader = as_user(source, "root");
  BOOST_TEST(has_marker(reader, w.key));  // committed after the release: divergent, never acked
  restore(c);
}

// The same source with only its dead man's switch left (the operator and the sidecar cannot reach
// it): the event's run after the lease fences it through the waiting commit, clients first.
BOOST_AUTO_TEST_CASE(switch_event_releases_a_deposed_source_clients_first) {
  auto c = semisync_primary();
  const std::chrono::milliseconds lease = 3s;
  // As an earlier fence that released but did not apply leaves it (review V6 H2): a promotion
  // must end it, or the primary refuses its applications and its receivers.
  exec_ok(c, "SET GLOBAL offline_mode = ON");
  auto p = m::promote_with_switch(c, lease, 3);
  BOOST_TEST_REQUIRE(p.ok(), (p.ok() ? "" : p.error().to_string()));
  BOOST_TEST_REQUIRE(p->writable);
  BOOST_TEST(var(c, "offline_mode") == "0");
  sandbox().sql(replica, "STOP REPLICA IO_THREAD");
  auto hb = m::refresh_heartbeat(c);
  BOOST_TEST_REQUIRE((hb.ok() && *hb == m::heartbeat_outcome::refreshed));
  const auto last_beat = std::chrono::steady_clock::now();
  blocked_writer w;
  BOOST_TEST_REQUIRE(eventually([&] { return probe_ok(c).semisync.wait_sessions >= 1u; }, 2000ms),
                     "the application commit never waited for an acknowledgement");
  const bool fenced = eventually([&] { return var(c, "read_only") == "1"; }, lease + 15s);
  BOOST_TEST_MESSAGE("switch on a semi-sync source: " << (fenced ? "fenced" : "NOT fenced")
                                                      << " " << ms_since(last_beat)
                                                      << " ms after the last heartbeat");
  BOOST_TEST_REQUIRE(fenced);
  BOOST_TEST(!w.acknowledged());
  BOOST_TEST(eventually([&] { return var(c, "offline_mode") == "0"; }, 3000ms));
  deposed_and_fenced(c);
  restore(c);
}

// A waiting commit whose session the fence may not kill (root's: SYSTEM_USER) keeps its client:
// switching the source side off would answer it OK, so the release stops with the source side on,
// nothing fenced and offline_mode left ON (which also keeps the receivers out); once an
// administrator ends offline_mode and the commit is acknowledged, the fence applies.
BOOST_AUTO_TEST_CASE(bounded_fence_keeps_the_source_on_for_an_unkillable_waiting_commit) {
  auto c = semisync_primary();
  sandbox().sql(replica, "STOP REPLICA IO_THREAD");
  blocked_writer w("root");
  BOOST_TEST_REQUIRE(eventually([&] { return probe_ok(c).semisync.wait_sessions >= 1u; }, 20000ms),
                     "the root commit never waited for an acknowledgement");
  m::fence_options fo;
  fo.budget = 5s;
  fo.policy.protected_users.insert("bloodraven");
  auto f = m::fence_bounded(c, m::mysql8(), fo);
  BOOST_TEST_REQUIRE(!f.ok(), "fenced although a waiting commit kept its client");
  BOOST_TEST_MESSAGE("refused: " << f.error().to_string());
  BOOST_TEST(f.error().message.find("in a statement could not be killed") != std::string::npos);
  BOOST_TEST(var(c, "rpl_semi_sync_source_enabled") == "1");
  BOOST_TEST(var(c, "offline_mode") == "1");
  BOOST_TEST(var(c, "read_only") == "0");
  // offline_mode also keeps the replication account out (no CONNECTION_ADMIN): the receiver
  // can come back only after an administrator ends it.
  exec_ok(c, "SET GLOBAL offline_mode = OFF");
  sandbox().sql(replica, "START REPLICA IO_THREAD");
  BOOST_TEST(w.acknowledged());  // acknowledged by the receiver, as semi-sync promises
  auto again = m::fence_bounded(c, m::mysql8(), fo);
  BOOST_TEST_REQUIRE(again.ok(), (again.ok() ? "" : again.error().to_string()));
  BOOST_TEST((again->semisync == m::semisync_fence_steps{}));  // nothing waits: a plain fence
  BOOST_TEST(var(c, "read_only") == "1");
  restore(c);
}

// A healthy semi-sync source (its commits acknowledged; e.g. the sidecar's boot fence) is fenced
// without the release: offline_mode, its clients and its receivers are left alone.
BOOST_AUTO_TEST_CASE(bounded_fence_of_a_healthy_source_keeps_its_receivers) {
  auto c = semisync_primary();
  auto writer = as_user(source, "app");
  insert_marker(writer, marker("semisync-healthy"));  // acknowledged
  m::fence_options fo;
  fo.budget = 5s;
  fo.policy.protected_users.insert("bloodraven");
  auto f = m::fence_bounded(c, m::mysql8(), fo);
  BOOST_TEST_REQUIRE(f.ok(), (f.ok() ? "" : f.error().to_string()));
  BOOST_TEST((f->semisync == m::semisync_fence_steps{}));
  BOOST_TEST(f->attempts == 1u);
  BOOST_TEST(var(c, "read_only") == "1");
  BOOST_TEST(var(c, "rpl_semi_sync_source_enabled") == "1");
  BOOST_TEST(probe_ok(c).semisync.clients == 1u);
  auto alive = writer.query("SELECT 1");  // not disconnected (reads still served)
  BOOST_TEST(alive.ok(), (alive.ok() ? "" : alive.error().to_string()));
  restore(c);
}

BOOST_AUTO_TEST_SUITE_END()
