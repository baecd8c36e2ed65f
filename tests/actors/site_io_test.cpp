// The real site_io (lanes of detached workers over io/mysql) against fake targets, in real time:
// a blackholed server (a loopback listener that accepts and never says a word, counting every
// connection, i.e. every command that started) and a closed port (refused at once). No MySQL
// needed. Bounds are generous: a blackholed command takes its whole timeout (seconds), a refused
// one a few milliseconds.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "actors/operator/group/site_io.hpp"
#include "messages/type_ids.hpp"

using namespace br;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace {

/// A loopback listener that accepts every connection and never answers: to a MySQL client it is
/// a blackholed server (the handshake waits for a greeting until its timeout). `accepted()`
/// counts the connections, i.e. the commands that started against it.
class blackhole {
 public:
  blackhole() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    BOOST_TEST_REQUIRE(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0);
    BOOST_TEST_REQUIRE(::listen(fd_, 128) == 0);
    socklen_t len = sizeof(a);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { loop(); });
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
  void loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      held_.push_back(c);  // kept open, never written to
      ++accepted_;
    }
  }
  int fd_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> accepted_{0};
  std::vector<int> held_;
  std::thread thread_;
};

/// A port nothing listens on: bind an ephemeral port, read it, close the socket.
uint16_t closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

mysql_command command(mysql_op op, uint16_t port, std::chrono::milliseconds timeout) {
  mysql_command c;
  c.op = op;
  c.target.site = "p" + std::to_string(port);
  c.target.port = port;
  c.target.user = "bloodraven";
  c.target.password = "pw";
  c.timeout = timeout;
  c.deadline = steady::now() + std::chrono::seconds(60);  // the actor clock is steady_clock here
  return c;
}

struct answer {
  mysql_outcome out;
  std::chrono::milliseconds took{0};
};

/// Answers of concurrent requests, by id, each with the time it took.
struct answers {
  std::mutex m;
  std::condition_variable cv;
  std::map<int, answer> got;

  void put(int id, mysql_outcome o, steady::duration took) {
    std::lock_guard<std::mutex> g(m);
    got[id] = {std::move(o), std::chrono::duration_cast<std::chrono::milliseconds>(took)};
    cv.notify_all();
  }
  /// Waits (bounded) until `id` was answered.
  std::optional<answer> wait(int id, std::chrono::seconds limit = 30s) {
    std::unique_lock<std::mutex> g(m);
    if (!cv.wait_for(g, limit, [&] { return got.count(id) > 0; })) return std::nullopt;
    return got[id];
  }
  size_t count_kind(const std::string& kind) {
    std::lock_guard<std::mutex> g(m);
    size_t n = 0;
    for (auto& [id, a] : got) n += a.out.error_kind == kind ? 1 : 0;
    return n;
  }
  size_t size() {
    std::lock_guard<std::mutex> g(m);
    return got.size();
  }
};

struct fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys;
  std::shared_ptr<answers> a = std::make_shared<answers>();

  static caf::actor_system_config& configured(caf::actor_system_config& c) {
    c.set("logger.verbosity", caf::atom("quiet"));
    add_message_types(c);
    return c;
  }
  fixture() : sys(configured(cfg)) {}

  /// One request from its own actor (so many can be in flight at once).
  void ask(site_io_actor io, int id, mysql_command cmd) {
    auto rec = a;
    sys.spawn([=](caf::event_based_actor* self) {
      auto t0 = steady::now();
      self->request(io, std::chrono::seconds(120), cmd)
          .then([=](mysql_outcome& o) { rec->put(id, o, steady::now() - t0); },
                [=](caf::error& e) {
                  mysql_outcome o;
                  o.error_kind = "caf";
                  o.error = caf::to_string(e);
                  rec->put(id, o, steady::now() - t0);
                });
    });
  }
};

/// Polls `pred` every 10 ms until it holds or `limit` passed.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds limit = 10000ms) {
  auto until = steady::now() + limit;
  while (steady::now() < until) {
    if (pred()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return pred();
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(site_io_lanes, fixture)

// Old design: four shared workers, so four blackholed targets held every worker and a command
// for a healthy target waited out their timeouts.
BOOST_AUTO_TEST_CASE(a_blackholed_target_never_delays_another_target) {
  auto io = spawn_site_io(sys);
  std::vector<std::unique_ptr<blackhole>> dark;
  for (int i = 0; i < 6; ++i) dark.push_back(std::make_unique<blackhole>());
  for (int i = 0; i < 6; ++i) ask(io, i, command(mysql_op::probe, dark[i]->port(), 4000ms));
  // At least four dark targets hold a command now (the old design's whole pool); commands for
  // other targets must still answer at once.
  BOOST_TEST_REQUIRE(eventually([&] {
    int n = 0;
    for (auto& d : dark) n += d->accepted();
    return n >= 4;
  }));
  for (int i = 0; i < 8; ++i) {
    auto op = i % 2 == 0 ? mysql_op::probe : mysql_op::fence;
    ask(io, 100 + i, command(op, closed_port(), 4000ms));
  }
  for (int i = 0; i < 8; ++i) {
    auto got = a->wait(100 + i);
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->out.error_kind == "refused", got->out.error);
    BOOST_TEST(got->took.count() < 2000, "command " << i << " took " << got->took.count() << " ms");
  }
  for (int i = 0; i < 6; ++i) {
    auto got = a->wait(i);
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(!got->out.ok);
    BOOST_TEST(got->took.count() >= 3000, "blackholed probe answered after " << got->took.count());
  }
  caf::anon_send_exit(io, caf::exit_reason::user_shutdown);
}

// A command whose caller gave up while it waited behind a hung one must never touch the server.
BOOST_AUTO_TEST_CASE(an_abandoned_command_never_runs) {
  auto io = spawn_site_io(sys);
  blackhole b;
  ask(io, 1, command(mysql_op::probe, b.port(), 2000ms));
  BOOST_TEST_REQUIRE(eventually([&] { return b.accepted() == 1; }));
  // Queued behind the hung probe; its caller stops waiting after 300 ms.
  auto fence = command(mysql_op::fence, b.port(), 2000ms);
  fence.deadline = steady::now() + 300ms;
  ask(io, 2, fence);
  // Already past its deadline when it arrives.
  auto late = command(mysql_op::promote, b.port(), 2000ms);
  late.deadline = steady::now() - 1ms;
  ask(io, 3, late);
  auto late_answer = a->wait(3);
  BOOST_TEST_REQUIRE(late_answer.has_value());
  BOOST_TEST(late_answer->out.error_kind == "abandoned", late_answer->out.error);
  auto first = a->wait(1);
  BOOST_TEST_REQUIRE(first.has_value());
  BOOST_TEST(!first->out.ok);
  auto dropped = a->wait(2);
  BOOST_TEST_REQUIRE(dropped.has_value());
  BOOST_TEST(dropped->out.error_kind == "abandoned", dropped->out.error);
  BOOST_TEST(dropped->out.error.find("fence") != std::string::npos);
  // The lane is free again: nothing else connected, neither the fence nor the promote.
  std::this_thread::sleep_for(500ms);
  BOOST_TEST(b.accepted() == 1);
  // The lane still works for a caller that waits.
  ask(io, 4, command(mysql_op::probe, b.port(), 500ms));
  BOOST_TEST_REQUIRE(a->wait(4).has_value());
  BOOST_TEST(b.accepted() == 2);
  caf::anon_send_exit(io, caf::exit_reason::user_shutdown);
}

// A hung target's lane holds one running command and at most lane_queue waiting ones; the rest
// are answered "overload" at once, and waiting commands whose deadline passed make room.
BOOST_AUTO_TEST_CASE(a_hung_targets_queue_is_bounded) {
  auto io = spawn_site_io(sys);
  const size_t bound = site_io_config{}.lane_queue;
  blackhole b;
  ask(io, 0, command(mysql_op::probe, b.port(), 3000ms));
  BOOST_TEST_REQUIRE(eventually([&] { return b.accepted() == 1; }));
  const int extra = 40;
  for (int i = 1; i <= extra; ++i) {
    auto c = command(mysql_op::probe, b.port(), 3000ms);
    c.deadline = steady::now() + 800ms;
    ask(io, i, c);
  }
  BOOST_TEST_REQUIRE(eventually([&] { return a->count_kind("overload") >= extra - bound; }, 2000ms),
                     "overload answers: " << a->count_kind("overload"));
  BOOST_TEST(a->count_kind("overload") == extra - bound);
  for (int i = 1; i <= extra; ++i) {
    std::lock_guard<std::mutex> g(a->m);
    if (a->got.count(i) && a->got[i].out.error_kind == "overload")
      BOOST_TEST(a->got[i].took.count() < 1500);
  }
  // The waiting ones expire (800 ms) while the probe still hangs: a new command is admitted
  // (room made by dropping them), and every expired one is answered "abandoned".
  std::this_thread::sleep_for(1000ms);
  auto fresh = command(mysql_op::probe, b.port(), 3000ms);
  ask(io, 1000, fresh);
  BOOST_TEST_REQUIRE(eventually([&] { return a->count_kind("abandoned") == bound; }, 3000ms),
                     "abandoned answers: " << a->count_kind("abandoned"));
  auto got = a->wait(1000);
  BOOST_TEST_REQUIRE(got.has_value());
  BOOST_TEST(got->out.error_kind != "overload");
  BOOST_TEST(b.accepted() == 2);  // the first probe and the fresh one; none of the expired
  caf::anon_send_exit(io, caf::exit_reason::user_shutdown);
}

// Leadership ended (S8): commands decided under an older generation are refused, waiting ones
// included, and never reach the server; the current generation still runs.
BOOST_AUTO_TEST_CASE(commands_of_an_ended_leadership_are_refused) {
  auto io = spawn_site_io(sys);
  blackhole b;
  auto gen = [&](uint64_t g, mysql_op op) {
    auto c = command(op, b.port(), 2000ms);
    c.leader_generation = g;
    return c;
  };
  ask(io, 1, gen(1, mysql_op::probe));
  BOOST_TEST_REQUIRE(eventually([&] { return b.accepted() == 1; }));
  ask(io, 2, gen(1, mysql_op::promote));  // waits behind the hung probe
  std::this_thread::sleep_for(200ms);
  caf::anon_send(io, leader_floor_atom::value, uint64_t{2});
  auto waiting = a->wait(2, 5s);
  BOOST_TEST_REQUIRE(waiting.has_value());
  BOOST_TEST(waiting->out.error_kind == "stale_generation", waiting->out.error);
  BOOST_TEST(waiting->took.count() < 1500, "refused after " << waiting->took.count() << " ms");
  // Arriving after the floor rose: refused at once; the floor never falls.
  caf::anon_send(io, leader_floor_atom::value, uint64_t{1});
  ask(io, 3, gen(0, mysql_op::fence));
  ask(io, 4, gen(1, mysql_op::fence));
  for (int id : {3, 4}) {
    auto got = a->wait(id);
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->out.error_kind == "stale_generation", got->out.error);
  }
  BOOST_TEST_REQUIRE(a->wait(1).has_value());
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(b.accepted() == 1);  // only the probe that was already running
  ask(io, 5, gen(2, mysql_op::probe));
  BOOST_TEST_REQUIRE(a->wait(5).has_value());
  BOOST_TEST(a->wait(5)->out.error_kind != "stale_generation");
  BOOST_TEST(b.accepted() == 2);
  caf::anon_send_exit(io, caf::exit_reason::user_shutdown);
}

// Workers are bounded: at max_workers a target's command waits for a worker (it is not refused),
// and gets one as soon as another target's command is done.
BOOST_AUTO_TEST_CASE(workers_are_bounded_and_a_command_waits_for_one) {
  site_io_config c;
  c.max_workers = 2;
  c.min_workers = 1;
  c.grow_after = 50ms;
  auto io = spawn_site_io(sys, c);
  blackhole b1, b2;
  ask(io, 1, command(mysql_op::probe, b1.port(), 2000ms));
  ask(io, 2, command(mysql_op::probe, b2.port(), 2000ms));
  // The second one got the second worker after waiting grow_after.
  BOOST_TEST_REQUIRE(eventually([&] { return b1.accepted() == 1 && b2.accepted() == 1; }));
  ask(io, 3, command(mysql_op::probe, closed_port(), 2000ms));
  auto waited = a->wait(3);
  BOOST_TEST_REQUIRE(waited.has_value());
  BOOST_TEST(waited->out.error_kind == "refused", waited->out.error);
  BOOST_TEST(waited->took.count() >= 1000, "ran after " << waited->took.count() << " ms");
  BOOST_TEST_REQUIRE(a->wait(1).has_value());
  BOOST_TEST_REQUIRE(a->wait(2).has_value());
  caf::anon_send_exit(io, caf::exit_reason::user_shutdown);
}

// Targets tracked at once are bounded: a new target takes the place of an idle one, and is
// answered "overload" only while every tracked target has work.
BOOST_AUTO_TEST_CASE(lanes_are_bounded_and_idle_ones_are_reused) {
  site_io_config c;
  c.max_lanes = 2;
  auto io = spawn_site_io(sys, c);
  blackhole b1, b2;
  ask(io, 1, command(mysql_op::probe, b1.port(), 2000ms));
  ask(io, 2, command(mysql_op::probe, b2.port(), 2000ms));
  BOOST_TEST_REQUIRE(eventually([&] { return b1.accepted() == 1 && b2.accepted() == 1; }));
  auto closed = closed_port();
  ask(io, 3, command(mysql_op::probe, closed, 2000ms));
  auto busy = a->wait(3);
  BOOST_TEST_REQUIRE(busy.has_value());
  BOOST_TEST(busy->out.error_kind == "overload", busy->out.error);
  BOOST_TEST_REQUIRE(a->wait(1).has_value());
  BOOST_TEST_REQUIRE(a->wait(2).has_value());
  ask(io, 4, command(mysql_op::probe, closed, 2000ms));
  auto later = a->wait(4);
  BOOST_TEST_REQUIRE(later.has_value());
  BOOST_TEST(later->out.error_kind == "refused", later->out.error);
  caf::anon_send_exit(io, caf::exit_reason::user_shutdown);
}

// Beyond min_workers the pool grows only for a target that waited grow_after: many hung targets
// cost a short wait, never their timeout.
BOOST_AUTO_TEST_CASE(the_pool_grows_for_targets_held_up_by_hung_ones) {
  site_io_config c;
  c.min_workers = 2;
  c.grow_after = 100ms;
  auto io = spawn_site_io(sys, c);
  std::vector<std::unique_ptr<blackhole>> dark;
  for (int i = 0; i < 5; ++i) dark.push_back(std::make_unique<blackhole>());
  for (int i = 0; i < 5; ++i) ask(io, i, command(mysql_op::probe, dark[i]->port(), 4000ms));
  BOOST_TEST_REQUIRE(eventually([&] {
    int n = 0;
    for (auto& d : dark) n += d->accepted();
    return n == 5;
  }, 3000ms));
  for (int i = 0; i < 4; ++i) ask(io, 100 + i, command(mysql_op::probe, closed_port(), 4000ms));
  for (int i = 0; i < 4; ++i) {
    auto got = a->wait(100 + i);
    BOOST_TEST_REQUIRE(got.has_value());
    BOOST_TEST(got->out.error_kind == "refused", got->out.error);
    BOOST_TEST(got->took.count() < 2000, "command " << i << " took " << got->took.count() << " ms");
  }
  for (int i = 0; i < 5; ++i) BOOST_TEST_REQUIRE(a->wait(i).has_value());
  caf::anon_send_exit(io, caf::exit_reason::user_shutdown);
}

// A worker that outlives its limit (3 x timeout + wedged_after) is given up: its caller hears
// "timeout" then, and the lane takes its next command only once that worker is gone, so a lane
// never runs two commands (or two threads) at once. wait_executed connects with its own 5 s
// deadline, longer than the 100 ms command timeout: a worker blocked past its limit.
BOOST_AUTO_TEST_CASE(a_wedged_worker_is_given_up_and_never_doubled) {
  site_io_config c;
  c.wedged_after = 200ms;
  auto io = spawn_site_io(sys, c);
  blackhole b;
  auto wait = command(mysql_op::wait_executed, b.port(), 100ms);
  wait.gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5";
  ask(io, 1, wait);
  BOOST_TEST_REQUIRE(eventually([&] { return b.accepted() == 1; }));
  ask(io, 2, command(mysql_op::probe, b.port(), 1000ms));
  auto given_up = a->wait(1);
  BOOST_TEST_REQUIRE(given_up.has_value());
  BOOST_TEST(given_up->out.error_kind == "timeout", given_up->out.error);
  BOOST_TEST(given_up->out.error.find("site_io worker") != std::string::npos, given_up->out.error);
  BOOST_TEST(given_up->took.count() < 3000, "given up after " << given_up->took.count() << " ms");
  // The wedged worker still blocks (5 s connect): the probe waits instead of running beside it.
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(b.accepted() == 1);
  BOOST_TEST(a->size() == 1u);
  // Another target is not held up meanwhile.
  ask(io, 3, command(mysql_op::probe, closed_port(), 1000ms));
  auto other = a->wait(3, 5s);
  BOOST_TEST_REQUIRE(other.has_value());
  BOOST_TEST(other->out.error_kind == "refused", other->out.error);
  // Once the wedged worker is gone, a fresh one runs the probe.
  auto probe = a->wait(2, 20s);
  BOOST_TEST_REQUIRE(probe.has_value());
  BOOST_TEST(probe->out.error_kind != "overload");
  BOOST_TEST(b.accepted() == 2);
  caf::anon_send_exit(io, caf::exit_reason::user_shutdown);
}

// spec.tls (issue 26): a target that must be verified but has no CA file yet is refused before
// any connection, never opened in plain text.
BOOST_AUTO_TEST_CASE(a_tls_target_without_a_ca_file_is_never_opened_in_plain_text) {
  auto io = spawn_site_io(sys);
  auto cmd = command(mysql_op::probe, closed_port(), 2000ms);
  cmd.target.tls_verify = true;
  ask(io, 1, cmd);
  auto got = a->wait(1);
  BOOST_TEST_REQUIRE(got.has_value());
  BOOST_TEST(!got->out.ok);
  BOOST_TEST(got->out.error.find("needs a CA file") != std::string::npos, got->out.error);
  BOOST_TEST(got->out.error_kind != "refused", got->out.error_kind);
}

BOOST_AUTO_TEST_SUITE_END()

// The start decision, as a table.
BOOST_AUTO_TEST_CASE(judge_start_table) {
  using site_io_detail::judge_start;
  using site_io_detail::start_verdict;
  auto now = caf::actor_clock::time_point{} + std::chrono::hours(1);
  struct row {
    uint64_t generation, floor;
    caf::actor_clock::time_point deadline;
    start_verdict want;
  };
  const row rows[] = {
      {0, 0, now + 1ms, start_verdict::run},
      {0, 0, now, start_verdict::abandoned},  // the caller stops waiting at its deadline
      {0, 0, now - 1ms, start_verdict::abandoned},
      {0, 0, caf::actor_clock::time_point{}, start_verdict::run},  // no deadline set
      {3, 3, now + 1s, start_verdict::run},
      {2, 3, now + 1s, start_verdict::stale_generation},
      {0, 1, now + 1s, start_verdict::stale_generation},
      {2, 3, now - 1s, start_verdict::stale_generation},  // a refusal names the leadership first
      {4, 3, now + 1s, start_verdict::run},
  };
  for (const auto& r : rows) {
    mysql_command c;
    c.leader_generation = r.generation;
    c.deadline = r.deadline;
    BOOST_TEST((judge_start(c, r.floor, now) == r.want),
               "generation " << r.generation << " floor " << r.floor);
  }
  mysql_target t;
  t.host = "db.example";
  t.port = 3307;
  t.user = "a";
  t.site = "a";
  auto u = t;
  u.user = "b";
  auto v = t;
  v.site = "b";
  BOOST_TEST(site_io_detail::lane_key(t) == "a@db.example:3307");
  BOOST_TEST(site_io_detail::lane_key(t) == site_io_detail::lane_key(u));  // the account
  BOOST_TEST(site_io_detail::lane_key(t) != site_io_detail::lane_key(v));
}
