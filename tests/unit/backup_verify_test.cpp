// Backup verification's parts: the pure checks (newest complete backup, restored gtid_executed
// against the backup and the replay, the sanity query's rows and duration), the scratch server's
// arguments and init file, the passwd lookup, and child_group with real processes: a child that
// ignores SIGTERM is SIGKILLed at the deadline together with its process group (grandchild
// included), one that honours it stops at once, and an exit is seen.
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "io/backup/child_group.hpp"
#include "io/backup/verify.hpp"

using namespace br;
using namespace br::backup;
using namespace std::chrono_literals;

namespace {

const std::string A = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
gtid_set gs(const std::string& t) { return *gtid_set::parse(t); }

listed_backup listed(const std::string& name, const std::string& completed) {
  listed_backup b;
  b.name = name;
  if (completed.empty()) {
    b.error = "backup.json: unreadable";
    return b;
  }
  b.info = backup_info{};
  b.info->name = name;
  b.info->completion_time = completed;
  return b;
}

bool has(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

/// Running (a zombie waiting for its reaper does not count: it has been killed).
bool alive(pid_t p) {
  if (::kill(p, 0) != 0) return false;
  std::ifstream f("/proc/" + std::to_string(p) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(f)), {});
  auto close = stat.rfind(')');
  return close == std::string::npos || close + 2 >= stat.size() || stat[close + 2] != 'Z';
}

}  // namespace

BOOST_AUTO_TEST_SUITE(backup_verify)

BOOST_AUTO_TEST_CASE(newest_complete_backup) {
  BOOST_TEST(!newest_complete({}).has_value());
  BOOST_TEST(!newest_complete({listed("x", "")}).has_value());
  BOOST_TEST(*newest_complete({listed("b", "2026-11-26T10:00:00Z"), listed("a", "2026-11-26T11:00:00Z"),
                               listed("c", "")}) == "a");
  // Same completion second: the later name.
  BOOST_TEST(*newest_complete({listed("g-1", "2026-11-26T10:00:00Z"), listed("g-2", "2026-11-26T10:00:00Z")}) == "g-2");
}

BOOST_AUTO_TEST_CASE(restored_gtids_table) {
  using K = stop_bound::kind;
  struct row {
    std::string what;
    K bound;
    std::string restored;
    std::string error_part;  // "" = accepted
  };
  const std::string backup = A + ":1-10", covered = A + ":1-30";
  std::vector<row> rows = {
      {"no replay: equal to the backup", K::none, A + ":1-10", ""},
      {"no replay: a transaction missing", K::none, A + ":1-9", "the backup holds " + A + ":1-10"},
      {"no replay: one more than the backup", K::none, A + ":1-11", "after the restore is " + A + ":1-11"},
      {"no replay: empty", K::none, "", "is (empty)"},
      {"latest: equal to the archive", K::latest, A + ":1-30", ""},
      {"latest: short of the archive", K::latest, A + ":1-29", "archived binlogs hold " + A + ":1-30"},
      {"datetime: between", K::datetime, A + ":1-17", ""},
      {"datetime: at the backup", K::datetime, A + ":1-10", ""},
      {"datetime: less than the backup", K::datetime, A + ":1-5", "not between"},
      {"datetime: beyond the archive", K::datetime, A + ":1-31", "not between"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto e = check_restored_gtids(r.bound, gs(backup), gs(covered), gs(r.restored));
      if (r.error_part.empty()) BOOST_TEST(e == "");
      else BOOST_TEST(e.find(r.error_part) != std::string::npos, e);
    }
  }
}

BOOST_AUTO_TEST_CASE(sanity_table) {
  BOOST_TEST(check_sanity({5, 10ms}, 5, 1s) == "");
  BOOST_TEST(check_sanity({4, 10ms}, 5, 1s).find("returned 4 row(s), expected at least 5") != std::string::npos);
  BOOST_TEST(check_sanity({0, 10ms}, 0, 1s) == "");
  BOOST_TEST(check_sanity({5, 1001ms}, 5, 1s).find("took 1001 ms, more than the 1000 ms") != std::string::npos);
  BOOST_TEST(check_sanity({5, 1000ms}, 5, 1s) == "");
  BOOST_TEST(check_sanity({5, 99s}, 5, 0ms) == "");  // 0: no limit
}

BOOST_AUTO_TEST_CASE(scratch_server_arguments) {
  ephemeral_options o;
  o.buffer_pool_size = "64M";
  auto init = ephemeral_init_args("/tmp/d", "mysql", o);
  BOOST_TEST(init[0] == "--no-defaults");  // no option file of the host or chroot changes it
  BOOST_TEST(has(init, "--initialize-insecure"));
  BOOST_TEST(has(init, "--user=mysql"));
  BOOST_TEST(has(init, "--datadir=/tmp/d/data"));
  BOOST_TEST(has(init, "--init-file=/tmp/d/init.sql"));
  auto run = ephemeral_run_args("/tmp/d", "", 40123, o);
  BOOST_TEST(run[0] == "--no-defaults");
  BOOST_TEST(std::none_of(run.begin(), run.end(), [](const std::string& a) { return a.rfind("--user", 0) == 0; }));
  for (const char* want : {"--port=40123", "--bind-address=127.0.0.1", "--gtid-mode=ON", "--enforce-gtid-consistency=ON",
                           "--disable-log-bin", "--skip-replica-start", "--socket=/tmp/d/mysqld.sock",
                           "--innodb-buffer-pool-size=64M", "--log-error=/tmp/d/error.log"})
    BOOST_TEST(has(run, want), want);
  auto sql = ephemeral_init_sql("bloodraven_verify", "00ff");
  BOOST_TEST(sql.find("SET SESSION sql_log_bin = 0;") == 0u);  // no GTID of its own
  BOOST_TEST(sql.find("'bloodraven_verify'@'127.0.0.1' IDENTIFIED BY '00ff'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(passwd_lookup) {
  const std::string text = "root:x:0:0:root:/root:/bin/bash\nmysql:x:101:102::/nonexistent:/bin/false\nbad:x:1a:2:\n";
  auto m = passwd_ids(text, "mysql");
  BOOST_TEST_REQUIRE(m.has_value());
  BOOST_TEST(m->first == 101u);
  BOOST_TEST(m->second == 102u);
  BOOST_TEST(!passwd_ids(text, "nobody").has_value());
  BOOST_TEST(!passwd_ids(text, "bad").has_value());
  BOOST_TEST(!passwd_ids(text, "mysq").has_value());
}

BOOST_AUTO_TEST_CASE(child_ignoring_sigterm_is_killed_with_its_group) {
  namespace fs = std::filesystem;
  auto out = fs::temp_directory_path() / ("br-child-group-" + std::to_string(::getpid()));
  fs::remove(out);
  child_group g;
  // The shell ignores SIGTERM and starts a grandchild (sleep) that records its pid.
  BOOST_TEST_REQUIRE(g.start({{"sh", "-c", "trap '' TERM; sleep 600 & echo $! ; wait"}}, {"PATH=/usr/bin:/bin"},
                             out.string()) == "");
  pid_t grandchild = 0;
  for (int i = 0; i < 200 && grandchild == 0; ++i) {
    std::ifstream f(out);
    f >> grandchild;
    if (grandchild == 0) std::this_thread::sleep_for(10ms);
  }
  BOOST_TEST_REQUIRE(grandchild > 0);
  BOOST_TEST(!g.poll_exit().has_value());
  const pid_t leader = g.pid();
  auto r = g.stop(300ms);
  BOOST_TEST(r.was_running);
  BOOST_TEST(r.killed);
  BOOST_TEST(r.reaped);
  BOOST_TEST(!alive(leader));
  for (int i = 0; i < 100 && alive(grandchild); ++i) std::this_thread::sleep_for(10ms);
  BOOST_TEST(!alive(grandchild));  // killed with the group (reaped by init)
  BOOST_TEST(!g.started());
  auto again = g.stop(300ms);  // idempotent
  BOOST_TEST(!again.was_running);
  fs::remove(out);
}

BOOST_AUTO_TEST_CASE(child_honouring_sigterm_stops_without_kill) {
  child_group g;
  BOOST_TEST_REQUIRE(g.start({{"sleep", "600"}}, {"PATH=/usr/bin:/bin"}, "") == "");
  auto r = g.stop(10s);
  BOOST_TEST(r.was_running);
  BOOST_TEST(!r.killed);
  BOOST_TEST(r.took < 10s);
}

BOOST_AUTO_TEST_CASE(child_exit_is_seen_and_missing_executable_refused) {
  child_group g;
  BOOST_TEST_REQUIRE(g.start({{"sh", "-c", "exit 7"}}, {"PATH=/usr/bin:/bin"}, "") == "");
  std::optional<int> code;
  for (int i = 0; i < 500 && !code; ++i) {
    code = g.poll_exit();
    if (!code) std::this_thread::sleep_for(10ms);
  }
  BOOST_TEST(code.value_or(-1) == 7);
  BOOST_TEST(!g.stop(1s).was_running);
  child_group missing;
  BOOST_TEST(missing.start({{"no-such-tool-here"}}, {}, "").find("executable not found") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(destructor_stops_the_group) {
  pid_t pid = 0;
  {
    child_group g;
    BOOST_TEST_REQUIRE(g.start({{"sleep", "600"}}, {"PATH=/usr/bin:/bin"}, "") == "");
    pid = g.pid();
    BOOST_TEST(alive(pid));
  }
  BOOST_TEST(!alive(pid));
}

BOOST_AUTO_TEST_SUITE_END()
