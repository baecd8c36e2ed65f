// The promotion gate with real processes (issue 5 acceptance 3): the real operator (--standalone,
// policy Safe) and two real sidecars on real MySQL 9.7 (sandbox instances 7 and 8 ONLY; the
// integration_sidecar suite uses them too, both suites are RUN_SERIAL). The operator reaches site
// a's MySQL through a TCP relay the test can cut, so "the operator cannot reach the old primary,
// its sidecar can" is a real network fact, not a mock.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "actors/common/authority.hpp"
#include "actors/common/key_dir.hpp"
#include "io/http/client.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/sidecar_env.hpp"
#include "tests/support/mysql_sandbox.hpp"

using namespace std::chrono_literals;
using br::test::binary_path;
using br::test::child_process;
using br::test::free_port;
using json = nlohmann::json;

namespace {

constexpr int inst_a = 7;  // site a: the first primary
constexpr int inst_b = 8;  // site b: its replica, the candidate

const br::test::mysql_sandbox& sandbox() {
  static const br::test::mysql_sandbox sb;
  return sb;
}

int listen_loopback(uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  BOOST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  BOOST_REQUIRE(::listen(fd, 64) == 0);
  return fd;
}

uint16_t port_of(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  return ntohs(a.sin_port);
}

/// A TCP relay 127.0.0.1:<port> -> 127.0.0.1:<target>. cut(true) closes every relayed
/// connection and refuses new ones (accept + close), which is how the operator loses the old
/// primary while its sidecar (connected directly) still reaches it.
class relay {
 public:
  explicit relay(uint16_t target) : target_(target), fd_(listen_loopback(0)) {
    thread_ = std::thread([this] { accept_loop(); });
  }
  ~relay() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
    cut(true);
    for (auto& t : pumps_) t.join();
  }
  uint16_t port() const { return port_of(fd_); }
  void cut(bool on) {
    cut_ = on;
    if (!on) return;
    std::lock_guard<std::mutex> g(m_);
    for (int fd : open_) ::shutdown(fd, SHUT_RDWR);
  }

 private:
  void accept_loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 100) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      if (cut_) {
        ::close(c);
        continue;
      }
      int up = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      a.sin_port = htons(target_);
      if (::connect(up, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(c);
        ::close(up);
        continue;
      }
      std::lock_guard<std::mutex> g(m_);
      open_.push_back(c);
      open_.push_back(up);
      pumps_.emplace_back([c, up] { pump(c, up); });
    }
  }
  static void pump(int a, int b) {
    char buf[16384];
    pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    for (;;) {
      if (::poll(p, 2, 200) < 0) break;
      bool done = false;
      for (int i = 0; i < 2 && !done; ++i) {
        if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        auto n = ::read(p[i].fd, buf, sizeof buf);
        if (n <= 0 || ::write(p[1 - i].fd, buf, static_cast<size_t>(n)) != n) done = true;
      }
      if (done) break;
    }
    ::shutdown(a, SHUT_RDWR);
    ::shutdown(b, SHUT_RDWR);
  }

  uint16_t target_;
  int fd_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> cut_{false};
  std::thread thread_;
  std::mutex m_;
  std::vector<int> open_;
  std::vector<std::thread> pumps_;
};

std::string sql1(int i, const std::string& q) { return sandbox().sql(i, q); }
bool writable(int i) { return sql1(i, "SELECT @@global.read_only + @@global.super_read_only") == "0"; }
bool super_read_only(int i) { return sql1(i, "SELECT @@global.super_read_only") == "1"; }

struct process {
  std::unique_ptr<child_process> proc;
  void pump() {
    if (proc) proc->wait_for_line("\x01", 1ms);
  }
  bool saw(const std::string& needle) {
    pump();
    return proc && proc->output().find(needle) != std::string::npos;
  }
  /// SIGTERM; the exit code (-1 when it did not exit in time).
  int stop() {
    if (!proc) return 0;
    proc->signal(SIGTERM);
    auto rc = proc->wait_exit(15s);
    proc.reset();
    return rc ? *rc : -1;
  }
};

/// Polls `pred` every 100 ms until it holds or the (safety-only) deadline passes.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds deadline, std::vector<process*> pump = {}) {
  auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    for (auto* p : pump) p->pump();
    if (pred()) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(100ms);
  }
}

struct gate_fixture {
  std::filesystem::path dir;
  uint16_t op_port = free_port();
  uint16_t sc_a = free_port();
  uint16_t sc_b = free_port();
  std::unique_ptr<relay> to_a;  // the operator's path to site a's MySQL
  process op, side_a, side_b;

  gate_fixture() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "br-gate-XXXXXX").string();
    BOOST_REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    dir = tmpl;
    BOOST_REQUIRE(br::auth::write_key_dir((dir / "keys").string(), {"a", "b"}).empty());
    sandbox().reset(inst_a);
    sandbox().reset(inst_b);
    sandbox().replicate(inst_b, inst_a);  // a writable, b its fenced replica
    to_a = std::make_unique<relay>(sandbox().port(inst_a));
    std::ofstream(dir / "group.yaml")
        << "apiVersion: shipstream.io/v1alpha1\n"
           "kind: MysqlFailoverGroup\n"
           "metadata: {name: g, namespace: ns}\n"
           "spec:\n"
           "  pollInterval: 500ms\n"
           "  failureThreshold: 2\n"
           "  failoverCooldown: 1s\n"
           "  promotionPolicy: Safe\n"
           "  promotionGateTimeout: 90s\n"
           "  relayDrainTimeout: 2s\n"
           "  replication: {user: repl, password: replpw}\n"
           "  sidecar: {leaseTimeout: 4s, peerCheckInterval: 1s, fenceTimeout: 5s}\n"
           "  sites:\n"
           "    - {name: a, role: primary-candidate, address: {host: 127.0.0.1, port: "
        << to_a->port() << "}, sidecarAddress: \"127.0.0.1:" << sc_a
        << "\"}\n"
           "    - {name: b, role: primary-candidate, address: {host: 127.0.0.1, port: "
        << sandbox().port(inst_b) << "}, sidecarAddress: \"127.0.0.1:" << sc_b << "\"}\n";
  }
  ~gate_fixture() {
    for (auto* p : {&side_a, &side_b, &op}) p->stop();
    to_a.reset();
    for (int i : {inst_a, inst_b}) sandbox().run({"stop", std::to_string(i)});
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  std::string base() const { return "http://127.0.0.1:" + std::to_string(op_port); }

  void start_operator() {
    op.proc = std::make_unique<child_process>(
        binary_path("bloodraven"),
        std::vector<std::string>{"--standalone", (dir / "group.yaml").string(), "--listen",
                                 "127.0.0.1:" + std::to_string(op_port), "--metrics-listen", "",
                                 "--state-dir", (dir / "state").string(), "--mysql-user",
                                 "bloodraven", "--keys-dir", (dir / "keys").string()},
        std::map<std::string, std::string>{{"BLOODRAVEN_MYSQL_PASSWORD", "bloodravenpw"}});
    BOOST_REQUIRE_MESSAGE(op.proc->wait_for_line("http server listening", 30s), op.proc->output());
  }

  void start_sidecar(process& p, const std::string& site, int inst, uint16_t port, uint16_t peer) {
    std::filesystem::create_directories(dir / ("sc-" + site));
    br::test::sidecar_env_options so;
    so.site = site;
    so.listen_port = port;
    so.operator_port = op_port;
    so.peer_port = peer;
    so.mysql_port = sandbox().port(inst);
    so.state_dir = (dir / ("sc-" + site)).string();
    so.keys_dir = (dir / "keys").string();
    auto env = br::test::sidecar_env(so);
    p.proc = std::make_unique<child_process>(binary_path("bloodraven-sidecar"),
                                             std::vector<std::string>{}, env);
    BOOST_REQUIRE_MESSAGE(eventually([&] { return p.saw("\"msg\":\"ready\""); }, 30s),
                          p.proc->output());
  }

  json active_site() {
    auto r = br::http::client{}.get(base() + "/active-site?namespace=ns&group=g&nonce=" +
                                           br::auth::new_nonce());
    if (r.status != 200) return json::object();
    auto j = json::parse(r.body, nullptr, false);
    return j.is_object() ? j : json::object();
  }
  bool active_is(const std::string& site) { return active_site().value("activeSite", "") == site; }
  std::string logs() {
    std::string s;
    for (auto* p : {&op, &side_a, &side_b}) {
      p->pump();
      if (p->proc) s += p->proc->output();
    }
    return s.size() > 20000 ? s.substr(s.size() - 20000) : s;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(gate_process, gate_fixture)

BOOST_AUTO_TEST_CASE(gate_rules_and_self_fencing_with_real_processes) {
  start_operator();
  BOOST_REQUIRE_MESSAGE(eventually([&] { return active_is("a"); }, 60s, {&op}), logs());
  start_sidecar(side_a, "a", inst_a, sc_a, sc_b);
  start_sidecar(side_b, "b", inst_b, sc_b, sc_a);
  BOOST_REQUIRE_MESSAGE(eventually([&] { return writable(inst_a) && !writable(inst_b); }, 30s,
                                   {&op, &side_a, &side_b}),
                        logs());

  // 1. Operator stopped: a's peer b still anchors it, so a stays writable well past the lease.
  // It stops cleanly (exit 0; ASan would turn a use-after-free at shutdown into exit 1).
  {
    op.pump();
    auto out = op.proc->output();
    int rc = op.stop();
    BOOST_TEST(rc == 0, "operator exit code " << rc << "\n" << out);
  }
  BOOST_TEST_MESSAGE("operator stopped; waiting 3 x leaseTimeout");
  bool stayed = !eventually([&] { return !writable(inst_a); }, 12s, {&side_a, &side_b});
  BOOST_TEST(stayed, "a primary with a reachable peer was fenced while the operator was down\n"
                         << logs());
  start_operator();
  BOOST_REQUIRE_MESSAGE(eventually([&] { return active_is("a"); }, 60s, {&op}), logs());

  // 2. The operator loses a's MySQL (its sidecar still reaches it): the deposing view is pushed,
  // a's sidecar fences and acknowledges (rule 2), and only then is b promoted.
  auto cut_at = std::chrono::steady_clock::now();
  to_a->cut(true);
  BOOST_REQUIRE_MESSAGE(eventually([&] { return active_is("b") && writable(inst_b); }, 60s,
                                   {&op, &side_a, &side_b}),
                        logs());
  double failover_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - cut_at).count();
  BOOST_TEST_MESSAGE("failover through gate rule 2 took " << failover_s << " s after the cut");
  BOOST_TEST(super_read_only(inst_a), logs());
  BOOST_TEST(op.saw("old primary's sidecar acknowledged the deposing view (gate rule 2)"), logs());
  BOOST_TEST(side_a.saw("pushed view does not name this site"), logs());
  // Rule 3 would have needed ceil(1.1 x (4 + 1 + 5 + 2)) = 13.2 s after the last ack.
  BOOST_TEST(failover_s < 13.2, "the gate waited as if for rule 3: " << failover_s << " s");

  // 3. The stale old primary comes back writable (someone unfenced it by hand) while its peer is
  // reachable: its sidecar holds a view naming b and fences it again within about one tick.
  auto unfenced_at = std::chrono::steady_clock::now();
  sql1(inst_a, "SET GLOBAL super_read_only = OFF");
  sql1(inst_a, "SET GLOBAL read_only = OFF");
  BOOST_TEST_REQUIRE(eventually([&] { return super_read_only(inst_a); }, 10s, {&side_a, &side_b}),
                     logs());
  double refence_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - unfenced_at).count();
  BOOST_TEST_MESSAGE("stale primary fenced again " << refence_s << " s after it became writable");
  BOOST_TEST(refence_s < 4.0, "not within about one tick (1 s): " << refence_s << " s");

  // 3b. The operator restarts with an empty state directory (its state lost). Before it acts it
  // learns the views the sidecars hold and resumes at that epoch: it does not adopt b at epoch 1,
  // which every sidecar would refuse as stale (and Safe could never fail over again).
  auto held_epoch = active_site().value("epoch", uint64_t{0});
  BOOST_TEST(held_epoch >= 3u);
  BOOST_TEST(op.stop() == 0);
  std::filesystem::remove_all(dir / "state");
  start_operator();
  BOOST_REQUIRE_MESSAGE(eventually([&] { return active_is("b"); }, 60s, {&op}), logs());
  BOOST_TEST(active_site().value("epoch", uint64_t{0}) == held_epoch, logs());
  BOOST_TEST(op.saw("stored state is behind the views the sidecars hold"), logs());
  BOOST_TEST(writable(inst_b));

  // 4. b, now the primary, loses the operator AND its only peer: it fences after leaseTimeout
  // (by its sidecar's lease or by the in-database switch its heartbeat dates).
  BOOST_TEST(op.stop() == 0);  // after a failover with view pushes too
  side_a.proc->signal(SIGKILL);
  side_a.proc->wait_exit(10s);
  side_a.proc.reset();
  auto alone_at = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(eventually([&] { return !writable(inst_b); }, 20s, {&side_b}), logs());
  double lease_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - alone_at).count();
  BOOST_TEST_MESSAGE("isolated primary fenced " << lease_s << " s after it lost every authority");
  BOOST_TEST(lease_s >= 2.0, "fenced before its lease could have run out: " << lease_s << " s");
}

BOOST_AUTO_TEST_SUITE_END()
