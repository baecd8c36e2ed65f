// The bounded fence and the dead man's switch against sessions holding the locks that
// SET GLOBAL super_read_only=ON waits for, on real MySQL 9.7 (sandbox instance 61 only):
// LOCK TABLES ... WRITE, a running write inside an open transaction, a protected holder, the
// operator's and the sidecar's fence paths, and the switch event firing behind a holder.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <optional>
#include <string>
#include <thread>

#include "actors/sidecar/fencing/mysql_worker.hpp"
#include "io/mysql/dead_mans_switch.hpp"
#include "tests/integration/mysql_test_common.hpp"

using namespace br::mysql;
using namespace std::chrono_literals;
using br::test::admin;
using br::test::eventually;
using br::test::exec_ok;
using br::test::ms_since;
using br::test::open_or_fail;
using br::test::sandbox;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

constexpr int kInst = 61;
const std::string kBlocker = "fence_blocker";  // an application account of this test only
const std::string kTable = "appdb.fence_blocked";

struct stop_instance_at_exit {
  ~stop_instance_at_exit() {
    auto o = sandbox().run({"stop", std::to_string(kInst)});
    if (o.exit_code != 0) std::cerr << "stop " << kInst << ": " << o.err << "\n";
  }
};

void ensure_instance() {
  if (sandbox().run({"port", std::to_string(kInst)}).exit_code == 0 &&
      sandbox().run({"start", std::to_string(kInst)}).exit_code == 0)
    return;
  sandbox().reset(kInst);
}

connection root() {
  auto o = sandbox().options(kInst, "root");
  o.disable_session_binlog = true;
  return open_or_fail(o);
}

/// Fenced for real: both flags. While a SET GLOBAL super_read_only=ON still waits for its lock,
/// @@GLOBAL.super_read_only already reads 1 but read_only reads 0 and nothing is enforced.
bool fenced(connection& c) {
  auto r = c.query("SELECT @@GLOBAL.read_only AND @@GLOBAL.super_read_only");
  BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  return r->rows.at(0).at(0) == std::optional<std::string>("1");
}

/// An application write is refused by the fence (1290), not merely stalled behind a SET that
/// is still waiting (which a short lock wait turns into 1205).
void application_write_refused() {
  auto o = sandbox().options(kInst, kBlocker);
  auto w = open_or_fail(o);
  exec_ok(w, "SET SESSION lock_wait_timeout = 2");
  auto r = w.exec("INSERT INTO " + kTable + " VALUES (9, 9)");
  BOOST_TEST_REQUIRE(!r.ok(), "an application write succeeded on the fenced server");
  BOOST_TEST(r.error().code == 1290u, r.error().to_string());
}

long long count(connection& c, const std::string& sql) {
  auto r = c.query(sql);
  BOOST_TEST_REQUIRE(r.ok(), sql << ": " << (r.ok() ? "" : r.error().to_string()));
  return std::stoll(r->rows.at(0).at(0).value_or("-1"));
}

/// A server without the switch, with the blocker account and table, writable: every case starts
/// from here (as root, sql_log_bin=0: nothing of it becomes a GTID).
void writable_server_without_switch() {
  auto c = root();
  // A switch left by an earlier case may fence again between the unfence and the DROP: retry.
  bool dropped = false;
  for (int attempt = 0; attempt < 5 && !dropped; ++attempt) {
    exec_ok(c, "SET GLOBAL super_read_only = OFF");
    dropped = c.exec(drop_event_sql()).ok();
  }
  BOOST_TEST_REQUIRE(dropped, "could not drop the switch");
  exec_ok(c, "SET GLOBAL super_read_only = OFF");
  exec_ok(c, "SET GLOBAL read_only = OFF");
  exec_ok(c, "DROP TABLE IF EXISTS " + heartbeat_table_sql_name());
  exec_ok(c, "CREATE USER IF NOT EXISTS '" + kBlocker + "'@'%' IDENTIFIED BY '" + kBlocker + "pw'");
  exec_ok(c, "GRANT SELECT, INSERT, UPDATE, DELETE, LOCK TABLES ON appdb.* TO '" + kBlocker +
                 "'@'%'");
  exec_ok(c, "CREATE TABLE IF NOT EXISTS " + kTable + " (id INT PRIMARY KEY, v INT)");
  exec_ok(c, "DELETE FROM " + kTable);
  exec_ok(c, "INSERT INTO " + kTable + " VALUES (1, 1)");
}

/// A session of the blocker account (long read timeout: it sits in SLEEP or holds a lock).
connection blocker() {
  auto o = sandbox().options(kInst, kBlocker);
  o.read_timeout = 90s;
  o.write_timeout = 90s;
  return open_or_fail(o);
}

/// The holder of the global read lock's intention-exclusive lock is `id` (it blocks the fence).
bool holds_global_lock(connection& observer, uint64_t id) {
  return count(observer,
               "SELECT COUNT(*) FROM performance_schema.metadata_locks l JOIN "
               "performance_schema.threads t ON t.THREAD_ID = l.OWNER_THREAD_ID WHERE "
               "l.OBJECT_TYPE = 'GLOBAL' AND l.LOCK_STATUS = 'GRANTED' AND t.PROCESSLIST_ID = " +
                   std::to_string(id)) > 0;
}

bool session_gone(connection& observer, uint64_t id) {
  return eventually(
      [&] {
        return count(observer, "SELECT COUNT(*) FROM performance_schema.threads WHERE "
                               "PROCESSLIST_ID = " + std::to_string(id)) == 0;
      },
      5s);
}

fence_options budget_of(milliseconds budget) {
  fence_options o;
  o.budget = budget;
  o.policy.protected_users.insert("bloodraven");
  return o;
}

bool contains(const std::vector<uint64_t>& ids, uint64_t id) {
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(stop_instance_at_exit);

BOOST_AUTO_TEST_SUITE(fence_bounded_suite)

// (a) LOCK TABLES ... WRITE held by an idle application session: the SET waits for it, the
// holder is killed after the first short lock wait, the retry applies, all within the budget.
BOOST_AUTO_TEST_CASE(lock_tables_write_holder_is_killed_within_the_budget) {
  ensure_instance();
  writable_server_without_switch();
  auto b = blocker();
  exec_ok(b, "LOCK TABLES " + kTable + " WRITE");
  auto observer = admin(kInst);
  BOOST_TEST_REQUIRE(holds_global_lock(observer, b.id()));

  auto c = admin(kInst);
  const milliseconds fence_timeout = 5s;
  const auto t0 = steady_clock::now();
  auto r = fence_bounded(c, mysql8(), budget_of(fence_timeout));
  const double took = ms_since(t0);
  BOOST_TEST_REQUIRE(r.ok(), "fence: " << (r.ok() ? "" : r.error().to_string()));
  std::cout << "LOCK TABLES WRITE holder: fence took " << took << " ms (budget "
            << fence_timeout.count() << " ms), attempts " << r->attempts << ", lock waits "
            << r->lock_waits << ", killed " << r->killed_ids.size() << "\n";
  BOOST_TEST(fenced(observer));
  application_write_refused();
  BOOST_TEST(took < static_cast<double>(fence_timeout.count()));
  BOOST_TEST(r->lock_waits >= 1u);
  BOOST_TEST(contains(r->killed_ids, b.id()));
  BOOST_TEST(session_gone(observer, b.id()));
  // The fencing session runs with the server's lock wait again.
  BOOST_TEST(count(c, "SELECT @@SESSION.lock_wait_timeout = @@GLOBAL.lock_wait_timeout") == 1);
}

// The operator's fence (site_io runs mysql::fence on its cached session): the budget is the
// session's read timeout, the session's own account is spared.
BOOST_AUTO_TEST_CASE(operator_fence_on_the_session_terms_gets_through) {
  ensure_instance();
  writable_server_without_switch();
  auto b = blocker();
  exec_ok(b, "LOCK TABLES " + kTable + " WRITE");
  auto observer = admin(kInst);
  BOOST_TEST_REQUIRE(holds_global_lock(observer, b.id()));

  auto o = sandbox().options(kInst, "bloodraven");
  o.read_timeout = 5s;  // the operator's command timeout
  auto c = open_or_fail(o);
  const auto t0 = steady_clock::now();
  auto r = fence(c, mysql8());
  const double took = ms_since(t0);
  BOOST_TEST_REQUIRE(r.ok(), "fence: " << (r.ok() ? "" : r.error().to_string()));
  std::cout << "operator fence behind LOCK TABLES WRITE: " << took << " ms\n";
  BOOST_TEST(fenced(observer));
  BOOST_TEST(took < 5000.0);
  BOOST_TEST(session_gone(observer, b.id()));
}

// (b) An open transaction with uncommitted writes, running a long write statement: the statement
// holds the lock; it is killed, its transaction rolled back, and the fence applies in time.
BOOST_AUTO_TEST_CASE(running_write_in_an_open_transaction_is_killed) {
  ensure_instance();
  writable_server_without_switch();
  auto b = blocker();
  const uint64_t bid = b.id();
  exec_ok(b, "BEGIN");
  exec_ok(b, "INSERT INTO " + kTable + " VALUES (2, 2)");  // uncommitted
  std::optional<mysql_error> blocker_end;
  std::thread writer([&] {
    auto w = b.exec("UPDATE " + kTable + " SET v = SLEEP(60) WHERE id = 1");
    if (!w) blocker_end = w.error();
  });
  auto observer = admin(kInst);
  // Whatever happens below, the writer ends (its session killed) and is joined before `b` goes:
  // a failed case leaves no 60 s lock holder behind for the next one.
  struct writer_guard {
    std::thread& t;
    uint64_t id;
    ~writer_guard() {
      if (!t.joinable()) return;
      auto killer = root();
      (void)killer.exec("KILL CONNECTION " + std::to_string(id));
      t.join();
    }
  } guard{writer, bid};
  BOOST_TEST_REQUIRE(eventually([&] { return holds_global_lock(observer, bid); }, 5s));

  auto c = admin(kInst);
  const milliseconds fence_timeout = 5s;
  auto r = fence_bounded(c, mysql8(), budget_of(fence_timeout));
  BOOST_TEST_REQUIRE(r.ok(), "fence: " << (r.ok() ? "" : r.error().to_string()));
  writer.join();
  std::cout << "running write in an open transaction: fence took " << r->elapsed.count()
            << " ms, attempts " << r->attempts << ", killed " << r->killed_ids.size() << "\n";
  BOOST_TEST(fenced(observer));
  BOOST_TEST(r->elapsed.count() < fence_timeout.count());
  BOOST_TEST(contains(r->killed_ids, bid));
  BOOST_TEST_REQUIRE(blocker_end.has_value());  // the UPDATE did not run its 60 s
  BOOST_TEST(blocker_end->kind != error_kind::server_error, blocker_end->to_string());
  BOOST_TEST(count(observer, "SELECT COUNT(*) FROM " + kTable + " WHERE id = 2") == 0);
}

// An idle open transaction with uncommitted writes holds no lock the SET waits for (MySQL 9.7):
// the fence applies at once without killing it, and its COMMIT is refused afterwards.
BOOST_AUTO_TEST_CASE(idle_open_transaction_does_not_block_and_cannot_commit) {
  ensure_instance();
  writable_server_without_switch();
  auto b = blocker();
  exec_ok(b, "BEGIN");
  exec_ok(b, "INSERT INTO " + kTable + " VALUES (3, 3)");
  auto c = admin(kInst);
  auto r = fence_bounded(c, mysql8(), budget_of(5s));
  BOOST_TEST_REQUIRE(r.ok(), "fence: " << (r.ok() ? "" : r.error().to_string()));
  std::cout << "idle open transaction: fence took " << r->elapsed.count() << " ms, lock waits "
            << r->lock_waits << "\n";
  BOOST_TEST(r->lock_waits == 0u);
  BOOST_TEST(r->killed_ids.empty());
  auto commit = b.exec("COMMIT");
  BOOST_TEST_REQUIRE(!commit.ok());
  BOOST_TEST(commit.error().code == 1290u, commit.error().to_string());  // super-read-only
  auto observer = admin(kInst);
  BOOST_TEST(count(observer, "SELECT COUNT(*) FROM " + kTable + " WHERE id = 3") == 0);
}

// A holder the policy spares is never killed: the fence gives up at its budget with a clear
// lock-wait error, and nothing was applied.
BOOST_AUTO_TEST_CASE(spared_holder_ends_the_fence_at_its_budget_with_a_clear_error) {
  ensure_instance();
  writable_server_without_switch();
  auto b = blocker();
  exec_ok(b, "LOCK TABLES " + kTable + " WRITE");
  auto c = admin(kInst);
  auto opts = budget_of(3s);
  opts.policy.protected_users.insert(kBlocker);
  const auto t0 = steady_clock::now();
  auto r = fence_bounded(c, mysql8(), opts);
  const double took = ms_since(t0);
  BOOST_TEST_REQUIRE(!r.ok());
  std::cout << "spared holder: gave up after " << took << " ms: " << r.error().to_string() << "\n";
  BOOST_TEST(r.error().kind == error_kind::server_error);
  BOOST_TEST(r.error().code == 1205u);
  BOOST_TEST(r.error().message.find("budget of 3000 ms exhausted") != std::string::npos);
  BOOST_TEST(r.error().message.find("spared") != std::string::npos);
  BOOST_TEST(took < 3000.0 + 1000.0);  // the budget, and the listing's round trips
  auto observer = admin(kInst);
  BOOST_TEST(!fenced(observer));
  BOOST_TEST(count(b, "SELECT 1") == 1);  // still alive
  exec_ok(b, "UNLOCK TABLES");
}

// The sidecar's fence path (the MySQL worker's self-fence) gets through a LOCK TABLES holder
// within FENCE_TIMEOUT.
BOOST_AUTO_TEST_CASE(sidecar_self_fence_gets_through_within_fence_timeout) {
  ensure_instance();
  writable_server_without_switch();
  auto b = blocker();
  exec_ok(b, "LOCK TABLES " + kTable + " WRITE");
  auto observer = admin(kInst);
  BOOST_TEST_REQUIRE(holds_global_lock(observer, b.id()));

  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  br::sidecar::mysql_worker_options wo;
  wo.host = "127.0.0.1";
  wo.port = sandbox().port(kInst);
  wo.user = "bloodraven";
  wo.password = "bloodravenpw";
  wo.fence_timeout = 5s;
  wo.dead_mans_switch = false;
  auto worker = br::sidecar::spawn_mysql_worker(sys, wo);
  std::optional<br::mysql_outcome> out;
  std::string failed;
  const auto t0 = steady_clock::now();
  {
    caf::scoped_actor self{sys};
    self->request(worker, std::chrono::seconds(30), br::self_fence_atom::value,
                  std::string("lease"))
        .receive([&](br::mysql_outcome& o) { out = o; },
                 [&](caf::error& e) { failed = sys.render(e); });
    self->send_exit(worker, caf::exit_reason::user_shutdown);
  }
  const double took = ms_since(t0);
  BOOST_TEST_REQUIRE(out.has_value(), failed);
  std::cout << "sidecar self-fence behind LOCK TABLES WRITE: " << took << " ms (FENCE_TIMEOUT "
            << wo.fence_timeout.count() << " ms): " << out->error << "\n";
  BOOST_TEST(out->ok, out->error);
  BOOST_TEST(took < 5000.0);
  BOOST_TEST(fenced(observer));
  BOOST_TEST(session_gone(observer, b.id()));
}

// (c) The switch fires while an application session holds LOCK TABLES ... WRITE: the event kills
// the holder and super_read_only becomes ON within a bound after the lease.
BOOST_AUTO_TEST_CASE(switch_event_fences_through_a_lock_tables_holder) {
  ensure_instance();
  writable_server_without_switch();
  auto c = admin(kInst);
  const milliseconds lease = 3s;
  auto p = promote_with_switch(c, lease, 3);
  BOOST_TEST_REQUIRE(p.ok(), (p.ok() ? "" : p.error().to_string()));
  BOOST_TEST_REQUIRE(p->writable);
  BOOST_TEST_REQUIRE(is_armed(p->state.arming(lease)));

  auto b = blocker();
  exec_ok(b, "LOCK TABLES " + kTable + " WRITE");
  BOOST_TEST_REQUIRE(holds_global_lock(c, b.id()));
  auto hb = refresh_heartbeat(c);
  BOOST_TEST_REQUIRE((hb.ok() && *hb == heartbeat_outcome::refreshed));
  const auto last_beat = steady_clock::now();
  const milliseconds bound = lease + 10s;
  const bool got_fenced = eventually([&] { return fenced(c); }, bound);
  const double ms = ms_since(last_beat);
  std::cout << "switch behind LOCK TABLES WRITE (lease " << lease.count() << " ms): "
            << (got_fenced ? "fenced" : "NOT fenced") << " after " << ms
            << " ms since the last heartbeat\n";
  BOOST_TEST(got_fenced);
  BOOST_TEST(ms >= static_cast<double>(lease.count()) - 500.0);  // not before the lease
  BOOST_TEST(session_gone(c, b.id()));
  if (got_fenced) application_write_refused();
  auto r = root();
  // A switch that cannot get through leaves the holder alive: end it before cleaning up.
  (void)r.exec("KILL CONNECTION " + std::to_string(b.id()));
  writable_server_without_switch();  // no switch left firing on this instance
  exec_ok(r, "SET GLOBAL super_read_only = ON");
}

// ensure_switch on a fenced server unfences for its DDL and fences again through the bounded
// fence: the server ends fenced and the session runs with the server's lock wait again.
BOOST_AUTO_TEST_CASE(ensure_switch_refences_a_fenced_server_through_the_bounded_fence) {
  ensure_instance();
  writable_server_without_switch();
  {
    auto r = root();
    exec_ok(r, "SET GLOBAL super_read_only = ON");
  }
  auto c = admin(kInst);
  auto e = ensure_switch(c, 3s);
  BOOST_TEST_REQUIRE(e.ok(), (e.ok() ? "" : e.error().to_string()));
  BOOST_TEST(e->unfenced_for_ddl);
  BOOST_TEST(e->state.super_read_only);
  BOOST_TEST(fenced(c));
  BOOST_TEST(count(c, "SELECT @@SESSION.lock_wait_timeout = @@GLOBAL.lock_wait_timeout") == 1);
  writable_server_without_switch();
  auto r = root();
  exec_ok(r, "SET GLOBAL super_read_only = ON");
}

BOOST_AUTO_TEST_SUITE_END()
