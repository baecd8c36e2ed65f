// The in-database dead man's switch against real MySQL 9.7 (sandbox instance 9; 9 + 10 for the
// replication cases): fencing on a stale heartbeat, cycles, GTID neutrality, failover, races.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>

#include "io/mysql/dead_mans_switch.hpp"
#include "tests/integration/mysql_test_common.hpp"

using namespace br::mysql;
using namespace std::chrono_literals;
using br::test::admin;
using br::test::exec_ok;
using br::test::open_or_fail;
using br::test::sandbox;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

namespace {

constexpr int kSingle = 9;   // single-server cases
constexpr int kReplica = 10;  // the pair is 9 (source) + 10 (replica)

/// Stops instances 9 and 10 when the test program ends (they are this test's alone).
struct stop_instances_at_exit {
  ~stop_instances_at_exit() {
    for (int i : {kSingle, kReplica}) {
      auto o = sandbox().run({"stop", std::to_string(i)});
      if (o.exit_code != 0) std::cerr << "stop " << i << ": " << o.err << "\n";
    }
  }
};

/// Instance i running (created fresh the first time: `up N` would start 1..N-1 as well).
void ensure_instance(int i) {
  if (sandbox().run({"port", std::to_string(i)}).exit_code == 0 &&
      sandbox().run({"start", std::to_string(i)}).exit_code == 0)
    return;
  sandbox().reset(i);
}

connection root(int i) {
  return open_or_fail(sandbox().options(i, "root"));
}

std::string gtid_executed(int i) {
  auto c = root(i);
  auto r = c.query("SELECT @@GLOBAL.gtid_executed");
  BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  return r->rows.at(0).at(0).value_or("");
}

bool super_read_only(connection& c) {
  auto r = c.query("SELECT @@GLOBAL.super_read_only");
  BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  return r->rows.at(0).at(0) == std::optional<std::string>("1");
}

/// Removes the switch (as root, sql_log_bin=0) and leaves the server fenced and not replicating:
/// every case starts from a server that has never seen the switch.
void clean_server(int i) {
  auto c = root(i);
  exec_ok(c, "SET SESSION sql_log_bin = 0");
  exec_ok(c, "STOP REPLICA");
  exec_ok(c, "RESET REPLICA ALL");
  // A switch left by an earlier case may fence again between the unfence and the DROP: retry.
  bool dropped = false;
  for (int attempt = 0; attempt < 5 && !dropped; ++attempt) {
    exec_ok(c, "SET GLOBAL super_read_only = OFF");
    dropped = c.exec(drop_event_sql()).ok();
  }
  BOOST_TEST_REQUIRE(dropped, "could not drop the switch on instance " << i);
  exec_ok(c, "SET GLOBAL super_read_only = OFF");
  exec_ok(c, "DROP TABLE IF EXISTS " + heartbeat_table_sql_name());
  exec_ok(c, "SET GLOBAL super_read_only = ON");
}

/// Milliseconds from `from` until the server reports super_read_only=ON, or -1 after `limit`.
double ms_until_fenced(int i, steady_clock::time_point from, milliseconds limit) {
  auto c = admin(i);
  const bool fenced = br::test::eventually([&] { return super_read_only(c); }, limit);
  return fenced ? br::test::ms_since(from) : -1.0;
}

heartbeat_outcome refresh_ok(connection& c) {
  auto r = refresh_heartbeat(c);
  BOOST_TEST_REQUIRE(r.ok(), "refresh_heartbeat: " << (r.ok() ? "" : r.error().to_string()));
  return *r;
}

switch_state state_ok(connection& c) {
  auto r = read_switch_state(c);
  BOOST_TEST_REQUIRE(r.ok(), "read_switch_state: " << (r.ok() ? "" : r.error().to_string()));
  return *r;
}

promote_report promote_ok(connection& c, milliseconds lease, unsigned retries,
                          promote_test_hooks hooks = {}) {
  auto r = promote_with_switch(c, lease, retries, hooks);
  BOOST_TEST_REQUIRE(r.ok(), "promote_with_switch: " << (r.ok() ? "" : r.error().to_string()));
  return *r;
}

/// "Unable to schedule event" lines in instance i's error log (-1 when unreadable).
int unable_to_schedule_lines(int i) {
  const char* src = std::getenv("BR_SOURCE_DIR");
  const char* dir = std::getenv("BR_SANDBOX_DIR");
  const std::string base = dir ? dir : std::string(src ? src : ".") + "/.sandbox";
  std::ifstream in(base + "/root/var/lib/mysql-" + std::to_string(i) + "/error.log");
  if (!in) return -1;
  int n = 0;
  for (std::string line; std::getline(in, line);)
    if (line.find("Unable to schedule event") != std::string::npos) ++n;
  return n;
}

/// Refreshes every second for `span`, failing the case if the server is ever found fenced.
void keep_alive_and_check_writable(connection& c, milliseconds span) {
  const auto end = steady_clock::now() + span;
  while (steady_clock::now() < end) {
    BOOST_TEST_REQUIRE(refresh_ok(c) == heartbeat_outcome::refreshed);
    std::this_thread::sleep_for(1s);
    BOOST_TEST_REQUIRE(!super_read_only(c), "fenced although the heartbeat is fresh");
  }
}

}  // namespace

BOOST_TEST_GLOBAL_FIXTURE(stop_instances_at_exit);

BOOST_AUTO_TEST_SUITE(dead_mans_switch)

BOOST_AUTO_TEST_CASE(scheduler_on_and_ensure_arms_a_fenced_server) {
  ensure_instance(kSingle);
  clean_server(kSingle);
  auto c = admin(kSingle);
  const milliseconds lease = 3s;
  const auto before = state_ok(c);
  std::cout << "instance 9: event_scheduler=" << before.scheduler << "\n";
  BOOST_TEST(before.scheduler == scheduler_state::on);
  BOOST_TEST(before.status == event_status::missing);
  BOOST_TEST(!before.heartbeat_table);
  BOOST_TEST(before.arming(lease) == switch_arming::event_missing);

  auto e = ensure_switch(c, lease);
  BOOST_TEST_REQUIRE(e.ok(), (e.ok() ? "" : e.error().to_string()));
  BOOST_TEST(e->changed);
  BOOST_TEST(e->unfenced_for_ddl);  // a sandbox server boots fenced
  BOOST_TEST(e->state.status == event_status::enabled);
  BOOST_TEST(e->state.heartbeat_table);
  BOOST_TEST((e->state.event_lease == std::optional<milliseconds>(lease)));
  BOOST_TEST((e->state.definer_can_fence == std::optional<bool>(true)));
  BOOST_TEST(e->state.definer == "bloodraven@%");
  BOOST_TEST(e->state.super_read_only);  // put back
  BOOST_TEST(is_armed(e->state.arming(lease)));

  // Idempotent: nothing to do the second time; a new lease re-creates the event.
  auto again = ensure_switch(c, lease);
  BOOST_TEST_REQUIRE(again.ok());
  BOOST_TEST(!again->changed);
  BOOST_TEST(!again->unfenced_for_ddl);
  auto longer = ensure_switch(c, 4s);
  BOOST_TEST_REQUIRE(longer.ok());
  BOOST_TEST(longer->changed);
  BOOST_TEST((longer->state.event_lease == std::optional<milliseconds>(4s)));
  BOOST_TEST(longer->state.arming(lease) == switch_arming::lease_mismatch);

  // A fenced server refuses the heartbeat: a distinct outcome, not an error.
  BOOST_TEST(refresh_ok(c) == heartbeat_outcome::fenced);
}

BOOST_AUTO_TEST_CASE(stale_heartbeat_fences_fresh_one_keeps_writable) {
  ensure_instance(kSingle);
  clean_server(kSingle);
  auto c = admin(kSingle);
  const milliseconds lease = 3s;
  const auto rep = promote_ok(c, lease, 3);
  BOOST_TEST_REQUIRE(rep.writable);
  BOOST_TEST(rep.state.status == event_status::enabled);

  keep_alive_and_check_writable(c, 2 * lease);
  BOOST_TEST(!super_read_only(c));

  const int log_before = unable_to_schedule_lines(kSingle);
  BOOST_TEST_REQUIRE(refresh_ok(c) == heartbeat_outcome::refreshed);
  const auto last_beat = steady_clock::now();
  const double ms = ms_until_fenced(kSingle, last_beat, lease + 10s);
  std::cout << "stale heartbeat (lease " << lease.count() << " ms): fenced after " << ms
            << " ms since the last heartbeat\n";
  BOOST_TEST(ms > 0.0);
  // Not before the lease (the write took < 0.5 s), and generously within lease + 1 s.
  BOOST_TEST(ms >= static_cast<double>(lease.count()) - 500.0);
  BOOST_TEST(ms <= static_cast<double>((lease + 5s).count()));
  std::this_thread::sleep_for(2s);  // later firings on the fenced server
  std::cout << "'Unable to schedule event' lines: before " << log_before << ", after "
            << unable_to_schedule_lines(kSingle) << "\n";
  auto s = state_ok(c);
  BOOST_TEST(s.super_read_only);
  BOOST_TEST(s.read_only);
  BOOST_TEST(s.status == event_status::enabled);
  BOOST_TEST(s.heartbeat_age.has_value());
  BOOST_TEST(s.heartbeat_age.value_or(0us) > std::chrono::microseconds{lease});
}

// Rule 6 applied to rule 7: the sidecar dates its heartbeat at its lease's last renewal. A row
// dated older than the lease fences at once; an older row never overwrites a newer one.
BOOST_AUTO_TEST_CASE(heartbeat_dated_in_the_past_counts_from_that_date) {
  ensure_instance(kSingle);
  clean_server(kSingle);
  auto c = admin(kSingle);
  const milliseconds lease = 3s;
  BOOST_TEST_REQUIRE(promote_ok(c, lease, 3).writable);
  // A fresh heartbeat, then one dated 2 s back: GREATEST keeps the fresh one.
  BOOST_TEST_REQUIRE(refresh_ok(c) == heartbeat_outcome::refreshed);
  auto older = refresh_heartbeat(c, 2s);
  BOOST_TEST_REQUIRE(older.ok());
  auto s = state_ok(c);
  BOOST_TEST_REQUIRE(s.heartbeat_age.has_value());
  BOOST_TEST(s.heartbeat_age->count() < 1'000'000);  // still the fresh one (< 1 s old)
  BOOST_TEST(!s.super_read_only);
  // Let the row age to 2 s, then write one dated 2.5 s back from now: older than the row, so the
  // row keeps its date and the switch fires a lease after the FRESH heartbeat (about 1 s after
  // this write), not a lease after the write (a sidecar cannot stretch the lease).
  std::this_thread::sleep_for(2s);
  auto dated = refresh_heartbeat(c, milliseconds(2500));
  BOOST_TEST_REQUIRE(dated.ok());
  BOOST_TEST_REQUIRE(*dated == heartbeat_outcome::refreshed);
  const auto written = steady_clock::now();
  const double ms = ms_until_fenced(kSingle, written, lease + 5s);
  std::cout << "heartbeat dated 2.5 s back (lease 3 s): fenced " << ms << " ms after the write\n";
  BOOST_TEST(ms > 0.0);
  BOOST_TEST(ms <= 2500.0);  // about 1 s, plus up to 1 s for the event's period; never 3 s
}

BOOST_AUTO_TEST_CASE(fence_unfence_cycles_keep_the_switch_working) {
  ensure_instance(kSingle);
  clean_server(kSingle);
  auto c = admin(kSingle);
  const milliseconds lease = 2s;
  for (int cycle = 1; cycle <= 3; ++cycle) {
    BOOST_TEST_CONTEXT("cycle " << cycle) {
      const auto rep = promote_ok(c, lease, 3);
      BOOST_TEST_REQUIRE(rep.writable);
      BOOST_TEST(is_armed(rep.state.arming(lease)));
      const auto t0 = steady_clock::now();
      const double ms = ms_until_fenced(kSingle, t0, lease + 10s);
      std::cout << "cycle " << cycle << ": fenced after " << ms << " ms (lease "
                << lease.count() << " ms, retries " << rep.retries << ")\n";
      BOOST_TEST(ms > 0.0);
      BOOST_TEST(ms <= static_cast<double>((lease + 5s).count()));
      BOOST_TEST(state_ok(c).status == event_status::enabled);
    }
  }
}

BOOST_AUTO_TEST_CASE(gtid_executed_unchanged_by_switch_heartbeats_and_firing) {
  ensure_instance(kSingle);
  clean_server(kSingle);
  const std::string before = gtid_executed(kSingle);
  // A session WITHOUT disable_session_binlog: the functions must switch the binlog off themselves.
  auto c = open_or_fail(sandbox().options(kSingle, "bloodraven"));
  const milliseconds lease = 2s;
  auto e = ensure_switch(c, lease);
  BOOST_TEST_REQUIRE(e.ok(), (e.ok() ? "" : e.error().to_string()));
  BOOST_TEST(e->changed);
  const auto rep = promote_ok(c, lease, 3);
  BOOST_TEST_REQUIRE(rep.writable);
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST(refresh_ok(c) == heartbeat_outcome::refreshed);
    std::this_thread::sleep_for(500ms);
  }
  BOOST_TEST(ms_until_fenced(kSingle, steady_clock::now(), lease + 10s) > 0.0);
  std::this_thread::sleep_for(2s);  // a few more firings while fenced
  const std::string after = gtid_executed(kSingle);
  std::cout << "gtid_executed before '" << before << "' after '" << after << "'\n";
  BOOST_TEST(after == before);
}

BOOST_AUTO_TEST_CASE(pair_switch_enabled_on_both_and_after_failover) {
  ensure_instance(kSingle);
  ensure_instance(kReplica);
  clean_server(kSingle);
  clean_server(kReplica);
  sandbox().replicate(kReplica, kSingle);  // 9 writable source, 10 fenced replica
  const std::string replica_gtids_before = gtid_executed(kReplica);
  const milliseconds lease = 3s;

  auto src = admin(kSingle);
  auto rep = admin(kReplica);
  auto es = ensure_switch(src, lease);
  BOOST_TEST_REQUIRE(es.ok(), (es.ok() ? "" : es.error().to_string()));
  BOOST_TEST(!es->unfenced_for_ddl);  // the source is writable
  BOOST_TEST(es->state.writable());
  auto er = ensure_switch(rep, lease);
  BOOST_TEST_REQUIRE(er.ok(), (er.ok() ? "" : er.error().to_string()));
  BOOST_TEST(er->unfenced_for_ddl);
  BOOST_TEST(state_ok(src).status == event_status::enabled);
  BOOST_TEST(state_ok(rep).status == event_status::enabled);
  BOOST_TEST(is_armed(state_ok(src).arming(lease)));
  BOOST_TEST(is_armed(state_ok(rep).arming(lease)));
  BOOST_TEST(refresh_ok(src) == heartbeat_outcome::refreshed);
  BOOST_TEST(refresh_ok(rep) == heartbeat_outcome::fenced);

  // Replication is unharmed (nothing of the switch was binlogged on 9) and 10 got no GTIDs of
  // its own: a replicated row arrives, and 10's set grew only by 9's transactions.
  br::test::ensure_marker_table(kSingle);
  const std::string m = br::test::marker("dms");
  auto writer = root(kSingle);  // binlogged, like an application write
  br::test::insert_marker(writer, m);
  BOOST_TEST(br::test::eventually([&] { return br::test::has_marker(rep, m); }, 10s));
  BOOST_TEST(gtid_executed(kReplica) == gtid_executed(kSingle));
  std::cout << "replica gtid_executed before '" << replica_gtids_before << "' now '"
            << gtid_executed(kReplica) << "'\n";

  // Failover: fence 9, detach 10, promote 10 through its switch.
  exec_ok(src, "SET GLOBAL super_read_only = ON");
  exec_ok(rep, "STOP REPLICA");
  exec_ok(rep, "RESET REPLICA ALL");
  const std::string promoted_before = gtid_executed(kReplica);
  const auto p = promote_ok(rep, lease, 3);
  BOOST_TEST_REQUIRE(p.writable);
  BOOST_TEST(p.state.status == event_status::enabled);
  BOOST_TEST(is_armed(p.state.arming(lease)));
  keep_alive_and_check_writable(rep, 2 * lease);
  BOOST_TEST(gtid_executed(kReplica) == promoted_before);
  // And with nobody vouching, the new primary fences itself.
  const double ms = ms_until_fenced(kReplica, steady_clock::now(), lease + 10s);
  std::cout << "new primary without heartbeat: fenced after " << ms << " ms\n";
  BOOST_TEST(ms > 0.0);
}

BOOST_AUTO_TEST_CASE(promotion_racing_the_switch_ends_writable) {
  ensure_instance(kSingle);
  clean_server(kSingle);
  auto c = admin(kSingle);
  const milliseconds lease = 1s;
  auto e = ensure_switch(c, lease);
  BOOST_TEST_REQUIRE(e.ok(), (e.ok() ? "" : e.error().to_string()));
  // Stale heartbeat on a fenced server.
  std::this_thread::sleep_for(lease + 1s);
  BOOST_TEST_REQUIRE(state_ok(c).heartbeat_age.value_or(0us) > std::chrono::microseconds{lease});

  // Forced race: the first attempt waits 2.5 s between super_read_only=OFF and the heartbeat,
  // so the switch (stale heartbeat, 1 s period) fences inside the window; the retry must win.
  const auto forced = promote_ok(c, lease, 5, promote_test_hooks{2500ms});
  std::cout << "forced race: retries " << forced.retries << ", writable " << forced.writable
            << "\n";
  BOOST_TEST(forced.retries >= 1u);
  BOOST_TEST(forced.writable);

  // Natural race: stale again, promote without the pause.
  BOOST_TEST_REQUIRE(ms_until_fenced(kSingle, steady_clock::now(), lease + 10s) > 0.0);
  std::this_thread::sleep_for(lease);
  const auto natural = promote_ok(c, lease, 5);
  std::cout << "natural race: retries " << natural.retries << ", writable " << natural.writable
            << "\n";
  BOOST_TEST(natural.retries >= 0u);
  BOOST_TEST(natural.writable);
  BOOST_TEST(refresh_ok(c) == heartbeat_outcome::refreshed);

  // Without retries the forced race ends fenced (the retry is what made it writable).
  BOOST_TEST_REQUIRE(ms_until_fenced(kSingle, steady_clock::now(), lease + 10s) > 0.0);
  std::this_thread::sleep_for(lease);
  const auto none = promote_ok(c, lease, 0, promote_test_hooks{2500ms});
  BOOST_TEST(none.retries == 0u);
  BOOST_TEST(!none.writable);
}

BOOST_AUTO_TEST_SUITE_END()
