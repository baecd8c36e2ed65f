// Integration: fence, kill sessions, relay drain, stop/reset/change source, errant GTIDs, CLONE.
#include <algorithm>

#include "tests/integration/mysql_test_common.hpp"

using namespace br::test;
namespace m = br::mysql;
using namespace std::chrono_literals;

namespace {

const m::dialect& d() {
  return m::mysql8();
}

void ok(const m::result<void>& r, const char* what) {
  BOOST_TEST_REQUIRE(r.ok(), what << ": " << (r.ok() ? "" : r.error().to_string()));
}

m::replication_source source_of(int instance) {
  m::replication_source s;
  s.host = "127.0.0.1";
  s.port = sandbox().port(instance);
  s.user = "repl";
  s.password = "replpw";
  s.ssl = true;
  s.connect_retry = 1s;
  s.retry_count = 30;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(mysql_commands)

BOOST_AUTO_TEST_CASE(fence_blocks_app_writes_while_replication_applies) {
  ensure_pair();
  ensure_marker_table(1);
  auto a2 = admin(2);
  // Unfence the replica so the fence has something to do, and prove the app could write then.
  // The write is rolled back: it never becomes a GTID on the replica.
  ok(m::promote(a2, d()), "promote replica");
  BOOST_TEST(probe_ok(a2).writable());
  auto app = as_user(2, "app");
  exec_ok(app, "START TRANSACTION");
  auto before = app.exec("INSERT INTO appdb.io_mysql_markers (k) VALUES ('" + marker("rb") + "')");
  BOOST_TEST(before.ok(),
             "unfenced app write: " << (before.ok() ? "" : before.error().to_string()));
  exec_ok(app, "ROLLBACK");

  ok(m::fence(a2, d()), "fence");
  auto p = probe_ok(a2);
  BOOST_TEST(p.super_read_only);
  BOOST_TEST(p.read_only);
  auto blocked =
      app.exec("INSERT INTO appdb.io_mysql_markers (k) VALUES ('" + marker("app") + "')");
  BOOST_TEST_REQUIRE(!blocked.ok());
  BOOST_TEST(blocked.error().kind == m::error_kind::server_error);
  BOOST_TEST(blocked.error().code == 1290u);

  // Replication into the fenced replica keeps applying.
  const std::string k = marker("through-fence");
  {
    auto root1 = as_user(1, "root");
    insert_marker(root1, k);
  }
  auto c1 = admin(1);
  BOOST_TEST(wait_ok(2, gtids_ok(c1), 20s) == m::wait_outcome::reached);
  BOOST_TEST(has_marker(a2, k));
  // And the replica has no transaction of its own (the rolled-back write left nothing).
  auto p2 = probe_ok(a2);
  BOOST_TEST(p2.gtid_executed.subset_of(gtids_ok(c1)));
}

BOOST_AUTO_TEST_CASE(kill_sessions_spares_replication_threads) {
  ensure_pair();
  ensure_marker_table(1);
  auto a2 = admin(2);
  ok(m::fence(a2, d()), "fence");
  auto idle_app = as_user(2, "app");
  exec_ok(idle_app, "SELECT 1");
  const uint64_t app_id = idle_app.id();

  m::kill_policy keep_admins{{"root", "bloodraven"}};
  auto rep = m::kill_application_sessions(a2, d(), keep_admins);
  BOOST_TEST_REQUIRE(rep.ok(), (rep.ok() ? "" : rep.error().to_string()));
  BOOST_TEST_MESSAGE("replica: killed " << rep->killed << ", kept " << rep->kept << ", gone "
                                        << rep->already_gone);
  BOOST_TEST(rep->killed >= 1u);
  const bool app_killed =
      std::find(rep->killed_ids.begin(), rep->killed_ids.end(), app_id) != rep->killed_ids.end();
  BOOST_TEST(app_killed);
  BOOST_TEST(rep->kept >= 2u);  // at least the receiver and the applier
  BOOST_TEST(rep->failures.empty());
  auto after = idle_app.query("SELECT 1");
  BOOST_TEST_REQUIRE(!after.ok());
  BOOST_TEST_MESSAGE("killed session's next query: " << after.error().to_string());
  BOOST_TEST((after.error().kind == m::error_kind::lost_connection ||
              after.error().kind == m::error_kind::server_error));
  BOOST_TEST(a2.query("SELECT 1").ok());  // our own session survived

  // On the primary the outbound Binlog Dump GTID thread (user repl, not protected) survives.
  auto a1 = admin(1);
  m::kill_policy keep_admins_and_app{{"root", "bloodraven", "app"}};
  auto rep1 = m::kill_application_sessions(a1, d(), keep_admins_and_app);
  BOOST_TEST_REQUIRE(rep1.ok(), (rep1.ok() ? "" : rep1.error().to_string()));
  BOOST_TEST(rep1->kept >= 1u);

  const std::string k = marker("after-kill");
  {
    auto root1 = as_user(1, "root");
    insert_marker(root1, k);
  }
  BOOST_TEST(wait_ok(2, gtids_ok(a1), 20s) == m::wait_outcome::reached);
  BOOST_TEST(has_marker(a2, k));
  auto p = probe_ok(a2);
  BOOST_TEST(p.channel.io == m::thread_state::on);
  BOOST_TEST(p.channel.sql == m::thread_state::on);
}

BOOST_AUTO_TEST_CASE(relay_drain_and_wait_for_executed) {
  ensure_pair();
  ensure_marker_table(1);
  auto a2 = admin(2);
  auto a1 = admin(1);
  const br::gtid_set before = gtids_ok(a1);
  ok(m::stop_replica(a2, d(), "", m::replica_threads::sql_thread), "stop sql thread");
  auto root1 = as_user(1, "root");
  std::vector<std::string> keys;
  for (int i = 0; i < 3; ++i) {
    keys.push_back(marker("relay"));
    insert_marker(root1, keys.back());
  }
  const br::gtid_set target = gtids_ok(a1);
  const br::gtid_set fresh = target.subtract(before);
  BOOST_TEST_REQUIRE(fresh.count() == 3u);
  // Received (in the relay log) but not applied.
  BOOST_TEST_REQUIRE(
      eventually([&] { return probe_ok(a2).channel.received.contains(fresh); }, 10s));
  auto p = probe_ok(a2);
  BOOST_TEST(p.channel.sql == m::thread_state::off);
  BOOST_TEST(!p.gtid_executed.contains(target));
  BOOST_TEST(!has_marker(a2, keys.back()));

  ok(m::start_replica(a2, d(), "", m::replica_threads::sql_thread), "start sql thread");
  BOOST_TEST(wait_ok(2, target, 30s) == m::wait_outcome::reached);
  BOOST_TEST(gtids_ok(a2).contains(target));
  for (const auto& k : keys) BOOST_TEST(has_marker(a2, k));

  // A set that never arrives: the outcome is timed_out, not an error.
  auto never = br::gtid_set::parse("0badc0de-0000-4000-8000-00000000abcd:1-3");
  BOOST_TEST_REQUIRE(never.has_value());
  auto t0 = std::chrono::steady_clock::now();
  BOOST_TEST(wait_ok(2, *never, 2s) == m::wait_outcome::timed_out);
  BOOST_TEST_MESSAGE("wait_for_executed(never, 2 s) answered timed_out after " << ms_since(t0)
                                                                               << " ms");
}

BOOST_AUTO_TEST_CASE(stop_reset_change_source_and_errant_transaction) {
  ensure_pair();
  ensure_marker_table(1);
  auto a2 = admin(2);
  ok(m::stop_replica(a2, d()), "stop replica");
  ok(m::reset_replica_all(a2, d()), "reset replica all");
  auto p = probe_ok(a2);
  BOOST_TEST(!p.channel.configured);
  BOOST_TEST(p.channel.io == m::thread_state::off);
  BOOST_TEST(p.channel.sql == m::thread_state::off);
  BOOST_TEST(p.channel.source_port == 0);

  ok(m::change_source(a2, d(), source_of(1)), "change source");
  ok(m::start_replica(a2, d()), "start replica");
  const std::string k = marker("rechanged");
  {
    auto root1 = as_user(1, "root");
    insert_marker(root1, k);
  }
  auto a1 = admin(1);
  BOOST_TEST(wait_ok(2, gtids_ok(a1), 20s) == m::wait_outcome::reached);
  BOOST_TEST(has_marker(a2, k));
  p = probe_ok(a2);
  BOOST_TEST(p.channel.configured);
  BOOST_TEST(p.channel.source_port == sandbox().port(1));
  BOOST_TEST(p.channel.io == m::thread_state::on);
  BOOST_TEST(p.channel.sql == m::thread_state::on);

  // Errant transaction: root writes on the replica with super_read_only briefly off.
  const std::string replica_uuid = p.server_uuid;
  {
    auto root2 = as_user(2, "root");
    exec_ok(root2, "SET GLOBAL super_read_only = OFF");
    insert_marker(root2, marker("errant"));
    exec_ok(root2, "SET GLOBAL super_read_only = ON");
  }
  const br::gtid_set primary = gtids_ok(a1);
  const br::gtid_set replica = gtids_ok(a2);
  BOOST_TEST(!primary.contains(replica));
  const br::gtid_set errant = replica.subtract(primary);
  BOOST_TEST(errant.count() == 1u);
  BOOST_TEST_REQUIRE(errant.streams().size() == 1u);
  BOOST_TEST(errant.streams().begin()->first.first == replica_uuid);
  BOOST_TEST_MESSAGE("errant GTID found by the algebra: " << errant.to_compact_string());

  // Clean up for the next cases: commit an empty transaction with that GTID on the primary.
  const auto& [key, ranges] = *errant.streams().begin();
  {
    auto root1 = as_user(1, "root");
    exec_ok(root1,
            "SET gtid_next = '" + key.first + ":" + std::to_string(ranges.front().first) + "'");
    exec_ok(root1, "BEGIN");
    exec_ok(root1, "COMMIT");
    exec_ok(root1, "SET gtid_next = 'AUTOMATIC'");
  }
  BOOST_TEST(gtids_ok(a1).contains(gtids_ok(a2)));
}

BOOST_AUTO_TEST_CASE(clone_a_fresh_instance_then_replicate) {
  ensure_pair();
  ensure_marker_table(1);
  sandbox().reset(3);
  {
    auto root1 = as_user(1, "root");
    insert_marker(root1, marker("before-clone"));
  }
  auto a1 = admin(1);
  const br::gtid_set donor_set = gtids_ok(a1);
  {
    auto a3 = admin(3);
    BOOST_TEST(gtids_ok(a3).empty());  // a fresh instance
  }
  m::clone_request req;
  req.donor = m::clone_donor{"127.0.0.1", sandbox().port(1), "repl", "replpw"};
  req.deadline = std::chrono::steady_clock::now() + 180s;
  auto t0 = std::chrono::steady_clock::now();
  auto rep = m::clone_instance(sandbox().options(3, "bloodraven"), d(), req);
  BOOST_TEST_REQUIRE(rep.ok(), "clone: " << (rep.ok() ? "" : rep.error().to_string()));
  BOOST_TEST(rep->state == "Completed");
  BOOST_TEST_MESSAGE("clone completed in " << ms_since(t0)
                                           << " ms; connection dropped: " << rep->connection_dropped
                                           << ", reconnect attempts " << rep->reconnect_attempts);

  auto a3 = admin(3);
  BOOST_TEST(gtids_ok(a3).contains(donor_set));
  ok(m::change_source(a3, d(), source_of(1)), "change source on the clone");
  ok(m::start_replica(a3, d()), "start replica on the clone");
  const std::string k = marker("after-clone");
  {
    auto root1 = as_user(1, "root");
    insert_marker(root1, k);
  }
  BOOST_TEST(wait_ok(3, gtids_ok(a1), 30s) == m::wait_outcome::reached);
  BOOST_TEST(has_marker(a3, k));
  auto p3 = probe_ok(a3);
  BOOST_TEST(p3.channel.io == m::thread_state::on);
  BOOST_TEST(p3.super_read_only);  // the restarted recipient boots fenced again
  ok(m::stop_replica(a3, d()), "stop replica on the clone");
  sandbox().stop(3);  // save memory; 1 and 2 stay up
}

BOOST_AUTO_TEST_CASE(clone_with_a_wrong_donor_password_fails_without_leaking_it) {
  ensure_pair();
  if (!sandbox().running(3)) sandbox().start(3);
  m::clone_request req;
  req.donor = m::clone_donor{"127.0.0.1", sandbox().port(1), "repl", "wrong-donor-pw-5678"};
  req.deadline = std::chrono::steady_clock::now() + 60s;
  auto rep = m::clone_instance(sandbox().options(3, "bloodraven"), d(), req);
  BOOST_TEST_REQUIRE(!rep.ok());
  BOOST_TEST_MESSAGE("clone with wrong password: " << rep.error().to_string());
  BOOST_TEST(rep.error().kind == m::error_kind::server_error);
  BOOST_TEST(rep.error().message.find("wrong-donor-pw-5678") == std::string::npos);
  // It was unfenced for CLONE; the failure path fenced it again.
  auto a3 = admin(3);
  auto p3 = probe_ok(a3);
  BOOST_TEST(p3.super_read_only);
  sandbox().stop(3);
}

BOOST_AUTO_TEST_SUITE_END()
