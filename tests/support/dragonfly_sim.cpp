// The Dragonfly SIMULATION for the REPLTAKEOVER branch (see dragonfly_sim.hpp).
#include "tests/support/dragonfly_sim.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace br::test {
namespace {

using namespace std::chrono_literals;

constexpr size_t max_buffer = 1u << 20;

std::string simple(const std::string& s) { return "+" + s + "\r\n"; }
std::string error(const std::string& s) { return "-" + s + "\r\n"; }
std::string bulk(const std::string& s) { return "$" + std::to_string(s.size()) + "\r\n" + s + "\r\n"; }
std::string integer(int64_t v) { return ":" + std::to_string(v) + "\r\n"; }
const std::string nil = "$-1\r\n";

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// One request (an array of bulk strings) from the front of `buf`: nullopt while incomplete;
// `bad` set on a malformed or oversized one.
std::optional<std::vector<std::string>> parse(std::string& buf, bool& bad) {
  size_t pos = 0;
  auto line = [&](std::string& out) {
    auto e = buf.find("\r\n", pos);
    if (e == std::string::npos) return false;
    out = buf.substr(pos, e - pos);
    pos = e + 2;
    return true;
  };
  std::string l;
  if (!line(l)) return std::nullopt;
  if (l.empty() || l[0] != '*') {
    bad = true;
    return std::nullopt;
  }
  long n = std::strtol(l.c_str() + 1, nullptr, 10);
  if (n < 1 || n > 64) {
    bad = true;
    return std::nullopt;
  }
  std::vector<std::string> args;
  for (long i = 0; i < n; ++i) {
    if (!line(l)) return std::nullopt;
    if (l.empty() || l[0] != '$') {
      bad = true;
      return std::nullopt;
    }
    long len = std::strtol(l.c_str() + 1, nullptr, 10);
    if (len < 0 || static_cast<size_t>(len) > max_buffer) {
      bad = true;
      return std::nullopt;
    }
    if (buf.size() < pos + static_cast<size_t>(len) + 2) return std::nullopt;
    args.push_back(buf.substr(pos, static_cast<size_t>(len)));
    pos += static_cast<size_t>(len) + 2;
  }
  buf.erase(0, pos);
  return args;
}

}  // namespace

struct dragonfly_sim::impl {
  struct node {
    uint16_t port = 0;
    int listen_fd = -1;
    std::thread thread;
    std::atomic<bool> stop{false};
    bool up = false;
    bool shutdown_requested = false;
    std::string role = "master";
    int master = -1;  // index; -2: a master this simulation does not know
    bool paused = false;
    bool serving = true;
    bool traffic_on = false;
    std::map<std::string, std::string> data;
    int64_t offset = 0;
  };

  std::string password;
  bool old_master_stays = false;
  mutable std::mutex mu;
  std::vector<std::unique_ptr<node>> nodes;
  int takeovers = 0;

  int index_of_port(uint16_t port) const {
    for (size_t i = 0; i < nodes.size(); ++i)
      if (nodes[i]->port == port && nodes[i]->up) return static_cast<int>(i);
    return -1;
  }

  void sync_from_master(node& r) {
    if (r.master < 0 || r.paused) return;
    auto& m = *nodes[static_cast<size_t>(r.master)];
    r.data = m.data;
    r.offset = m.offset;
  }

  void propagate(int idx) {
    for (auto& r : nodes)
      if (r->up && r->role == "replica" && r->master == idx) sync_from_master(*r);
  }

  std::string info(int idx, const std::string& section) {
    auto& n = *nodes[static_cast<size_t>(idx)];
    std::string out;
    if (section.empty() || section == "replication") {
      out += "# Replication\r\n";
      if (n.role == "master") {
        int replicas = 0;
        for (auto& r : nodes)
          if (r->up && r->role == "replica" && r->master == idx) ++replicas;
        out += "role:master\r\nconnected_slaves:" + std::to_string(replicas) + "\r\n";
        out += "master_repl_offset:" + std::to_string(n.offset) + "\r\n";
      } else {
        const bool known = n.master >= 0 && nodes[static_cast<size_t>(n.master)]->up;
        const uint16_t mport = n.master >= 0 ? nodes[static_cast<size_t>(n.master)]->port : 0;
        out += "role:replica\r\nmaster_host:127.0.0.1\r\nmaster_port:" + std::to_string(mport) + "\r\n";
        out += std::string("master_link_status:") + (known ? "up" : "down") + "\r\n";
        out += "master_last_io_seconds_ago:" + std::string(known ? "0" : "-1") + "\r\n";
        out += "master_sync_in_progress:0\r\nslave_repl_offset:" + std::to_string(n.offset) + "\r\n";
        out += "master_repl_offset:" + std::to_string(n.offset) + "\r\n";
      }
    }
    if (section.empty() || section == "persistence") out += "# Persistence\r\nloading:0\r\n";
    if (section.empty() || section == "keyspace") {
      out += "# Keyspace\r\n";
      if (!n.data.empty()) out += "db0:keys=" + std::to_string(n.data.size()) + ",expires=0,avg_ttl=0\r\n";
    }
    return bulk(out);
  }

  // Runs one command of node `idx`; the lock is held (REPLTAKEOVER releases it while waiting).
  std::string run(int idx, std::unique_lock<std::mutex>& lk, const std::vector<std::string>& a, bool& authed,
                  bool& quit) {
    auto& n = *nodes[static_cast<size_t>(idx)];
    const std::string cmd = upper(a[0]);
    if (cmd == "AUTH") {
      const std::string user = a.size() == 3 ? a[1] : "default";
      const std::string pass = a.back();
      if (user == "bloodraven-traffic" && n.traffic_on) return authed = true, simple("OK");
      if (user == "default" && (password.empty() || pass == password)) return authed = true, simple("OK");
      return error("WRONGPASS invalid username-password pair or user is disabled.");
    }
    if (cmd == "QUIT") return quit = true, simple("OK");
    if (!password.empty() && !authed) return error("NOAUTH Authentication required.");
    if (cmd == "PING") return simple("PONG");
    if (cmd == "INFO") return info(idx, a.size() > 1 ? a[1] : "");
    if (cmd == "ROLE") {
      if (n.role == "master") return "*3\r\n" + bulk("master") + integer(n.offset) + "*0\r\n";
      const uint16_t mport = n.master >= 0 ? nodes[static_cast<size_t>(n.master)]->port : 0;
      return "*5\r\n" + bulk("slave") + bulk("127.0.0.1") + integer(mport) + bulk("connected") + integer(n.offset);
    }
    if (cmd == "COMMAND" && a.size() >= 3 && upper(a[1]) == "INFO")
      return upper(a[2]) == "REPLTAKEOVER" ? "*1\r\n*2\r\n" + bulk("repltakeover") + integer(-2) : "*1\r\n" + nil;
    if (cmd == "ACL" && a.size() >= 3 && upper(a[1]) == "SETUSER") {
      if (a[2] == "bloodraven-traffic")
        for (size_t i = 3; i < a.size(); ++i) {
          if (a[i] == "on") n.traffic_on = true;
          if (a[i] == "off") n.traffic_on = false;
        }
      return simple("OK");
    }
    if (cmd == "CLIENT") return integer(0);
    if (cmd == "REPLICAOF" && a.size() == 3) {
      if (upper(a[1]) == "NO" && upper(a[2]) == "ONE") {
        n.role = "master";
        n.master = -1;
        return simple("OK");
      }
      const int m = index_of_port(static_cast<uint16_t>(std::stoi(a[2])));
      if (m == idx) return error("ERR can't replicate myself");
      n.role = "replica";
      n.master = m >= 0 ? m : -2;
      sync_from_master(n);
      return simple("OK");
    }
    if (cmd == "REPLTAKEOVER" && a.size() >= 2) {
      if (n.role != "replica" || n.master < 0 || !nodes[static_cast<size_t>(n.master)]->up)
        return error("ERR Replica not in stable state or master unreachable");
      const int mi = n.master;
      auto& m = *nodes[static_cast<size_t>(mi)];
      m.serving = false;  // regular clients of the master are refused from now on
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(std::stoi(a[1]));
      while (n.paused && std::chrono::steady_clock::now() < deadline) {
        lk.unlock();
        std::this_thread::sleep_for(20ms);
        lk.lock();
      }
      if (n.paused) {
        m.serving = true;
        return error("ERR Couldn't execute takeover");
      }
      sync_from_master(n);
      n.role = "master";
      n.master = -1;
      ++takeovers;
      if (old_master_stays) {
        m.role = "replica";
        m.master = idx;
        m.serving = true;
      } else {
        m.shutdown_requested = true;  // its own thread closes everything
        m.up = false;
      }
      return simple("OK");
    }
    if (cmd == "SET" && a.size() == 3) {
      if (!n.serving) return error("ERR the master is handing over (REPLTAKEOVER)");
      if (n.role != "master") return error("READONLY You can't write against a read only replica.");
      n.data[a[1]] = a[2];
      n.offset += static_cast<int64_t>(16 + a[1].size() + a[2].size());
      propagate(idx);
      return simple("OK");
    }
    if (cmd == "GET" && a.size() == 2) {
      if (!n.serving) return error("ERR the master is handing over (REPLTAKEOVER)");
      auto it = n.data.find(a[1]);
      return it == n.data.end() ? nil : bulk(it->second);
    }
    return error("ERR unknown command '" + a[0] + "'");
  }

  void serve(int idx) {
    struct client {
      int fd;
      std::string in;
      bool authed = false;
    };
    std::vector<client> clients;
    node& n = *nodes[static_cast<size_t>(idx)];
    auto close_all = [&] {
      for (auto& c : clients) ::close(c.fd);
      clients.clear();
      if (n.listen_fd >= 0) ::close(n.listen_fd);
      n.listen_fd = -1;
    };
    while (!n.stop) {
      {
        std::lock_guard<std::mutex> g(mu);
        if (n.shutdown_requested) {
          close_all();
          return;
        }
      }
      std::vector<pollfd> fds = {{n.listen_fd, POLLIN, 0}};
      for (auto& c : clients) fds.push_back({c.fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), 50) <= 0) continue;
      if (fds[0].revents & POLLIN) {
        int fd = ::accept4(n.listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) clients.push_back({fd, {}, false});
      }
      for (size_t i = 1; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        auto& c = clients[i - 1];
        char buf[4096];
        ssize_t got = ::recv(c.fd, buf, sizeof buf, 0);
        bool drop = got <= 0;
        if (!drop) c.in.append(buf, static_cast<size_t>(got));
        if (c.in.size() > max_buffer) drop = true;
        while (!drop) {
          bool bad = false, quit = false;
          auto req = parse(c.in, bad);
          if (bad) drop = true;
          if (!req) break;
          std::string reply;
          {
            std::unique_lock<std::mutex> lk(mu);
            reply = run(idx, lk, *req, c.authed, quit);
          }
          if (::send(c.fd, reply.data(), reply.size(), MSG_NOSIGNAL) < 0 || quit) drop = true;
        }
        if (drop) {
          ::close(c.fd);
          c.fd = -1;
        }
      }
      std::erase_if(clients, [](const client& c) { return c.fd < 0; });
    }
    close_all();
  }

  void listen_on(node& n) {
    n.listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    ::setsockopt(n.listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(n.port);
    if (::bind(n.listen_fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(n.listen_fd, 16) != 0)
      throw std::runtime_error("dragonfly_sim: cannot listen on port " + std::to_string(n.port));
    socklen_t len = sizeof a;
    ::getsockname(n.listen_fd, reinterpret_cast<sockaddr*>(&a), &len);
    n.port = ntohs(a.sin_port);
  }

  void start(int idx) {
    auto& n = *nodes[static_cast<size_t>(idx)];
    listen_on(n);
    {
      std::lock_guard<std::mutex> g(mu);
      n.up = true;
      n.stop = false;
      n.shutdown_requested = false;
    }
    n.thread = std::thread([this, idx] { serve(idx); });
  }

  void end(int idx) {
    auto& n = *nodes[static_cast<size_t>(idx)];
    {
      std::lock_guard<std::mutex> g(mu);
      n.up = false;
    }
    n.stop = true;
    if (n.thread.joinable()) n.thread.join();
  }
};

dragonfly_sim::dragonfly_sim(std::string password, bool old_master_stays) : p_(std::make_unique<impl>()) {
  p_->password = std::move(password);
  p_->old_master_stays = old_master_stays;
}

dragonfly_sim::~dragonfly_sim() {
  for (size_t i = 0; i < p_->nodes.size(); ++i) p_->end(static_cast<int>(i));
}

int dragonfly_sim::add_node() {
  int idx;
  {
    std::lock_guard<std::mutex> g(p_->mu);
    p_->nodes.push_back(std::make_unique<impl::node>());
    idx = static_cast<int>(p_->nodes.size()) - 1;
  }
  p_->start(idx);
  return idx;
}

uint16_t dragonfly_sim::port(int node) const { return p_->nodes[static_cast<size_t>(node)]->port; }

void dragonfly_sim::pause_replication(int node, bool paused) {
  std::lock_guard<std::mutex> g(p_->mu);
  auto& n = *p_->nodes[static_cast<size_t>(node)];
  n.paused = paused;
  if (!paused && n.role == "replica") p_->sync_from_master(n);
}

void dragonfly_sim::kill(int node) { p_->end(node); }

void dragonfly_sim::restart(int node) {
  p_->end(node);
  {
    std::lock_guard<std::mutex> g(p_->mu);
    auto& n = *p_->nodes[static_cast<size_t>(node)];
    n.role = "master";
    n.master = -1;
    n.paused = false;
    n.serving = true;
    n.traffic_on = false;
    n.data.clear();
    n.offset = 0;
  }
  p_->start(node);
}

std::string dragonfly_sim::role(int node) const {
  std::lock_guard<std::mutex> g(p_->mu);
  auto& n = *p_->nodes[static_cast<size_t>(node)];
  return n.up ? n.role : "down";
}

int dragonfly_sim::master_of(int node) const {
  std::lock_guard<std::mutex> g(p_->mu);
  auto& n = *p_->nodes[static_cast<size_t>(node)];
  return n.up && n.role == "replica" ? n.master : -1;
}

int64_t dragonfly_sim::offset(int node) const {
  std::lock_guard<std::mutex> g(p_->mu);
  return p_->nodes[static_cast<size_t>(node)]->offset;
}

std::optional<std::string> dragonfly_sim::get(int node, const std::string& key) const {
  std::lock_guard<std::mutex> g(p_->mu);
  auto& d = p_->nodes[static_cast<size_t>(node)]->data;
  auto it = d.find(key);
  if (it == d.end()) return std::nullopt;
  return it->second;
}

bool dragonfly_sim::traffic_user_on(int node) const {
  std::lock_guard<std::mutex> g(p_->mu);
  return p_->nodes[static_cast<size_t>(node)]->traffic_on;
}

int dragonfly_sim::takeovers() const {
  std::lock_guard<std::mutex> g(p_->mu);
  return p_->takeovers;
}

}  // namespace br::test
