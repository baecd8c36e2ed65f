// Both binaries as real processes: flags/env errors, health/metrics/inspection endpoints, the
// liveness listener under a connection flood, SIGTERM.
#include <boost/test/unit_test.hpp>
#include <filesystem>

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "io/http/client.hpp"
#include "tests/support/child_process.hpp"

using namespace std::chrono_literals;
using br::test::binary_path;
using br::test::child_process;

namespace {

struct running {
  std::unique_ptr<child_process> proc;
  int port = 0;
  std::string base() const { return "http://127.0.0.1:" + std::to_string(port); }
};

running start(const std::string& binary, std::vector<std::string> args,
              std::map<std::string, std::string> env = {}) {
  running r;
  if (binary == "bloodraven" && !env.count("KUBECONFIG")) {
    // Kubernetes mode needs an API configuration: a kubeconfig naming an API server nobody
    // serves (the runtime must start and stop without one answering), election off.
    static const std::string kc = [] {
      auto p = std::filesystem::temp_directory_path() / "br-process-test-kubeconfig.yaml";
      std::ofstream(p) << "apiVersion: v1\nkind: Config\ncurrent-context: t\n"
                          "clusters: [{name: t, cluster: {server: \"http://127.0.0.1:1\"}}]\n"
                          "users: [{name: t, user: {token: x}}]\n"
                          "contexts: [{name: t, context: {cluster: t, user: t}}]\n";
      return p.string();
    }();
    env["KUBECONFIG"] = kc;
    if (!env.count("BLOODRAVEN_LEADER_ELECT")) env["BLOODRAVEN_LEADER_ELECT"] = "false";
  }
  r.proc = std::make_unique<child_process>(binary_path(binary), std::move(args), std::move(env));
  auto line = r.proc->wait_for_line("http server listening", 20s);
  BOOST_REQUIRE_MESSAGE(line, "no listening line; output:\n" + r.proc->output());
  r.port = br::test::listening_port(*line);
  BOOST_REQUIRE(r.port > 0);
  BOOST_REQUIRE_MESSAGE(r.proc->wait_for_line("\"msg\":\"ready\"", 20s), r.proc->output());
  return r;
}

std::vector<std::string> operator_args() {
  return {"--listen", "127.0.0.1:0", "--metrics-listen", ""};
}

std::vector<std::string> sidecar_args() { return {"--listen", "127.0.0.1:0"}; }

/// A TCP connection to 127.0.0.1:`port` from the loopback address `from` (all of 127/8 is
/// loopback on Linux, so each address is another client); fd -1 when it could not connect.
struct loopback_conn {
  int fd = -1;
  loopback_conn(const std::string& from, int port) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in src{}, dst{};
    src.sin_family = dst.sin_family = AF_INET;
    dst.sin_port = htons(static_cast<uint16_t>(port));
    dst.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::inet_pton(AF_INET, from.c_str(), &src.sin_addr) != 1 ||
        ::bind(fd, reinterpret_cast<sockaddr*>(&src), sizeof src) != 0 ||
        ::connect(fd, reinterpret_cast<sockaddr*>(&dst), sizeof dst) != 0) {
      if (fd >= 0) ::close(fd);
      fd = -1;
    }
  }
  ~loopback_conn() {
    if (fd >= 0) ::close(fd);
  }
};

template <class Pred>
bool eventually(Pred p) {
  for (auto deadline = std::chrono::steady_clock::now() + 20s;
       std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(100ms))
    if (p()) return true;
  return false;
}

/// The port of the "http server listening" line of the server named `name` (0 when absent).
int server_port(const std::string& output, const std::string& name) {
  std::istringstream lines(output);
  for (std::string l; std::getline(lines, l);)
    if (l.find("http server listening") != std::string::npos &&
        l.find("\"server\":\"" + name + "\"") != std::string::npos)
      return br::test::listening_port(l);
  return 0;
}

struct exit_case {
  std::string binary;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
  std::string must_name;  // the flag or variable the message must name
};

}  // namespace

BOOST_AUTO_TEST_SUITE(process)

BOOST_AUTO_TEST_CASE(bad_flags_and_environment_exit_2_naming_the_culprit) {
  std::vector<exit_case> cases = {
      {"bloodraven", {"--shutdown-timeout", "5x"}, {}, "--shutdown-timeout"},
      {"bloodraven", {"--listen", "localhost"}, {}, "--listen"},
      {"bloodraven", {"--listen=127.0.0.1:99999"}, {}, "--listen"},
      {"bloodraven", {"--no-such-flag"}, {}, "--no-such-flag"},
      {"bloodraven", {"--log-level"}, {}, "--log-level"},
      {"bloodraven", {}, {{"BLOODRAVEN_LOG_LEVEL", "loud"}}, "BLOODRAVEN_LOG_LEVEL"},
      {"bloodraven", {}, {{"BLOODRAVEN_LEADER_ELECT", "maybe"}}, "BLOODRAVEN_LEADER_ELECT"},
      {"bloodraven", {}, {{"BLOODRAVEN_HTTP_MAX_BODY", "0"}}, "BLOODRAVEN_HTTP_MAX_BODY"},
      {"bloodraven-sidecar", {}, {{"LEASE_TIMEOUT", "abc"}}, "LEASE_TIMEOUT"},
      {"bloodraven-sidecar", {}, {{"PEER_CHECK_INTERVAL", "-5s"}}, "PEER_CHECK_INTERVAL"},
      {"bloodraven-sidecar", {}, {{"PEER_ADDRESSES", "a:1,b"}}, "PEER_ADDRESSES"},
      {"bloodraven-sidecar", {}, {{"LISTEN_ADDR", "x:y"}}, "LISTEN_ADDR"},
      {"bloodraven-sidecar", {"--peers", "h:0"}, {}, "--peers"},
      {"bloodraven", {"--health-listen", "nowhere"}, {}, "--health-listen"},
      {"bloodraven-sidecar", {}, {{"HEALTH_LISTEN_ADDR", "x:y"}}, "HEALTH_LISTEN_ADDR"},
      // Durations above their maximum (config/duration_limits.hpp).
      {"bloodraven", {"--shutdown-timeout", "10m1s"}, {}, "--shutdown-timeout"},
      {"bloodraven", {}, {{"BLOODRAVEN_HTTP_HANDLER_TIMEOUT", "2562047h"}},
       "BLOODRAVEN_HTTP_HANDLER_TIMEOUT"},
      {"bloodraven-sidecar", {}, {{"LEASE_TIMEOUT", "2h"}}, "LEASE_TIMEOUT"},
      {"bloodraven-sidecar", {}, {{"FENCE_TIMEOUT", "2562047h"}}, "FENCE_TIMEOUT"},
      {"bloodraven-sidecar", {}, {{"REQUEST_TIMEOUT", "50ms"}}, "REQUEST_TIMEOUT"},
  };
  for (auto& c : cases) {
    child_process p(binary_path(c.binary), c.args, c.env);
    auto code = p.wait_exit(20s);
    BOOST_TEST_CONTEXT(c.binary << " " << c.must_name) {
      BOOST_REQUIRE(code.has_value());
      BOOST_TEST(*code == 2);
      BOOST_TEST(p.output().find(c.must_name) != std::string::npos, p.output());
    }
  }
}

BOOST_AUTO_TEST_CASE(flags_override_environment) {
  // The environment names a bad level, the flag a good one: the flag wins and the process runs.
  auto r = start("bloodraven", {"--listen", "127.0.0.1:0", "--metrics-listen", "", "--log-level",
                                "debug"},
                 {{"BLOODRAVEN_LOG_LEVEL", "loud"}});
  r.proc->signal(SIGTERM);
  BOOST_TEST(r.proc->wait_exit(10s).value_or(-1) == 0);
}

BOOST_AUTO_TEST_CASE(help_and_version_exit_0) {
  for (std::string bin : {"bloodraven", "bloodraven-sidecar"}) {
    child_process h(binary_path(bin), {"--help"});
    BOOST_TEST(h.wait_exit(20s).value_or(-1) == 0);
    BOOST_TEST(h.output().find("Usage: " + bin) != std::string::npos);
    BOOST_TEST(h.output().find("--listen") != std::string::npos);
    child_process v(binary_path(bin), {"--version"});
    BOOST_TEST(v.wait_exit(20s).value_or(-1) == 0);
    BOOST_TEST(v.output().rfind(bin + " ", 0) == 0, v.output());
  }
}

BOOST_AUTO_TEST_CASE(both_binaries_serve_health_metrics_and_inspection) {
  for (auto [bin, args] : {std::pair{std::string("bloodraven"), operator_args()},
                           std::pair{std::string("bloodraven-sidecar"), sidecar_args()}}) {
    BOOST_TEST_CONTEXT(bin) {
      auto r = start(bin, args);
      br::http::client c;
      auto h = c.get(r.base() + "/healthz");
      BOOST_TEST(h.status == 200);
      BOOST_TEST(h.body == "ok");
      BOOST_TEST(c.get(r.base() + "/readyz").status == 200);
      auto nf = c.get(r.base() + "/no/such/path");
      BOOST_TEST(nf.status == 404);
      auto nfj = nlohmann::json::parse(nf.body, nullptr, false);
      BOOST_TEST(!nfj.is_discarded());
      BOOST_TEST(nfj.value("error", "") == "not found");

      // The HTTP server answers before the root supervisor has announced itself (a loaded host
      // showed the registry alone): read the tree until root is in it, for a bounded time.
      br::http::client_result actors;
      nlohmann::json tree;
      for (auto until = std::chrono::steady_clock::now() + 10s;;) {
        actors = c.get(r.base() + "/debug/actors");
        tree = nlohmann::json::parse(actors.body, nullptr, false);
        bool root = false;
        if (!tree.is_discarded() && tree.contains("actors"))
          for (auto& a : tree["actors"]) root = root || a.value("path", "") == "root";
        if (root || std::chrono::steady_clock::now() > until) break;
        std::this_thread::sleep_for(100ms);
      }
      BOOST_TEST(actors.status == 200);
      BOOST_REQUIRE(!tree.is_discarded());
      bool has_root = false;
      for (auto& a : tree["actors"])
        if (a["path"] == "root") {
          has_root = true;
          BOOST_TEST(a["kind"] == "supervisor");
          BOOST_TEST(a["restarts"] == 0);
          BOOST_TEST(a["step"] == "running");
          BOOST_TEST(a.contains("timeInStepSeconds"));
          BOOST_TEST(a.contains("lastError"));
          BOOST_TEST(a["id"].get<uint64_t>() > 0u);
        }
      BOOST_TEST(has_root, actors.body);

      auto m = c.get(r.base() + "/metrics");
      BOOST_TEST(m.status == 200);
      BOOST_TEST(m.body.find("bloodraven_build_info{binary=\"" + bin + "\"") != std::string::npos);
      BOOST_TEST(m.body.find("process_start_time_seconds") != std::string::npos);
      BOOST_TEST(m.body.find("bloodraven_http_requests_total") != std::string::npos);
      // promtool (Debian package prometheus) must accept the real exposition text.
      auto file = std::string("/tmp/br-metrics-") + std::to_string(r.proc->pid()) + ".txt";
      std::ofstream(file) << m.body;
      auto cmd = "promtool check metrics < " + file + " > " + file + ".out 2>&1";
      int rc = std::system(cmd.c_str());
      std::ifstream out(file + ".out");
      std::string report((std::istreambuf_iterator<char>(out)), {});
      BOOST_TEST(rc == 0, "promtool: " + report);
      std::remove(file.c_str());
      std::remove((file + ".out").c_str());

      r.proc->signal(SIGTERM);
      BOOST_TEST(r.proc->wait_exit(10s).value_or(-1) == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(liveness_listener_answers_while_the_api_listener_is_flooded) {
  for (auto [bin, args] : {std::pair{std::string("bloodraven"), operator_args()},
                           std::pair{std::string("bloodraven-sidecar"), sidecar_args()}}) {
    BOOST_TEST_CONTEXT(bin) {
      args.insert(args.end(), {"--health-listen", "127.0.0.1:0"});
      auto r = start(bin, args);
      const int live_port = server_port(r.proc->output(), "health");
      BOOST_REQUIRE_MESSAGE(live_port > 0, r.proc->output());
      const std::string livez = "http://127.0.0.1:" + std::to_string(live_port) + "/livez";
      br::http::client c;
      // Like the kubelet's initial delay: a freshly started (sanitized) process may be busy.
      BOOST_REQUIRE(eventually([&] { return c.get(livez).status == 200; }));
      // 9 client addresses x 32 (the per-client limit) take all 256 slots of the API listener;
      // one of them also sends the liveness listener's whole budget (16) there.
      std::vector<std::unique_ptr<loopback_conn>> flood;
      for (int a = 11; a <= 19; ++a)
        for (int i = 0; i < 32; ++i)
          flood.push_back(std::make_unique<loopback_conn>("127.0.0." + std::to_string(a), r.port));
      for (int i = 0; i < 16; ++i)
        flood.push_back(std::make_unique<loopback_conn>("127.0.0.11", live_port));
      for (auto& f : flood) BOOST_REQUIRE(f->fd >= 0);
      // Both answers come after the flood was admitted (FIFO listen queue, one accept at a time).
      auto api = c.get(r.base() + "/healthz");
      BOOST_TEST(api.status == 503, api.body);
      auto live = c.get(livez);
      BOOST_TEST(live.status == 200, live.body);
      BOOST_TEST(live.body == "ok");
      flood.clear();
      r.proc->signal(SIGTERM);
      BOOST_TEST(r.proc->wait_exit(10s).value_or(-1) == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(sigterm_stops_actors_and_exits_0_within_5s) {
  for (auto [bin, args] : {std::pair{std::string("bloodraven"), operator_args()},
                           std::pair{std::string("bloodraven-sidecar"), sidecar_args()}}) {
    BOOST_TEST_CONTEXT(bin) {
      auto r = start(bin, args);
      auto sent = std::chrono::steady_clock::now();
      r.proc->signal(SIGTERM);
      auto code = r.proc->wait_exit(5s);
      auto took = std::chrono::steady_clock::now() - sent;
      BOOST_TEST_MESSAGE(bin << " stopped in "
                             << std::chrono::duration_cast<std::chrono::milliseconds>(took).count()
                             << " ms");
      BOOST_REQUIRE_MESSAGE(code.has_value(), "still running 5 s after SIGTERM");
      BOOST_TEST(*code == 0, r.proc->output());
      auto& out = r.proc->output();
      // Order: HTTP stops accepting, then the actor tree stops, then the process reports.
      auto http_stop = out.find("http server stopped");
      auto sup_stop = out.find("supervisor stopping");
      auto done = out.find("\"msg\":\"stopped\"");
      BOOST_TEST(http_stop != std::string::npos);
      BOOST_TEST(sup_stop != std::string::npos);
      BOOST_TEST(done != std::string::npos);
      BOOST_TEST(http_stop < sup_stop);
      BOOST_TEST(sup_stop < done);
      // And the port is closed.
      br::http::client c({std::chrono::milliseconds(1000), std::chrono::milliseconds(500), {}});
      BOOST_TEST((c.get(r.base() + "/healthz").error == br::http::client_error::refused));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
