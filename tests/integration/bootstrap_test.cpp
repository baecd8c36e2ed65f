// bloodraven --standalone against freshly initialised sandbox servers 71-73 (issue 19, acceptance
// 2): the group comes up by itself (seed promoted, the others cloned and replicating) with no test
// code touching replication; a site holding transactions the seed lacks is never cloned; an
// operator killed in the middle of a CLONE does not clone twice. Timings per phase are printed
// (BOOST_TEST_MESSAGE; run with --log_level=message), never asserted.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "io/http/client.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/mysql_sandbox.hpp"

using namespace std::chrono_literals;
using br::test::binary_path;
using br::test::child_process;
using nlohmann::json;

namespace {

const std::vector<int> ids = {71, 72, 73};

br::test::mysql_sandbox& sandbox() {
  static br::test::mysql_sandbox s;
  return s;
}

std::string site_of(int i) { return "s" + std::to_string(i); }

struct temp_dir : br::test::temp_dir {
  temp_dir() : br::test::temp_dir("br-bootstrap") {}
};

std::string group_yaml() {
  std::string y =
      "apiVersion: shipstream.io/v1alpha1\n"
      "kind: MysqlFailoverGroup\n"
      "metadata: {name: orders, namespace: shop}\n"
      "spec:\n"
      "  pollInterval: 300ms\n"
      "  cloneTimeout: 300\n"
      "  bootstrap: {seedSite: s71}\n"
      "  replication: {user: repl, password: replpw}\n"
      "  sites:\n";
  for (int i : ids)
    y += "    - {name: " + site_of(i) + ", address: {host: 127.0.0.1, port: " +
         std::to_string(sandbox().port(i)) + "}}\n";
  return y;
}

/// Fresh servers (mysql-sandbox reset: initialised, accounts created with sql_log_bin=0, booted
/// fenced, no channel).
struct fresh_servers {
  fresh_servers() {
    sandbox().must({"up-ids", "71", "72", "73"});
    for (int i : ids) sandbox().reset(i);
  }
  ~fresh_servers() {
    for (int i : ids) {
      auto r = sandbox().run({"stop", std::to_string(i)});
      if (r.exit_code != 0) BOOST_TEST_MESSAGE("stop " << i << ": " << r.err);
    }
  }
};

/// Application rows written on a still-fenced server before the operator starts (as root, the
/// fence lifted only for these statements): the data the user cares about.
void rows_on(int i, const std::string& table, int n) {
  std::string sql = "SET GLOBAL super_read_only=OFF; CREATE TABLE appdb." + table +
                    " (id INT PRIMARY KEY, v VARCHAR(20));";
  for (int k = 1; k <= n; ++k)
    sql += "INSERT INTO appdb." + table + " VALUES (" + std::to_string(k) + ", 'row" +
           std::to_string(k) + "');";
  sql += "SET GLOBAL super_read_only=ON;";
  sandbox().sql(i, sql);
}

std::string q(int i, const std::string& sql) { return sandbox().sql(i, sql); }

struct operator_process {
  temp_dir& dir;
  std::string file;
  std::unique_ptr<child_process> p;
  std::string base;

  operator_process(temp_dir& d) : dir(d), file(d.write("group.yaml", group_yaml())) { start(); }

  void start() {
    p = std::make_unique<child_process>(
        binary_path("bloodraven"),
        std::vector<std::string>{"--standalone", file, "--listen", "127.0.0.1:0",
                                 "--metrics-listen", "", "--state-dir",
                                 (dir.path / "state").string(), "--mysql-user", "bloodraven"},
        std::map<std::string, std::string>{{"BLOODRAVEN_MYSQL_PASSWORD", "bloodravenpw"}});
    auto line = p->wait_for_line("http server listening", 30s);
    BOOST_TEST_REQUIRE(line.has_value(), p->output());
    int port = br::test::listening_port(*line);
    BOOST_TEST_REQUIRE(port > 0);
    base = "http://127.0.0.1:" + std::to_string(port);
  }

  /// The group's status entry (after draining the operator's log pipe).
  json status() {
    (void)p->wait_for_line("\x01never\x01", 1ms);
    br::http::client c;
    auto r = c.get(base + "/status");
    if (r.status != 200) return json();
    auto j = json::parse(r.body, nullptr, false);
    return j.is_object() && j.contains("shop/orders") ? j["shop/orders"] : json();
  }

  /// status.bootstrap, or an empty object.
  json bootstrap() {
    auto s = status();
    return s.is_object() && s.contains("bootstrap") && s["bootstrap"].is_object() ? s["bootstrap"]
                                                                                 : json::object();
  }

  std::string site_phase(const std::string& site) {
    auto b = bootstrap();
    for (const auto& s : b.value("sites", json::array()))
      if (s.value("name", "") == site) return s.value("phase", "");
    return "";
  }

  bool wait_done(std::chrono::seconds deadline) {
    return br::test::eventually([&] { return bootstrap().value("phase", "") == "Done"; },
                                deadline, 300ms);
  }
};

bool replicating_from(int replica, int source) {
  auto out = q(replica,
               "SELECT c.PORT, s.SERVICE_STATE, a.SERVICE_STATE FROM "
               "performance_schema.replication_connection_configuration c JOIN "
               "performance_schema.replication_connection_status s USING (CHANNEL_NAME) JOIN "
               "performance_schema.replication_applier_status a USING (CHANNEL_NAME)");
  return out == std::to_string(sandbox().port(source)) + "\tON\tON";
}

/// Prints the phases of status.bootstrap with their durations (timings, not assertions).
void print_timings(const json& b, const std::string& label) {
  BOOST_TEST_MESSAGE(label << ": " << b.dump());
}

}  // namespace

BOOST_AUTO_TEST_SUITE(bootstrap)

BOOST_FIXTURE_TEST_CASE(fresh_servers_become_a_replicating_group, fresh_servers) {
  rows_on(71, "boot", 200);
  temp_dir dir;
  auto t0 = std::chrono::steady_clock::now();
  operator_process op(dir);
  bool done = op.wait_done(300s);
  auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  BOOST_TEST_REQUIRE(done, "bootstrap: " + op.bootstrap().dump() + "\n" + op.p->output());
  auto b = op.bootstrap();
  print_timings(b, "bootstrap from operator start to Done in " + std::to_string(took) + " s");
  BOOST_TEST(b.value("source", "") == "fresh-deploy");
  BOOST_TEST(b.value("seedSite", "") == "s71");
  auto st = op.status();
  BOOST_TEST_REQUIRE(st.is_object());
  BOOST_TEST(st.value("activeSite", "") == "s71", st.dump());
  // The seed is writable, the others fenced and replicating from it with its rows.
  BOOST_TEST(q(71, "SELECT @@read_only, @@super_read_only") == "0\t0");
  for (int i : {72, 73}) {
    BOOST_TEST(q(i, "SELECT @@read_only, @@super_read_only") == "1\t1");
    BOOST_TEST(replicating_from(i, 71), "replica " << i);
    BOOST_TEST(q(i, "SELECT COUNT(*) FROM appdb.boot") == "200");
    BOOST_TEST(q(i, "SELECT STATE FROM performance_schema.clone_status") == "Completed");
  }
  // New writes on the seed reach both replicas.
  q(71, "INSERT INTO appdb.boot VALUES (1001, 'after')");
  for (int i : {72, 73})
    BOOST_TEST(br::test::eventually(
        [&] { return q(i, "SELECT COUNT(*) FROM appdb.boot WHERE id = 1001") == "1"; }, 60s,
        200ms));
  op.p->signal(SIGTERM);
  auto rc = op.p->wait_exit(60s);
  BOOST_TEST_REQUIRE(rc.has_value(), op.p->output());
  BOOST_TEST(*rc == 0);
}

BOOST_FIXTURE_TEST_CASE(a_divergent_site_is_blocked_and_never_cloned, fresh_servers) {
  rows_on(71, "boot", 50);
  rows_on(73, "mine", 3);  // transactions of 73's own server_uuid the seed lacks
  auto uuid73 = q(73, "SELECT @@server_uuid");
  temp_dir dir;
  operator_process op(dir);
  BOOST_TEST_REQUIRE(op.wait_done(300s), op.bootstrap().dump() + "\n" + op.p->output());
  BOOST_TEST(op.site_phase("s73") == "Blocked", op.bootstrap().dump());
  BOOST_TEST(op.site_phase("s72") == "Done");
  // 73 was never cloned and keeps its data, fenced, without a channel.
  BOOST_TEST(q(73, "SELECT COUNT(*) FROM performance_schema.clone_status") == "0");
  BOOST_TEST(q(73, "SELECT COUNT(*) FROM appdb.mine") == "3");
  BOOST_TEST(q(73, "SELECT @@super_read_only") == "1");
  BOOST_TEST(q(73, "SELECT COUNT(*) FROM performance_schema.replication_connection_configuration") ==
             "0");
  BOOST_TEST(q(73, "SELECT GTID_SUBSET(@@gtid_executed, '') = 0") == "1");
  auto st = op.status();
  BOOST_TEST_REQUIRE(st.is_object());
  bool blocked = false;
  for (const auto& s : st.value("sites", json::array()))
    if (s.value("name", "") == "s73")
      blocked = s.value("recoveryState", "") == "RecoveryBlocked" &&
                s.value("divergentGtid", "").find(uuid73) != std::string::npos;
  BOOST_TEST(blocked, st.dump());
  BOOST_TEST(replicating_from(72, 71));
}

BOOST_FIXTURE_TEST_CASE(an_operator_killed_during_a_clone_does_not_clone_twice, fresh_servers) {
  // Enough rows that the CLONE takes a moment to catch in flight.
  rows_on(71, "boot", 20);
  sandbox().sql(71, "SET GLOBAL super_read_only=OFF; CREATE TABLE appdb.pad (id INT AUTO_INCREMENT "
                    "PRIMARY KEY, v LONGBLOB); INSERT INTO appdb.pad (v) VALUES (REPEAT('x', "
                    "4000000)),(REPEAT('y', 4000000)),(REPEAT('z', 4000000)),(REPEAT('w', "
                    "4000000)); SET GLOBAL super_read_only=ON;");
  temp_dir dir;
  auto op = std::make_unique<operator_process>(dir);
  // Kill the operator while s72's CLONE runs (its status says Cloning and the server reports a
  // clone in progress, or has just restarted from one).
  bool caught = br::test::eventually(
      [&] {
        if (op->site_phase("s72") != "Cloning") return false;
        auto r = sandbox().run({"sql", "72", "SELECT STATE FROM performance_schema.clone_status"});
        return r.exit_code != 0 || r.out == "In Progress";
      },
      240s, 50ms);
  BOOST_TEST_REQUIRE(caught, op->bootstrap().dump() + "\n" + op->p->output());
  op->p->signal(SIGKILL);
  (void)op->p->wait_exit(30s);
  auto killed_output = op->p->output();
  op->start();  // same state directory: resumes the persisted plan
  BOOST_TEST_REQUIRE(op->wait_done(300s), op->bootstrap().dump() + "\n" + op->p->output());
  auto all = killed_output + op->p->output();
  // One CLONE of s72 in both runs together (the operator's own log line per CLONE statement).
  size_t clones = 0;
  for (size_t at = all.find("cloning from the active site"); at != std::string::npos;
       at = all.find("cloning from the active site", at + 1)) {
    auto line_end = all.find('\n', at);
    auto line_start = all.rfind('\n', at);
    auto line = all.substr(line_start + 1, line_end - line_start);
    if (line.find("\"s72\"") != std::string::npos) ++clones;
  }
  BOOST_TEST(clones == 1u, all);
  BOOST_TEST(q(72, "SELECT STATE FROM performance_schema.clone_status") == "Completed");
  BOOST_TEST(replicating_from(72, 71));
  BOOST_TEST(replicating_from(73, 71));
  BOOST_TEST(q(72, "SELECT COUNT(*) FROM appdb.boot") == "20");
}

BOOST_AUTO_TEST_SUITE_END()
