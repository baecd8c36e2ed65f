// The dashboard in headless Chromium against bloodraven --standalone on real MySQL 9.7 (sandbox
// instances 14 = primary and 15 = replica only): both sites, failover after kill -9, disconnected.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include <sys/wait.h>

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

constexpr int primary = 14;
constexpr int replica = 15;

br::test::mysql_sandbox& sandbox() {
  static br::test::mysql_sandbox s;
  return s;
}

std::string site_of(int i) { return "s" + std::to_string(i); }

struct temp_dir : br::test::temp_dir {
  temp_dir() : br::test::temp_dir("br-dashboard") {}
};

/// `promtool check metrics` on `text`: exit code and output.
std::pair<int, std::string> promtool_check(const std::string& text, const std::filesystem::path& dir) {
  auto file = (dir / "metrics.txt").string();
  std::ofstream(file) << text;
  std::string out;
  FILE* f = popen(("promtool check metrics < " + file + " 2>&1").c_str(), "r");
  if (!f) return {-1, "popen failed"};
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, f)) out.append(buf, n);
  int rc = pclose(f);
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, out};
}

bool eventually(const std::function<bool()>& probe, std::chrono::seconds deadline) {
  return br::test::eventually(probe, deadline, 300ms);
}

struct sandbox_fixture {
  sandbox_fixture() {
    sandbox().must({"up-ids", std::to_string(primary), std::to_string(replica)});
    for (int i : {primary, replica}) sandbox().reset(i);
    sandbox().replicate(replica, primary);
  }
  ~sandbox_fixture() {
    for (int i : {primary, replica}) {
      auto r = sandbox().run({"stop", std::to_string(i)});
      if (r.exit_code != 0) BOOST_TEST_MESSAGE("stop " << i << ": " << r.err);
    }
  }
};

std::string group_yaml() {
  std::string y =
      "apiVersion: shipstream.io/v1alpha1\n"
      "kind: MysqlFailoverGroup\n"
      "metadata: {name: orders, namespace: shop}\n"
      "spec:\n"
      "  pollInterval: 300ms\n"
      "  promotionPolicy: Fast\n"
      "  replication: {user: repl, password: replpw}\n"
      "  sites:\n";
  for (int i : {primary, replica})
    y += "    - {name: " + site_of(i) + ", address: {host: 127.0.0.1, port: " +
         std::to_string(sandbox().port(i)) + "}}\n";
  return y;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dashboard)

BOOST_FIXTURE_TEST_CASE(shows_sites_failover_and_disconnected, sandbox_fixture) {
  temp_dir dir;
  auto file = (dir.path / "group.yaml").string();
  std::ofstream(file) << group_yaml();
  auto op = std::make_unique<child_process>(
      binary_path("bloodraven"),
      std::vector<std::string>{"--standalone", file, "--listen", "127.0.0.1:0", "--metrics-listen", "",
                               "--state-dir", (dir.path / "state").string(), "--mysql-user",
                               "bloodraven"},
      std::map<std::string, std::string>{{"BLOODRAVEN_MYSQL_PASSWORD", "bloodravenpw"}});
  auto line = op->wait_for_line("http server listening", 30s);
  BOOST_TEST_REQUIRE(line.has_value(), op->output());
  int port = br::test::listening_port(*line);
  BOOST_TEST_REQUIRE(port > 0);
  std::string base = "http://127.0.0.1:" + std::to_string(port);
  br::http::client c;
  auto active_site = [&] {
    auto r = c.get(base + "/active-site?namespace=shop&group=orders");
    auto j = json::parse(r.body, nullptr, false);
    return r.status == 200 && j.is_object() ? j.value("activeSite", "") : std::string{};
  };
  BOOST_TEST_REQUIRE(eventually([&] { return active_site() == site_of(primary); }, 120s),
                     op->output());

  const char* src = std::getenv("BR_SOURCE_DIR");
  const char* bin = std::getenv("BR_BINARY_DIR");
  BOOST_TEST_REQUIRE(src != nullptr);
  BOOST_TEST_REQUIRE(bin != nullptr);
  auto out_dir = std::string(bin) + "/tests/browser";
  std::filesystem::create_directories(out_dir);
  child_process browser("/usr/bin/node",
                        {"--experimental-websocket", std::string(src) + "/tests/browser/dashboard_cdp.mjs",
                         "/usr/bin/chromium", base + "/", out_dir, (dir.path / "chromium").string(),
                         site_of(primary), site_of(replica)});
  // Chromium runs in its own process group (started by the script); whatever happens to the
  // script, that group is killed by its PID when this test ends.
  struct group_killer {
    child_process& script;
    ~group_killer() {
      const auto& out = script.output();
      auto at = out.find("BROWSER_PID ");
      if (at == std::string::npos) return;
      int pid = std::atoi(out.c_str() + at + 12);
      if (pid > 1) ::kill(-pid, SIGKILL);
    }
  } killer{browser};
  BOOST_TEST_REQUIRE(browser.wait_for_line("BROWSER_PID", 60s).has_value(), browser.output());

  // Phase 1: the page shows both sites and the active one.
  auto sites = browser.wait_for_line("PHASE sites", 240s);
  BOOST_TEST_REQUIRE(sites.has_value(), browser.output() + "\noperator:\n" + op->output());

  // Phase 2: kill -9 the primary's mysqld; the operator fails over (policy Fast), the page follows.
  sandbox().kill9(primary);
  auto failover = browser.wait_for_line("PHASE failover", 240s);
  BOOST_TEST_REQUIRE(failover.has_value(), browser.output() + "\noperator:\n" + op->output());
  // What the page shows is what the API says (independent check).
  BOOST_TEST(active_site() == site_of(replica));
  auto shown = json::parse(failover->substr(failover->find('{')), nullptr, false);
  BOOST_TEST(shown.value("active", "") == site_of(replica), *failover);
  auto view = json::parse(c.get(base + "/active-site?namespace=shop&group=orders").body, nullptr, false);
  BOOST_TEST(shown.value("epoch", 0) <= view.value("epoch", 0), *failover);

  // The real operator's /metrics with the failover and status metrics present passes promtool.
  auto metrics = c.get(base + "/metrics").body;
  for (const char* want :
       {R"(bloodraven_failovers_total{group="orders",namespace="shop",target_site="s15"} 1)",
        R"(bloodraven_replication_lag_seconds{group="orders",namespace="shop",role="primary-candidate",site="s14"})",
        "bloodraven_websocket_connected_clients 1", R"(bloodraven_site_state{group="orders")",
        R"(handler="active_site")"})
    BOOST_TEST(metrics.find(want) != std::string::npos, want);
  auto [prc, pout] = promtool_check(metrics, dir.path);
  BOOST_TEST(prc == 0, pout);

  // Phase 3: stop the operator; the page says "disconnected".
  op->signal(SIGTERM);
  auto rc = op->wait_exit(30s);
  BOOST_TEST(rc.has_value());
  auto disc = browser.wait_for_line("PHASE disconnected", 120s);
  BOOST_TEST_REQUIRE(disc.has_value(), browser.output());
  auto code = browser.wait_exit(60s);
  BOOST_TEST(code.has_value());
  if (code) BOOST_TEST(*code == 0, browser.output());
  auto shot = out_dir + "/dashboard.png";
  BOOST_TEST(std::filesystem::exists(shot));
  if (std::filesystem::exists(shot)) BOOST_TEST(std::filesystem::file_size(shot) > 10000u);
  BOOST_TEST_MESSAGE("screenshots in " << out_dir << "\n" << browser.output());
}

BOOST_AUTO_TEST_SUITE_END()
