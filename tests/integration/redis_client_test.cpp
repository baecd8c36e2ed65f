// The RESP client (io/redis/client.hpp) against real Valkey 9 servers (the Dragonfly stand-in):
// INFO parsed, AUTH refused and accepted, a replica attached with REPLICAOF and caught up, then
// promoted with REPLICAOF NO ONE; and the bounds: a refused port, a hung (SIGSTOPped) server, and
// hostile servers on a local socket (a huge array header, a huge bulk string, a reply dripped one
// byte at a time) all end in an error instead of a hang or unbounded memory.
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "io/redis/client.hpp"
#include "io/redis/info.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/valkey_server.hpp"

using namespace br;
using namespace std::chrono_literals;

namespace {

redis::connect_options opts(uint16_t port, std::string password = "") {
  redis::connect_options o;
  o.port = port;
  o.password = std::move(password);
  o.connect_timeout = 1000ms;
  o.io_timeout = 500ms;
  return o;
}

std::unique_ptr<redis::client> connect(const redis::connect_options& o) {
  redis::redis_error err;
  auto c = redis::client::connect(o, err);
  BOOST_REQUIRE_MESSAGE(c, "connect " << o.describe() << ": " << err.to_string());
  return c;
}

dragonfly::replication_info info(redis::client& c) {
  auto r = c.command({"INFO", "replication"});
  BOOST_REQUIRE_MESSAGE(r.ok(), r.error.to_string());
  return redis::parse_replication(r.value->str);
}

/// A one-connection TCP server on loopback that writes `payload` (in `chunk`-byte pieces every
/// `every`) to whoever connects, then keeps the connection open until stopped.
class hostile_server {
 public:
  hostile_server(std::string payload, size_t chunk = 0, std::chrono::milliseconds every = 0ms)
      : payload_(std::move(payload)), chunk_(chunk ? chunk : payload_.size()), every_(every) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    BOOST_REQUIRE(::listen(fd_, 4) == 0);
    thread_ = std::thread([this] {
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      for (size_t off = 0; off < payload_.size() && !stop_; off += chunk_) {
        if (::send(c, payload_.data() + off, std::min(chunk_, payload_.size() - off), MSG_NOSIGNAL) < 0) break;
        if (every_.count() > 0) std::this_thread::sleep_for(every_);
      }
      while (!stop_) std::this_thread::sleep_for(20ms);
      ::close(c);
    });
  }
  ~hostile_server() {
    stop_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    thread_.join();
  }
  uint16_t port() const { return port_; }

 private:
  std::string payload_;
  size_t chunk_;
  std::chrono::milliseconds every_;
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(redis_client)

BOOST_AUTO_TEST_CASE(info_auth_replicaof_on_valkey) {
  test::valkey_server a("pw-a1"), b("pw-a1");
  {  // AUTH: none -> the server refuses commands; a wrong one -> auth; the right one works
    redis::redis_error err;
    auto plain = redis::client::connect(opts(a.port()), err);
    BOOST_REQUIRE(plain);
    auto r = plain->command({"INFO", "replication"});
    BOOST_TEST(!r.ok());
    BOOST_TEST((r.error.kind == redis::error_kind::server_error));
    BOOST_TEST(r.error.message.find("NOAUTH") != std::string::npos, r.error.message);
    auto wrong = redis::client::connect(opts(a.port(), "nope"), err);
    BOOST_TEST(!wrong);
    BOOST_TEST((err.kind == redis::error_kind::auth), err.to_string());
    BOOST_TEST(err.message.find("nope") == std::string::npos);  // the password is never echoed
  }
  auto ca = connect(opts(a.port(), "pw-a1"));
  auto cb = connect(opts(b.port(), "pw-a1"));
  auto ia = info(*ca);
  BOOST_TEST((ia.role == dragonfly::server_role::master));
  BOOST_TEST(ia.connected_replicas == 0);
  BOOST_TEST(ia.master_repl_offset == 0);  // a fresh server: provably never took writes
  BOOST_REQUIRE(ca->command({"SET", "session:1", "alive"}).ok());

  // b follows a (REPLICAOF is idempotent: twice changes nothing), catches up, sees the key
  BOOST_REQUIRE(cb->command({"REPLICAOF", "127.0.0.1", std::to_string(a.port())}).ok());
  BOOST_REQUIRE(cb->command({"REPLICAOF", "127.0.0.1", std::to_string(a.port())}).ok());
  BOOST_REQUIRE(test::eventually(
      [&] {
        auto ib = info(*cb);
        auto ia2 = info(*ca);
        return ib.role == dragonfly::server_role::replica && ib.link_up && !ib.sync_in_progress &&
               ib.replica_offset == ia2.master_repl_offset;
      },
      20s));
  auto ib = info(*cb);
  BOOST_TEST(ib.master_host == "127.0.0.1");
  BOOST_TEST(ib.master_port == a.port());
  BOOST_TEST(info(*ca).connected_replicas == 1);
  auto got = cb->command({"GET", "session:1"});
  BOOST_REQUIRE(got.ok());
  BOOST_TEST(got.value->str == "alive");

  // promote b: a master that holds the data, offset > 0
  BOOST_REQUIRE(cb->command({"REPLICAOF", "NO", "ONE"}).ok());
  auto pb = info(*cb);
  BOOST_TEST((pb.role == dragonfly::server_role::master));
  BOOST_TEST(pb.master_repl_offset > 0);
  BOOST_TEST(cb->command({"SET", "session:2", "on-b"}).ok());

  // an unknown command is a server error that keeps the connection usable
  auto bad = cb->command({"NOSUCHCOMMAND"});
  BOOST_TEST((bad.error.kind == redis::error_kind::server_error));
  BOOST_TEST(cb->command({"PING"}).ok());
}

BOOST_AUTO_TEST_CASE(refused_and_hung_servers_end_in_errors) {
  redis::redis_error err;
  auto none = redis::client::connect(opts(test::free_port()), err);
  BOOST_TEST(!none);
  BOOST_TEST((err.kind == redis::error_kind::refused), err.to_string());

  test::valkey_server s;
  auto c = connect(opts(s.port()));
  BOOST_REQUIRE(c->command({"PING"}).ok());
  s.pause();
  auto r = c->command({"INFO", "replication"});
  BOOST_TEST(!r.ok());
  BOOST_TEST((r.error.kind == redis::error_kind::timeout), r.error.to_string());
  // the stream is out of step now: later commands fail without waiting again
  auto later = c->command({"PING"});
  BOOST_TEST((later.error.kind == redis::error_kind::io), later.error.to_string());
  // a new connection to the hung server: the kernel accepts it, the first command times out
  redis::redis_error err2;
  auto c2 = redis::client::connect(opts(s.port()), err2);
  if (c2) {
    auto r2 = c2->command({"PING"});
    BOOST_TEST((r2.error.kind == redis::error_kind::timeout), r2.error.to_string());
  } else {
    BOOST_TEST((err2.kind == redis::error_kind::timeout), err2.to_string());
  }
  s.resume();
  auto c3 = connect(opts(s.port()));
  BOOST_TEST(c3->command({"PING"}).ok());
}

BOOST_AUTO_TEST_CASE(hostile_replies_are_refused_not_buffered) {
  {  // an array header announcing 100 million elements: refused before anything is allocated
    hostile_server h("*100000000\r\n");
    auto c = connect(opts(h.port()));
    auto r = c->command({"INFO"});
    BOOST_TEST((r.error.kind == redis::error_kind::protocol), r.error.to_string());
    BOOST_TEST(r.error.message.find("array reply longer") != std::string::npos, r.error.message);
  }
  {  // a bulk string of 100 MB: refused once more than max_reply_bytes is held
    hostile_server h("$100000000\r\n" + std::string(3u << 20, 'x'));
    auto c = connect(opts(h.port()));
    auto r = c->command({"INFO"});
    BOOST_TEST((r.error.kind == redis::error_kind::protocol), r.error.to_string());
    BOOST_TEST(r.error.message.find("larger than") != std::string::npos, r.error.message);
  }
  {  // nested arrays, each within max_array_elements, 4 MB in all: refused at max_reply_bytes
     // received, not parsed into about a million reply objects (review finding)
    std::string leaf = "*1024\r\n";
    for (int i = 0; i < 1024; ++i) leaf += ":1\r\n";
    std::string payload = "*1024\r\n";
    for (int i = 0; i < 1024; ++i) payload += leaf;
    hostile_server h(std::move(payload));
    auto c = connect(opts(h.port()));
    auto r = c->command({"INFO"});
    BOOST_TEST((r.error.kind == redis::error_kind::protocol), r.error.to_string());
    BOOST_TEST(r.error.message.find("larger than") != std::string::npos, r.error.message);
  }
  {  // a status reply dripped a byte every 100 ms: the command deadline ends it
    hostile_server h("+" + std::string(200, 'o') + "\r\n", 1, 100ms);
    auto c = connect(opts(h.port()));
    auto r = c->command({"PING"});
    BOOST_TEST((r.error.kind == redis::error_kind::timeout), r.error.to_string());
  }
  {  // garbage is a protocol error
    hostile_server h("?what\r\n");
    auto c = connect(opts(h.port()));
    auto r = c->command({"PING"});
    BOOST_TEST((r.error.kind == redis::error_kind::protocol), r.error.to_string());
  }
}

BOOST_AUTO_TEST_SUITE_END()
