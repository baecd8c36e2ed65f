// Benchmark: N site_pollers over the real site_io pool against one mysqld: CPU, jitter, RSS.
// Usage: bench_scale <port> <sites> [seconds=30] [warmup=6] [workers=4] [interval_ms=2000]
//   (MySQL user/password from BR_BENCH_USER / BR_BENCH_PASSWORD, default bloodraven/bloodravenpw;
//   host from BR_BENCH_HOST, default 127.0.0.1). One configuration per process, so the RSS of a
//   run is not inflated by the previous one; tools/bench/run-scale.sh builds a Release binary
//   without sanitizers and loops over N.
// Prints one table row (see header()) and never asserts: numbers go into README.
#include <caf/all.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <sys/resource.h>

#include "actors/common/registry.hpp"
#include "actors/common/supervisor.hpp"
#include "actors/operator/group/site_io.hpp"
#include "actors/operator/group/site_poller.hpp"
#include "messages/interfaces.hpp"
#include "messages/type_ids.hpp"

namespace {

using namespace std::chrono;
using clk = steady_clock;

/// Counters the sink bumps from its scheduler thread and main reads: atomics, no locking.
struct sink_counters {
  std::atomic<uint64_t> reports{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<int64_t> latency_us_sum{0};  ///< probe round trip measured by io/mysql (ok probes)
  std::atomic<int64_t> latency_us_max{0};
};

/// Stands in for the coordinator: counts reports, answers everything else with defaults.
br::coordinator_actor::behavior_type sink(br::coordinator_actor::pointer,
                                          std::shared_ptr<sink_counters> c) {
  return {
      [=](br::observe_atom, const br::site_report& r) {
        c->reports.fetch_add(1, std::memory_order_relaxed);
        if (!r.probe_ok) {
          c->errors.fetch_add(1, std::memory_order_relaxed);
          return;
        }
        c->latency_us_sum.fetch_add(r.probe.latency_us, std::memory_order_relaxed);
        auto prev = c->latency_us_max.load(std::memory_order_relaxed);
        while (r.probe.latency_us > prev &&
               !c->latency_us_max.compare_exchange_weak(prev, r.probe.latency_us)) {
        }
      },
      [](br::view_atom) { return br::topology_view{}; },
      [](br::status_atom) { return br::config::group_status{}; },
      [](br::phase_atom, uint64_t, br::plan_phase, const br::plan_facts&) { return true; },
      [](br::plan_done_atom, const br::plan_result&) {},
      [](br::annotate_atom, const std::string&, const std::string&) {
        return std::string{"rejected: bench"};
      },
      [](br::switchover_atom, const std::string&) { return std::string{"rejected: bench"}; },
      [](br::flush_atom) {},
  };
}

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto tv = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  return tv(ru.ru_utime) + tv(ru.ru_stime);
}

/// VmRSS or VmHWM from /proc/self/status, in MiB.
double status_mib(const std::string& key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key + ":", 0) == 0) return std::atof(line.c_str() + key.size() + 1) / 1024.0;
  return -1;
}

struct totals {
  uint64_t ticks = 0, probes = 0, overlaps = 0;
  std::vector<size_t> samples;  ///< jitter samples per poller so far (ring not yet wrapped)
};

/// Asks every poller for its poll_stats; `from` (optional) selects samples after a snapshot.
totals collect(caf::scoped_actor& self, const std::vector<br::site_poller_actor>& pollers,
               const totals* from, std::vector<int64_t>* jitter_out) {
  totals t;
  t.samples.resize(pollers.size());
  for (size_t i = 0; i < pollers.size(); ++i) {
    self->request(pollers[i], seconds(10), br::poll_stats_atom::value)
        .receive(
            [&](const br::poll_stats& s) {
              t.ticks += s.ticks;
              t.probes += s.probes;
              t.overlaps += s.overlaps;
              t.samples[i] = s.jitter_us.size();
              if (jitter_out) {
                size_t start = from ? std::min(from->samples[i], s.jitter_us.size()) : 0;
                jitter_out->insert(jitter_out->end(), s.jitter_us.begin() + start,
                                   s.jitter_us.end());
              }
            },
            [&](caf::error& e) {
              std::fprintf(stderr, "pollstats failed: %s\n", self->system().render(e).c_str());
            });
  }
  return t;
}

int64_t pct(std::vector<int64_t>& v, double p) {
  if (v.empty()) return 0;
  auto idx = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  std::nth_element(v.begin(), v.begin() + static_cast<long>(idx), v.end());
  return v[idx];
}

std::string env_or(const char* name, const char* dflt) {
  auto v = std::getenv(name);
  return v ? v : dflt;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--header") {
    std::printf("| sites | io workers | probes/s (expected) | errors | CPU/poll | CPU total "
                "(cores) | jitter p50 / p99 / max | probe RTT avg / max | overlaps | RSS (peak) |\n"
                "|---|---|---|---|---|---|---|---|---|---|\n");
    return 0;
  }
  if (argc < 3) {
    std::fprintf(stderr,
                 "usage: %s <port> <sites> [seconds=30] [warmup=6] [workers=4] [interval_ms=2000]\n"
                 "       %s --header\n",
                 argv[0], argv[0]);
    return 2;
  }
  auto port = static_cast<uint16_t>(std::atoi(argv[1]));
  size_t n = static_cast<size_t>(std::atol(argv[2]));
  int run_s = argc > 3 ? std::atoi(argv[3]) : 30;
  int warm_s = argc > 4 ? std::atoi(argv[4]) : 6;
  size_t workers = argc > 5 ? static_cast<size_t>(std::atol(argv[5])) : 4;
  int interval_ms = argc > 6 ? std::atoi(argv[6]) : 2000;

  caf::actor_system_config cfg;
  br::add_message_types(cfg);
  cfg.set("scheduler.max-threads", 2);  // as the operator's runtime does
  caf::actor_system sys{cfg};
  br::spawn_registry(sys);  // pollers report steps to it, as in the operator

  auto counters = std::make_shared<sink_counters>();
  auto sink_handle = sys.spawn(sink, counters);
  // Stands in for the group supervisor: the pollers ask it for (child, "coordinator").
  auto sup = sys.spawn([sink_handle](caf::event_based_actor*) -> caf::behavior {
    return {[sink_handle](br::child_atom, const std::string&) { return br::as_child(sink_handle); }};
  });
  br::site_io_config io_cfg;
  // site_io runs one lane per site (each poller here is its own site, all on one mysqld) over
  // an elastic worker pool: `workers` run whatever waits, and the pool grows beyond them only
  // for a site whose probe has waited grow_after (100 ms).
  io_cfg.min_workers = std::max<size_t>(workers, 1);
  auto io = br::spawn_site_io(sys, io_cfg);

  std::vector<br::site_poller_actor> pollers;
  pollers.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    br::site_poller_config pc;
    pc.group = "bench";
    pc.namespace_name = "bench";
    pc.site = "s" + std::to_string(i);
    pc.path = "root/group:bench/poller:" + pc.site;
    pc.target.site = pc.site;
    pc.target.host = env_or("BR_BENCH_HOST", "127.0.0.1");
    pc.target.port = port;
    pc.target.user = env_or("BR_BENCH_USER", "bloodraven");
    pc.target.password = env_or("BR_BENCH_PASSWORD", "bloodravenpw");
    pc.interval = milliseconds(interval_ms);
    pollers.push_back(sys.spawn(br::site_poller, pc, io, sup));
  }

  caf::scoped_actor self{sys};
  std::this_thread::sleep_for(seconds(warm_s));
  auto before = collect(self, pollers, nullptr, nullptr);
  auto rep0 = counters->reports.load(), err0 = counters->errors.load();
  auto lat0 = counters->latency_us_sum.load();
  counters->latency_us_max.store(0);
  auto cpu0 = cpu_seconds();
  auto t0 = clk::now();

  std::this_thread::sleep_for(seconds(run_s));

  auto cpu1 = cpu_seconds();
  auto t1 = clk::now();
  auto rep1 = counters->reports.load(), err1 = counters->errors.load();
  auto lat1 = counters->latency_us_sum.load();
  auto lat_max = counters->latency_us_max.load();
  std::vector<int64_t> jitter;
  auto after = collect(self, pollers, &before, &jitter);
  auto rss = status_mib("VmRSS"), hwm = status_mib("VmHWM");

  double wall = duration<double>(t1 - t0).count();
  double cpu = cpu1 - cpu0;
  uint64_t probes = after.probes - before.probes;
  uint64_t reports = rep1 - rep0, errors = err1 - err0;
  uint64_t ok = reports - errors;
  double expected = static_cast<double>(n) * 1000.0 / interval_ms;
  std::printf("| %zu | %zu | %.1f (%.1f) | %llu | %.0f us | %.3f | %.1f / %.1f / %.1f ms | "
              "%.2f / %.1f ms | %llu | %.1f MiB (%.1f) |\n",
              n, workers, static_cast<double>(probes) / wall, expected,
              static_cast<unsigned long long>(errors),
              probes ? cpu / static_cast<double>(probes) * 1e6 : 0.0, cpu / wall,
              pct(jitter, 0.50) / 1000.0, pct(jitter, 0.99) / 1000.0,
              jitter.empty() ? 0.0 : *std::max_element(jitter.begin(), jitter.end()) / 1000.0,
              ok ? static_cast<double>(lat1 - lat0) / static_cast<double>(ok) / 1000.0 : 0.0,
              lat_max / 1000.0, static_cast<unsigned long long>(after.overlaps - before.overlaps),
              rss, hwm);
  std::fflush(stdout);
  for (auto& p : pollers) self->send_exit(p, caf::exit_reason::user_shutdown);
  self->send_exit(io, caf::exit_reason::user_shutdown);
  self->send_exit(sink_handle, caf::exit_reason::user_shutdown);
  self->send_exit(sup, caf::exit_reason::user_shutdown);
  if (auto r = br::find_registry(sys)) self->send_exit(r, caf::exit_reason::user_shutdown);
  return 0;
}
