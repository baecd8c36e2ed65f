// Benchmark: process start -> first /readyz 200, and idle RSS, for both binaries.
// Usage: bench_startup <bin-dir> [runs=20]   (use a Release build without sanitizers:
//   tools/bench/run-startup.sh builds one and runs this).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

namespace {

using clk = std::chrono::steady_clock;

int free_port() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  close(s);
  return port;
}

// One GET /readyz; true on "200".
bool ready(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = false;
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    const char req[] = "GET /readyz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    if (write(s, req, sizeof req - 1) > 0) {
      char buf[64] = {};
      auto n = read(s, buf, sizeof buf - 1);
      ok = n > 12 && std::strncmp(buf + 9, "200", 3) == 0;
    }
  }
  close(s);
  return ok;
}

long rss_kib(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6);
  return -1;
}

struct sample {
  double ms;
  long rss;
};

sample run_once(const std::string& path, bool is_sidecar) {
  int port = free_port();
  auto addr = "127.0.0.1:" + std::to_string(port);
  auto t0 = clk::now();
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", 0);
    dup2(devnull, 1);
    dup2(devnull, 2);
    if (is_sidecar)
      execl(path.c_str(), path.c_str(), "--listen", addr.c_str(), nullptr);
    else
      execl(path.c_str(), path.c_str(), "--listen", addr.c_str(), "--metrics-listen", "", nullptr);
    _exit(127);
  }
  double ms = -1;
  while (clk::now() - t0 < std::chrono::seconds(10)) {
    if (ready(port)) {
      ms = std::chrono::duration<double, std::milli>(clk::now() - t0).count();
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));  // idle
  long rss = rss_kib(pid);
  kill(pid, SIGTERM);
  waitpid(pid, nullptr, 0);
  return {ms, rss};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s <bin-dir> [runs]\n", argv[0]);
    return 2;
  }
  std::string dir = argv[1];
  int runs = argc > 2 ? std::atoi(argv[2]) : 20;
  for (auto [name, sidecar] : {std::pair{"bloodraven", false}, std::pair{"bloodraven-sidecar", true}}) {
    std::vector<double> ms;
    std::vector<long> rss;
    for (int i = 0; i < runs; ++i) {
      auto s = run_once(dir + "/" + name, sidecar);
      if (s.ms < 0) {
        std::fprintf(stderr, "%s: not ready within 10 s\n", name);
        return 1;
      }
      ms.push_back(s.ms);
      rss.push_back(s.rss);
    }
    std::sort(ms.begin(), ms.end());
    std::sort(rss.begin(), rss.end());
    std::printf("%-20s start->readyz median %.1f ms  p90 %.1f ms  max %.1f ms  idle RSS median %.1f MiB  (%d runs)\n",
                name, ms[ms.size() / 2], ms[ms.size() * 9 / 10], ms.back(),
                rss[rss.size() / 2] / 1024.0, runs);
  }
  return 0;
}
