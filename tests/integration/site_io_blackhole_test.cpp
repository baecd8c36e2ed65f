// Issue 18, "one hung site stalls all groups" (acceptance 3): two groups share the real site_io.
// Group "dark" has four blackholed sites (loopback listeners that accept and never answer, which
// is what a blackholed MySQL looks like to the client); group "lit" runs on two real MySQL 9.7
// servers (sandbox instances 63 = primary, 64 = replica). The lit group must see no failover, no
// alert and no unreachable site, and its probes must keep their cadence. A recording proxy in
// front of site_io measures the interval between the lit group's probes and their latency (the
// numbers are printed; pass/fail uses only generous bounds: 3 x pollInterval).
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/test/unit_test.hpp>
#include <caf/all.hpp>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "actors/operator/group/group_supervisor.hpp"
#include "actors/operator/group/site_io.hpp"
#include "actors/operator/local/local_platform.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/mysql_sandbox.hpp"

using namespace std::chrono_literals;
using namespace br;
using steady = std::chrono::steady_clock;

namespace {

constexpr int primary = 63, replica = 64;  // sandbox instances reserved for this test
constexpr auto poll_interval = 500ms;

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

/// Accepts every connection and never writes a byte (a blackholed MySQL server).
class blackhole {
 public:
  blackhole() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_TEST_REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
    BOOST_TEST_REQUIRE(::listen(fd_, 128) == 0);
    socklen_t len = sizeof(a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 20) <= 0) continue;
        int c = ::accept(fd_, nullptr, nullptr);
        if (c >= 0) {
          held_.push_back(c);
          ++accepted_;
        }
      }
    });
  }
  ~blackhole() {
    stop_ = true;
    thread_.join();
    for (int c : held_) ::close(c);
    ::close(fd_);
  }
  uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }

 private:
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::vector<int> held_;
  std::thread thread_;
};

/// What the proxy saw of one site's probes: send times and latencies.
struct probe_log {
  std::mutex m;
  std::map<std::string, std::vector<steady::time_point>> sent;
  std::map<std::string, std::vector<std::chrono::microseconds>> latency;
  std::map<std::string, int> failed;
  bool recording = false;
};

/// site_io in front of site_io: forwards everything, records the probes.
site_io_actor spawn_recording_proxy(caf::actor_system& sys, site_io_actor io,
                                    std::shared_ptr<probe_log> log) {
  return sys.spawn([io, log](site_io_actor::pointer self) -> site_io_actor::behavior_type {
    return {
        [=](mysql_command& cmd) -> caf::result<mysql_outcome> {
          auto rp = self->make_response_promise<mysql_outcome>();
          auto site = cmd.target.site;
          bool probe = cmd.op == mysql_op::probe;
          auto t0 = steady::now();
          if (probe) {
            std::lock_guard<std::mutex> g(log->m);
            if (log->recording) log->sent[site].push_back(t0);
          }
          self->request(io, cmd.timeout * 4 + 20s, std::move(cmd))
              .then(
                  [=](mysql_outcome& o) mutable {
                    if (probe) {
                      std::lock_guard<std::mutex> g(log->m);
                      if (log->recording) {
                        log->latency[site].push_back(
                            std::chrono::duration_cast<std::chrono::microseconds>(steady::now() -
                                                                                  t0));
                        if (!o.ok) ++log->failed[site];
                      }
                    }
                    rp.deliver(std::move(o));
                  },
                  [=](caf::error& e) mutable { rp.deliver(caf::error(e)); });
          return rp;
        },
        [=](leader_floor_atom, uint64_t g) { self->send(io, leader_floor_atom::value, g); },
        [](tick_atom) {},
    };
  });
}

template <class T>
T pct(std::vector<T> v, double p) {
  if (v.empty()) return T{};
  std::sort(v.begin(), v.end());
  auto i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

config::site_spec site(const std::string& name, uint16_t port, site_role role) {
  config::site_spec s;
  s.name = name;
  s.role = role;
  s.lb_ip = "192.0.2.1";
  s.address = config::address_spec{"127.0.0.1", port};
  return s;
}

config::group_spec base_spec() {
  config::group_spec spec;
  spec.poll_interval = poll_interval;
  spec.failure_threshold = 3;
  spec.recovery_threshold = 2;
  spec.replication.user = "repl";
  spec.replication.password = "replpw";
  spec.replication.tls = true;
  return spec;
}

struct fixture {
  std::string dir;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  site_io_actor io;
  site_io_actor proxy;
  std::shared_ptr<probe_log> log = std::make_shared<probe_log>();
  local_platform platform;
  std::vector<caf::actor> groups;

  fixture() {
    char tmpl[] = "/tmp/br-blackhole-XXXXXX";
    BOOST_TEST_REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    io = spawn_site_io(sys);
    proxy = spawn_recording_proxy(sys, io, log);
    local_platform_config pc;
    pc.dir = dir;
    platform = spawn_local_platform(sys, pc);
  }

  ~fixture() {
    for (auto& g : groups) {
      self->request(g, 20s, stop_atom::value).receive([](bool) {}, [](caf::error&) {});
      self->send_exit(g, caf::exit_reason::user_shutdown);
    }
    self->send_exit(proxy, caf::exit_reason::user_shutdown);
    self->send_exit(io, caf::exit_reason::user_shutdown);
    stop_local_platform(platform);
    for (int i : {primary, replica}) {
      auto r = sandbox().run({"stop", std::to_string(i)});
      if (r.exit_code != 0) BOOST_TEST_MESSAGE("stop " << i << ": " << r.err);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  coordinator_actor start(const std::string& name, const config::group_spec& spec) {
    group_credentials creds{"bloodraven", "bloodravenpw", "repl", "replpw", nullptr, ""};
    group_runtime rt;
    rt.site_io = proxy;
    rt.platform = platform.handles;
    rt.namespace_name = "default";
    rt.command_timeout = 5s;
    auto sup = spawn_group_supervisor(sys, "root/group:" + name, name, spec, creds, rt);
    groups.push_back(sup);
    caf::actor c;
    self->request(sup, 10s, child_atom::value, std::string("coordinator"))
        .receive([&](caf::actor& a) { c = a; },
                 [](caf::error& e) { BOOST_FAIL("child coordinator: " << caf::to_string(e)); });
    return caf::actor_cast<coordinator_actor>(c);
  }

  config::group_status status(const coordinator_actor& c) {
    config::group_status s;
    self->request(c, 10s, status_atom::value)
        .receive([&](config::group_status& x) { s = x; }, [](caf::error&) {});
    return s;
  }

  std::vector<group_event> events_of(const std::string& group) {
    std::vector<group_event> out;
    for (auto& e : platform.events->snapshot())
      if (e.group == group) out.push_back(e);
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(site_io_blackhole, fixture)

BOOST_AUTO_TEST_CASE(four_blackholed_sites_do_not_stall_a_healthy_group) {
  sandbox().must({"up-ids", std::to_string(primary), std::to_string(replica)});
  for (int i : {primary, replica}) sandbox().reset(i);
  sandbox().replicate(replica, primary);

  // -- the healthy group adopts 63 ---------------------------------------------------------------
  auto lit_spec = base_spec();
  lit_spec.sites = {site("s63", sandbox().port(primary), site_role::primary_candidate),
                    site("s64", sandbox().port(replica), site_role::primary_candidate)};
  auto lit = start("lit", lit_spec);
  BOOST_TEST_REQUIRE(test::eventually([&] { return status(lit).active_site == "s63"; }, 60s),
                     "the healthy group never adopted s63");
  // Let it settle (switch installed, both sites seen) before the dark group starts.
  std::this_thread::sleep_for(3s);
  auto before = status(lit);
  auto lit_events_before = events_of("lit").size();

  // -- four blackholed sites in a second group ---------------------------------------------------
  std::vector<std::unique_ptr<blackhole>> holes;
  auto dark_spec = base_spec();
  for (int i = 0; i < 4; ++i) {
    holes.push_back(std::make_unique<blackhole>());
    dark_spec.sites.push_back(site("d" + std::to_string(i), holes.back()->port(),
                                   site_role::primary_candidate));
  }
  {
    std::lock_guard<std::mutex> g(log->m);
    log->recording = true;
  }
  auto dark = start("dark", dark_spec);

  // -- 30 s side by side: the lit group must not notice -------------------------------------------
  bool lit_site_unreachable = false;
  std::string unreachable_note;
  auto until = steady::now() + 30s;
  while (steady::now() < until) {
    auto s = status(lit);
    for (auto& st : s.sites)
      if (st.state == site_state::unreachable && !lit_site_unreachable) {
        lit_site_unreachable = true;
        unreachable_note = st.name;
      }
    std::this_thread::sleep_for(100ms);
  }
  {
    std::lock_guard<std::mutex> g(log->m);
    log->recording = false;
  }
  auto after = status(lit);

  // The dark sites really were blackholed: every one was connected to, and the dark group sees
  // none of them (TotalLoss).
  for (auto& h : holes) BOOST_TEST(h->accepted() >= 1);
  auto dark_status = status(dark);
  for (auto& st : dark_status.sites)
    BOOST_TEST((st.state == site_state::unreachable), st.name << " is not unreachable");

  // No spurious failover or alert in the healthy group.
  BOOST_TEST(!lit_site_unreachable, "healthy site " << unreachable_note << " went unreachable");
  BOOST_TEST(after.active_site == "s63");
  BOOST_TEST(after.epoch == before.epoch);
  auto lit_events = events_of("lit");
  for (size_t i = lit_events_before; i < lit_events.size(); ++i) {
    const auto& e = lit_events[i];
    BOOST_TEST((e.type != "Warning" && e.reason.find("Failover") == std::string::npos),
               "healthy group event " << e.type << " " << e.reason << ": " << e.message);
  }

  // Cadence of the healthy group's probes.
  std::lock_guard<std::mutex> g(log->m);
  for (const std::string s : {"s63", "s64"}) {
    auto& sent = log->sent[s];
    BOOST_TEST(sent.size() >= 20u, s << ": only " << sent.size() << " probes in 30 s");
    if (sent.size() < 2) continue;
    std::vector<int64_t> gaps;
    for (size_t i = 1; i < sent.size(); ++i)
      gaps.push_back(std::chrono::duration_cast<std::chrono::milliseconds>(sent[i] - sent[i - 1])
                         .count());
    std::vector<int64_t> lat;
    for (auto& l : log->latency[s]) lat.push_back(l.count());
    auto max_gap = *std::max_element(gaps.begin(), gaps.end());
    BOOST_TEST_MESSAGE(s << ": " << sent.size() << " probes, interval ms p50 " << pct(gaps, 0.5)
                         << " p99 " << pct(gaps, 0.99) << " max " << max_gap << " (pollInterval "
                         << poll_interval.count() << "), latency us p50 " << pct(lat, 0.5)
                         << " p99 " << pct(lat, 0.99) << " max "
                         << (lat.empty() ? 0 : *std::max_element(lat.begin(), lat.end()))
                         << ", failed " << log->failed[s]);
    BOOST_TEST(max_gap < 3 * poll_interval.count(),
               s << ": a probe interval of " << max_gap << " ms");
    BOOST_TEST(log->failed[s] == 0, s << ": " << log->failed[s] << " failed probes");
  }
  for (int i = 0; i < 4; ++i) {
    auto n = log->sent["d" + std::to_string(i)].size();
    BOOST_TEST_MESSAGE("d" << i << ": " << n << " probes (blackholed, 5 s timeout)");
  }
}

BOOST_AUTO_TEST_SUITE_END()
