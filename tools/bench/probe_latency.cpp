// Benchmark: latency of the one-statement probe against a real MySQL on loopback.
//
// Run (from the project root, after building the target bench_probe_latency):
//   tools/mysql-sandbox up 2 && tools/mysql-sandbox replicate 2 FROM 1
//   build-mysql/bench_probe_latency --port "$(tools/mysql-sandbox port 1)" [-n 200]
//   (options: --host H, --user U, --password P (default bloodraven/bloodravenpw), -n N probes)
// Prints min/median/p90/p99/max of the probe's own latency (steady_clock around the statement,
// as probe_result::latency) on one persistent connection, after 5 warm-up probes. Numbers go in
// README tables; never assert them in tests. Note: a Debug+ASan build adds client-side cost.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"

namespace {

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t idx = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(idx, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  br::mysql::connect_options opts;
  opts.user = "bloodraven";
  opts.password = "bloodravenpw";
  opts.port = 0;
  int n = 200;
  for (int i = 1; i < argc; ++i) {
    auto next = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--port"))
      opts.port = static_cast<uint16_t>(std::atoi(next("--port")));
    else if (!std::strcmp(argv[i], "--host"))
      opts.host = next("--host");
    else if (!std::strcmp(argv[i], "--user"))
      opts.user = next("--user");
    else if (!std::strcmp(argv[i], "--password"))
      opts.password = next("--password");
    else if (!std::strcmp(argv[i], "-n"))
      n = std::atoi(next("-n"));
    else {
      std::fprintf(stderr, "usage: %s --port P [-n N] [--host H] [--user U] [--password P]\n",
                   argv[0]);
      return 2;
    }
  }
  if (opts.port == 0 || n <= 0) {
    std::fprintf(stderr, "usage: %s --port P [-n N]   (port: tools/mysql-sandbox port 1)\n",
                 argv[0]);
    return 2;
  }
  auto conn = br::mysql::connection::open(opts);
  if (!conn) {
    std::fprintf(stderr, "connect %s failed: %s\n", opts.describe().c_str(),
                 conn.error().to_string().c_str());
    return 1;
  }
  const auto& d = br::mysql::mysql8();
  for (int i = 0; i < 5; ++i) {
    auto p = br::mysql::probe(*conn, d);
    if (!p) {
      std::fprintf(stderr, "probe failed: %s\n", p.error().to_string().c_str());
      return 1;
    }
  }
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(n));
  std::string version;
  bool writable = false;
  for (int i = 0; i < n; ++i) {
    auto p = br::mysql::probe(*conn, d);
    if (!p) {
      std::fprintf(stderr, "probe %d failed: %s\n", i, p.error().to_string().c_str());
      return 1;
    }
    ms.push_back(static_cast<double>(p->latency.count()) / 1000.0);
    version = p->version;
    writable = p->writable();
  }
  std::sort(ms.begin(), ms.end());
  std::printf(
      "probe latency on %s (MySQL %s, %s), %d probes, ms: min %.3f median %.3f p90 %.3f "
      "p99 %.3f max %.3f\n",
      opts.describe().c_str(), version.c_str(), writable ? "writable" : "read-only", n, ms.front(),
      percentile(ms, 0.5), percentile(ms, 0.9), percentile(ms, 0.99), ms.back());
  return 0;
}
