// Benchmark: the latency of one autocommit INSERT, as a client sees it (issue 25: what semi-sync
// costs per commit). Numbers go into README tables; never assert them in tests.
//
// Run: tools/bench/run-semisync-latency.sh (sets up a primary and two replicas, async and
// semi-sync, with and without network delay), or by hand against any writable server:
//   build/tools/bench/bench_commit_latency --port P [--host H] [--user U] [--password P] [-n N]
// Creates bench_semisync.commits if needed, runs 20 warm-up commits, then N (default 500), one
// statement each on one connection; prints "commits N p50 P p90 P p99 P max P mean P (ms)
// rate R/s".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "io/mysql/connection.hpp"

namespace {

double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t idx = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(idx, sorted.size() - 1)];
}

int usage(const char* prog) {
  std::fprintf(stderr, "usage: %s --port P [-n N] [--host H] [--user U] [--password P]\n", prog);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  br::mysql::connect_options opts;
  opts.user = "root";
  opts.password = "rootpw";
  opts.port = 0;
  opts.read_timeout = std::chrono::seconds(30);  // a commit blocked on acknowledgements shows up
  int n = 500;
  for (int i = 1; i < argc; ++i) {
    if (i + 1 >= argc) return usage(argv[0]);
    const char* v = argv[++i];
    if (!std::strcmp(argv[i - 1], "--port"))
      opts.port = static_cast<uint16_t>(std::atoi(v));
    else if (!std::strcmp(argv[i - 1], "--host"))
      opts.host = v;
    else if (!std::strcmp(argv[i - 1], "--user"))
      opts.user = v;
    else if (!std::strcmp(argv[i - 1], "--password"))
      opts.password = v;
    else if (!std::strcmp(argv[i - 1], "-n"))
      n = std::atoi(v);
    else
      return usage(argv[0]);
  }
  if (opts.port == 0 || n <= 0) return usage(argv[0]);
  auto conn = br::mysql::connection::open(opts);
  if (!conn) {
    std::fprintf(stderr, "connect %s failed: %s\n", opts.describe().c_str(),
                 conn.error().to_string().c_str());
    return 1;
  }
  for (const char* sql :
       {"CREATE DATABASE IF NOT EXISTS bench_semisync",
        "CREATE TABLE IF NOT EXISTS bench_semisync.commits (id BIGINT AUTO_INCREMENT PRIMARY KEY, "
        "v VARCHAR(64) NOT NULL)"}) {
    if (auto r = conn->exec(sql); !r) {
      std::fprintf(stderr, "%s: %s\n", sql, r.error().to_string().c_str());
      return 1;
    }
  }
  const std::string insert = "INSERT INTO bench_semisync.commits (v) VALUES ('bench')";
  std::vector<double> ms;
  ms.reserve(static_cast<size_t>(n));
  for (int i = -20; i < n; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    auto r = conn->exec(insert);
    auto t1 = std::chrono::steady_clock::now();
    if (!r) {
      std::fprintf(stderr, "commit %d failed: %s\n", i, r.error().to_string().c_str());
      return 1;
    }
    if (i >= 0) ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  double total = std::accumulate(ms.begin(), ms.end(), 0.0);
  std::sort(ms.begin(), ms.end());
  std::printf("commits %d p50 %.3f p90 %.3f p99 %.3f max %.3f mean %.3f (ms) rate %.0f/s\n", n,
              percentile(ms, 0.5), percentile(ms, 0.9), percentile(ms, 0.99), ms.back(),
              total / n, total > 0 ? 1000.0 * n / total : 0.0);
  return 0;
}
