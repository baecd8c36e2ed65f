// The tool pipeline runner with real processes: data through stdin -> cmd -> cmd -> stdout, exit
// codes and bounded stderr in the description, the deadline killing the whole process group
// (grandchildren included), an output callback aborting, and a missing executable.
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <thread>
#include <unistd.h>

#include "io/backup/pipeline.hpp"

using namespace br::backup;
using namespace std::chrono_literals;

BOOST_AUTO_TEST_SUITE(backup_pipeline)

BOOST_AUTO_TEST_CASE(data_flows_through_two_commands) {
  std::string input(300000, 'x');
  input += "\nend\n";
  size_t off = 0;
  std::string got;
  pipeline_options o;
  o.input = [&](char* buf, size_t cap) {
    size_t n = std::min(cap, input.size() - off);
    std::copy_n(input.data() + off, n, buf);
    off += n;
    return static_cast<long>(n);
  };
  o.output = [&](std::string_view s) {
    got.append(s);
    return true;
  };
  o.deadline = 20s;
  o.env = {"PATH=/usr/bin:/bin"};
  auto r = run_pipeline({{{"cat"}}, {{"tr", "x", "y"}}}, o);
  BOOST_TEST(r.ok(), r.error);
  BOOST_TEST(got.size() == input.size());
  BOOST_TEST(got.substr(0, 3) == "yyy");
  BOOST_TEST((r.exit_codes == std::vector<int>{0, 0}));
}

BOOST_AUTO_TEST_CASE(failure_reports_exit_code_and_stderr_tail) {
  pipeline_options o;
  o.deadline = 20s;
  o.stderr_keep = 32;
  std::vector<command> cmds = {
      {{"sh", "-c", "echo firstline-should-be-cut-away-by-the-bound >&2; echo 'ERROR 1064 at line 3' >&2; exit 3"}}};
  auto r = run_pipeline(cmds, o);
  BOOST_TEST(!r.ok());
  BOOST_TEST(r.exit_codes[0] == 3);
  BOOST_TEST(r.stderr_tails[0].size() <= 32u);
  auto d = r.describe(cmds);
  BOOST_TEST(d.find("sh exit 3: ") != std::string::npos, d);
  BOOST_TEST(d.find("ERROR 1064 at line 3") != std::string::npos, d);
  BOOST_TEST(d.find("firstline") == std::string::npos, d);
}

BOOST_AUTO_TEST_CASE(deadline_kills_the_group_with_grandchildren) {
  pipeline_options o;
  o.deadline = 1s;
  const std::string pidfile = "/tmp/br-unit-backup-grandchild." + std::to_string(::getpid());
  auto started = std::chrono::steady_clock::now();
  // The grandchild holds no pipe of ours (redirected), so only the group kill can end it.
  auto r = run_pipeline({{{"sh", "-c", "sleep 60 </dev/null >/dev/null 2>&1 & echo $! > " + pidfile + "; sleep 60"}}}, o);
  auto took = std::chrono::steady_clock::now() - started;
  BOOST_TEST(r.timed_out);
  BOOST_TEST(r.error.find("deadline") != std::string::npos, r.error);
  BOOST_TEST(r.exit_codes[0] == 128 + SIGKILL);
  BOOST_TEST(took < 10s);
  std::ifstream f(pidfile);
  pid_t grandchild = 0;
  f >> grandchild;
  std::remove(pidfile.c_str());
  BOOST_REQUIRE(grandchild > 0);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {  // killed; reaped by init shortly after
    gone = ::kill(grandchild, 0) != 0;
    if (!gone) {
      std::ifstream st("/proc/" + std::to_string(grandchild) + "/stat");
      std::string pid, comm, state;
      st >> pid >> comm >> state;
      gone = state == "Z";
    }
    if (!gone) std::this_thread::sleep_for(20ms);
  }
  BOOST_TEST(gone);
}

BOOST_AUTO_TEST_CASE(output_callback_aborts) {
  pipeline_options o;
  o.deadline = 20s;
  o.output = [](std::string_view) { return false; };
  auto r = run_pipeline({{{"sh", "-c", "while :; do echo data; done"}}}, o);
  BOOST_TEST(r.error == "output failed");
  BOOST_TEST(!r.timed_out);
}

BOOST_AUTO_TEST_CASE(missing_executable) {
  pipeline_options o;
  auto r = run_pipeline({{{"/nonexistent/mysqldump"}}}, o);
  BOOST_TEST(r.error.find("executable not found") != std::string::npos, r.error);
}

BOOST_AUTO_TEST_SUITE_END()
