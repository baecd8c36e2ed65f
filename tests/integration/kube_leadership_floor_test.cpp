// Kubernetes mode's leadership generation (docs/safety.md S8) against the API simulator: the
// groups' MySQL commands carry the generation they run under, and when the lease is lost the
// leadership actor raises site_io's floor before it stops the groups, so nothing decided under
// the lost leadership runs afterwards. site_io is the real one behind a recording proxy; the
// group's sites are on a closed port (every command is refused quickly).
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include "actors/common/supervisor.hpp"
#include "actors/operator/group/site_io.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "actors/operator/kube/kube_mode.hpp"
#include "io/codec/base64.hpp"
#include "io/log/log.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

/// What reached site_io: every command's generation and answer, and every floor.
struct io_record {
  std::mutex m;
  std::vector<uint64_t> generations;
  std::vector<std::string> kinds;  ///< answers' error_kind, in arrival order of the answers
  std::vector<uint64_t> floors;
  std::vector<std::string> kinds_after_floor;  ///< of commands that arrived after the floor
};

site_io_actor spawn_recording_io(caf::actor_system& sys, site_io_actor io,
                                 std::shared_ptr<io_record> rec) {
  return sys.spawn([io, rec](site_io_actor::pointer self) -> site_io_actor::behavior_type {
    return {
        [=](mysql_command& cmd) -> caf::result<mysql_outcome> {
          bool after_floor = false;
          {
            std::lock_guard<std::mutex> g(rec->m);
            rec->generations.push_back(cmd.leader_generation);
            after_floor = !rec->floors.empty();
          }
          auto rp = self->make_response_promise<mysql_outcome>();
          self->request(io, cmd.timeout + 5s, std::move(cmd))
              .then(
                  [=](mysql_outcome& o) mutable {
                    {
                      std::lock_guard<std::mutex> g(rec->m);
                      rec->kinds.push_back(o.error_kind);
                      if (after_floor) rec->kinds_after_floor.push_back(o.error_kind);
                    }
                    rp.deliver(std::move(o));
                  },
                  [=](caf::error& e) mutable { rp.deliver(caf::error(e)); });
          return rp;
        },
        [=](leader_floor_atom, uint64_t g) {
          {
            std::lock_guard<std::mutex> l(rec->m);
            rec->floors.push_back(g);
          }
          self->send(io, leader_floor_atom::value, g);
        },
        [](tick_atom) {},
    };
  });
}

json group_object(const std::string& name) {
  auto site = [&name](const std::string& n) {
    return json{{"name", n},
                {"role", "primary-candidate"},
                {"zone", "zone-" + n},
                {"storage", {{"size", "10Gi"}}},
                {"lbIP", "10.0.0.1"},
                {"taintNodeSelector", {{"shipstream.io/site." + name, n}}}};
  };
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"spec",
           {{"credentials", {{"operatorSecret", name + "-operator"}}},
            {"dns", {{"hostname", name + ".example.com"}}},
            {"pollInterval", "200ms"},
            {"failureThreshold", 2},
            {"recoveryThreshold", 1},
            {"sites", json::array({site("a"), site("b")})}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(losing_the_lease_raises_the_site_io_floor_above_the_groups_generation) {
  log::set_level(log::level::warn);
  kube_sim::simulator sim;
  sim.start();
  kube::client_options co;
  co.identity = "operator-0";
  co.timeout = 1s;
  auto c = std::make_shared<kube::client>(kube_sim::test::sim_config(sim), co);
  {
    auto crd = kube_sim::test::yaml_to_json(YAML::LoadFile(
        std::string(std::getenv("BR_SOURCE_DIR")) +
        "/charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"));
    BOOST_TEST_REQUIRE(c->create(kube::resources::crds, "", crd).ok());
    json secret = {{"apiVersion", "v1"},
                   {"kind", "Secret"},
                   {"metadata", {{"name", "g-operator"}, {"namespace", "default"}}},
                   {"data",
                    {{"username", base64_encode("bloodraven")}, {"password", base64_encode("pw")}}}};
    BOOST_TEST_REQUIRE(c->create(kube::resources::secrets, "default", secret).ok());
    BOOST_TEST_REQUIRE(c->create(mfg_resource, "default", group_object("g")).ok());
  }

  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  auto rec = std::make_shared<io_record>();
  auto real_io = spawn_site_io(sys);
  auto io = spawn_recording_io(sys, real_io, rec);

  kube_mode_options o;
  o.leader_elect = true;
  o.election.ns = "default";
  o.election.identity = "operator-0";
  o.election.lease_duration = 1500ms;
  o.election.renew_deadline = 1000ms;
  o.election.retry_period = 200ms;
  o.source.client = c;
  o.source.site_io = io;
  o.source.instance = "operator-0";
  o.source.reconcile = false;
  auto port = closed_port();
  o.source.site_address = [port](const std::string&, const std::string&, const std::string&) {
    return config::address_spec{"127.0.0.1", port};
  };
  o.source.credential_retry = 300ms;
  restart_policy once;
  once.max_restarts = 0;
  auto root = spawn_supervisor(sys, "root", once, kube_mode_children(o));

  // Leading: the group polls its sites under generation 1.
  BOOST_TEST_REQUIRE(test::eventually(
                         [&] {
                           std::lock_guard<std::mutex> g(rec->m);
                           return rec->generations.size() >= 10;
                         },
                         20s, 50ms),
                     "the group never polled");
  {
    std::lock_guard<std::mutex> g(rec->m);
    BOOST_TEST(rec->floors.empty());
    for (auto gen : rec->generations) BOOST_TEST(gen == 1u);
  }

  // Partition the operator from the API server: the lease is lost.
  sim.set_failure_rule([](const std::string&, const std::string&, const std::string& identity) {
    return identity == "operator-0" ? 503 : 0;
  });
  BOOST_TEST_REQUIRE(test::eventually(
                         [&] {
                           std::lock_guard<std::mutex> g(rec->m);
                           return !rec->floors.empty();
                         },
                         20s, 50ms),
                     "site_io's floor never rose after the lease was lost");
  // Give the groups' last commands (sent while they were being stopped) time to be answered.
  std::this_thread::sleep_for(1s);
  {
    std::lock_guard<std::mutex> g(rec->m);
    BOOST_TEST(rec->floors.front() == 2u);
    // Whatever the stopping groups still sent after the floor rose was refused by site_io
    // (the proxy forwards in order, so the floor reached site_io first).
    for (const auto& k : rec->kinds_after_floor) BOOST_TEST(k == "stale_generation");
    BOOST_TEST_MESSAGE(rec->generations.size() << " commands, " << rec->kinds_after_floor.size()
                                               << " after the floor");
  }
  // The floor is real: a command of the lost generation is refused by site_io itself.
  mysql_command cmd;
  cmd.target.site = "a";
  cmd.target.port = static_cast<uint16_t>(port);
  cmd.leader_generation = 1;
  cmd.timeout = 1s;
  self->request(real_io, 5s, cmd)
      .receive([](mysql_outcome& out) { BOOST_TEST(out.error_kind == "stale_generation"); },
               [](caf::error& e) { BOOST_FAIL(caf::to_string(e)); });
  self->send_exit(root, caf::exit_reason::user_shutdown);
  self->send_exit(io, caf::exit_reason::user_shutdown);
  self->send_exit(real_io, caf::exit_reason::user_shutdown);
  sim.stop();
}
