// bench_delay_proxy: a TCP relay that holds every chunk for a fixed delay in each direction. It
// stands in for `tc netem delay`, which this machine's kernel lacks (sch_netem is not built), in
// benchmarks only (tools/bench/run-semisync-latency.sh puts it between replicas and their source).
//
// Usage: bench_delay_proxy --listen PORT --to PORT [--delay-ms D]   (127.0.0.1 on both sides)
// One thread, poll(); each accepted connection gets its own upstream connection; bytes read at t
// are written at t + D in order. At most 64 connection pairs, 64 MiB queued per direction (a
// reader is paused above that). Runs until killed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace {

using clock_type = std::chrono::steady_clock;

struct chunk {
  clock_type::time_point due;
  std::string bytes;
  size_t sent = 0;
};

struct direction {
  int from = -1;
  int to = -1;
  std::deque<chunk> queue;
  size_t queued = 0;
  bool eof = false;
};

struct pair_state {
  direction up;    // client -> server
  direction down;  // server -> client
  bool dead = false;
};

constexpr size_t max_pairs = 64;
constexpr size_t max_queued = 64u << 20;

int listen_on(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 16) != 0) {
    std::perror("listen");
    std::exit(1);
  }
  return fd;
}

int connect_to(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  uint16_t listen_port = 0;
  uint16_t to_port = 0;
  long delay_ms = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--listen"))
      listen_port = static_cast<uint16_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--to"))
      to_port = static_cast<uint16_t>(std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--delay-ms"))
      delay_ms = std::atol(argv[i + 1]);
  }
  if (listen_port == 0 || to_port == 0 || delay_ms < 0) {
    std::fprintf(stderr, "usage: %s --listen PORT --to PORT [--delay-ms D]\n", argv[0]);
    return 2;
  }
  const auto delay = std::chrono::milliseconds(delay_ms);
  int lfd = listen_on(listen_port);
  std::vector<std::unique_ptr<pair_state>> pairs;
  std::vector<char> buf(1 << 16);
  for (;;) {
    std::erase_if(pairs, [](const auto& p) {
      if (!p->dead) return false;
      close(p->up.from);
      close(p->down.from);
      return true;
    });
    std::vector<pollfd> fds{{lfd, POLLIN, 0}};
    std::vector<direction*> dirs;
    auto now = clock_type::now();
    auto next = now + std::chrono::seconds(1);
    for (auto& p : pairs)
      for (auto* d : {&p->up, &p->down}) {
        short ev = 0;
        if (!d->eof && d->queued < max_queued) ev |= POLLIN;
        if (!d->queue.empty()) {
          if (d->queue.front().due <= now)
            ev |= POLLOUT;
          else if (d->queue.front().due < next)
            next = d->queue.front().due;
        }
        fds.push_back({d->from, POLLIN, 0});
        fds.back().events = static_cast<short>(ev & POLLIN);
        dirs.push_back(d);
        fds.push_back({d->to, static_cast<short>(ev & POLLOUT), 0});
        dirs.push_back(d);
      }
    auto wait = std::chrono::ceil<std::chrono::milliseconds>(next - now).count();
    if (poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(0, wait))) < 0) continue;
    if ((fds[0].revents & POLLIN) && pairs.size() < max_pairs) {
      int c = accept(lfd, nullptr, nullptr);
      if (c >= 0) {
        int u = connect_to(to_port);
        if (u < 0) {
          close(c);
        } else {
          int one = 1;
          setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
          auto p = std::make_unique<pair_state>();
          p->up.from = c;
          p->up.to = u;
          p->down.from = u;
          p->down.to = c;
          pairs.push_back(std::move(p));
        }
      }
    }
    now = clock_type::now();
    for (size_t i = 1; i < fds.size(); ++i) {
      auto* d = dirs[i - 1];
      if (fds[i].fd == d->from && (fds[i].revents & (POLLIN | POLLHUP | POLLERR))) {
        auto n = read(d->from, buf.data(), buf.size());
        if (n <= 0) {
          d->eof = true;
        } else {
          d->queue.push_back({now + delay, std::string(buf.data(), static_cast<size_t>(n)), 0});
          d->queued += static_cast<size_t>(n);
        }
      }
      if (fds[i].fd == d->to && (fds[i].revents & POLLOUT)) {
        while (!d->queue.empty() && d->queue.front().due <= now) {
          auto& c = d->queue.front();
          auto n = write(d->to, c.bytes.data() + c.sent, c.bytes.size() - c.sent);
          if (n <= 0) break;
          c.sent += static_cast<size_t>(n);
          d->queued -= static_cast<size_t>(n);
          if (c.sent < c.bytes.size()) break;
          d->queue.pop_front();
        }
      }
      if (fds[i].revents & POLLERR) d->eof = true;
    }
    for (auto& p : pairs)
      if ((p->up.eof && p->up.queue.empty()) || (p->down.eof && p->down.queue.empty()))
        p->dead = true;
  }
}
