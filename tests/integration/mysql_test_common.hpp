// Shared helpers of the io/mysql integration tests: sandbox topology, connections, markers.
#pragma once

#include <atomic>
#include <boost/test/unit_test.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "io/mysql/commands.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "tests/support/mysql_sandbox.hpp"

namespace br::test {

inline const mysql_sandbox& sandbox() {
  static const mysql_sandbox sb;
  return sb;
}

/// Instances 1 and 2 running, 2 replicating from 1 (1 writable). Idempotent; every case calls it.
inline void ensure_pair() {
  sandbox().up(2);
  sandbox().replicate(2, 1);
}

/// Opens a connection or fails the test case with the error.
inline mysql::connection open_or_fail(const mysql::connect_options& o) {
  auto c = mysql::connection::open(o);
  BOOST_TEST_REQUIRE(c.ok(),
                     "connect " << o.describe() << ": " << (c.ok() ? "" : c.error().to_string()));
  return std::move(c).value();
}

/// The operator account with sql_log_bin=0 for the session (admin statements never make GTIDs).
inline mysql::connection admin(int instance) {
  auto o = sandbox().options(instance, "bloodraven");
  o.disable_session_binlog = true;
  return open_or_fail(o);
}

inline mysql::connection as_user(int instance, const std::string& user) {
  return open_or_fail(sandbox().options(instance, user));
}

/// Runs a statement that must succeed.
inline void exec_ok(mysql::connection& c, const std::string& sql) {
  auto r = c.exec(sql);
  BOOST_TEST_REQUIRE(r.ok(), sql << ": " << (r.ok() ? "" : r.error().to_string()));
}

inline mysql::probe_result probe_ok(mysql::connection& c) {
  auto p = mysql::probe(c, mysql::mysql8());
  BOOST_TEST_REQUIRE(p.ok(), "probe: " << (p.ok() ? "" : p.error().to_string()));
  return std::move(p).value();
}

inline gtid_set gtids_ok(mysql::connection& c) {
  auto g = mysql::read_gtid_executed(c, mysql::mysql8());
  BOOST_TEST_REQUIRE(g.ok(), "gtid_executed: " << (g.ok() ? "" : g.error().to_string()));
  return std::move(g).value();
}

/// A value unique within this test run, usable as a row key.
inline std::string marker(const std::string& prefix) {
  static std::atomic<unsigned> n{0};
  auto t = std::chrono::system_clock::now().time_since_epoch().count();
  return prefix + "-" + std::to_string(t) + "-" + std::to_string(n++);
}

/// The marker table on the source (replicates everywhere). Keys are strings, so rows written on
/// different servers never collide on an auto-increment key.
inline void ensure_marker_table(int source) {
  auto root = as_user(source, "root");
  exec_ok(root,
          "CREATE TABLE IF NOT EXISTS appdb.io_mysql_markers (k VARCHAR(96) PRIMARY KEY, "
          "at TIMESTAMP(6) DEFAULT CURRENT_TIMESTAMP(6))");
}

inline void insert_marker(mysql::connection& c, const std::string& k) {
  exec_ok(c, "INSERT INTO appdb.io_mysql_markers (k) VALUES ('" + k + "')");
}

inline bool has_marker(mysql::connection& c, const std::string& k) {
  auto r = c.query("SELECT COUNT(*) FROM appdb.io_mysql_markers WHERE k = '" + k + "'");
  BOOST_TEST_REQUIRE(r.ok(), (r.ok() ? "" : r.error().to_string()));
  return r->rows.size() == 1 && r->rows[0][0] == std::optional<std::string>("1");
}

inline mysql::wait_outcome wait_ok(int instance, const gtid_set& set, std::chrono::seconds t) {
  auto w =
      mysql::wait_for_executed(sandbox().options(instance, "bloodraven"), mysql::mysql8(), set, t);
  BOOST_TEST_REQUIRE(w.ok(), "wait_for_executed: " << (w.ok() ? "" : w.error().to_string()));
  return w.value();
}

/// Polls `pred` every 50 ms until true or `limit` passes; returns the last value.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (true) {
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
}

inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace br::test
