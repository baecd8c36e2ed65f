// Leader election on a Lease in the API simulator: waiting, handover, and no writes after loss.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <atomic>
#include <thread>

#include "actors/operator/kube/core/leader_elector.hpp"
#include "io/kube/client.hpp"
#include "messages/atoms.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br::kube;
using namespace br::op;
using namespace std::chrono_literals;

namespace {

// Scaled-down durations (production: 15 s / 10 s / 2 s).
election_config scaled(const std::string& identity, bool release) {
  election_config c;
  c.ns = "default";
  c.name = "bloodraven.shipstream.io";
  c.identity = identity;
  c.lease_duration = 1500ms;
  c.renew_deadline = 1000ms;
  c.retry_period = 200ms;
  c.release_on_stop = release;
  return c;
}

struct candidate {
  std::shared_ptr<client> c;
  std::shared_ptr<lease_guard> guard = std::make_shared<lease_guard>();
  std::unique_ptr<caf::scoped_actor> listener;
  br::leader_elector_actor elector;
};

struct election_fixture {
  br::kube_sim::simulator sim;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};

  election_fixture() { sim.start(); }
  ~election_fixture() {}

  candidate start(const std::string& id, bool release) {
    candidate k;
    client_options co;
    co.identity = id;
    co.timeout = 1000ms;
    k.c = std::make_shared<client>(br::kube_sim::test::sim_config(sim), co);
    k.listener = std::make_unique<caf::scoped_actor>(sys);
    k.elector = sys.spawn<caf::detached>(leader_elector, k.c, scaled(id, release), k.guard,
                                         // The test's receiving end stands in for the
                                         // leadership actor (it receives leading/lost).
                                         caf::actor_cast<br::leadership_actor>(*k.listener));
    return k;
  }
  // Waits up to `within` for (leading|lost) from the candidate's elector.
  static bool got(candidate& k, bool leading, std::chrono::milliseconds within) {
    bool seen = false;
    (*k.listener)->receive(
        [&](br::leading_atom, const std::string&) { seen = leading; },
        [&](br::lost_atom, const std::string&) { seen = !leading; },
        caf::after(within) >> [] {});
    return seen;
  }
  static bool is_lease_write(const br::kube_sim::write_record& r) {
    return r.path.find("/leases") != std::string::npos;
  }
  // The first successful lease write by `id` after `from` (steady time).
  std::optional<steady::time_point> first_lease_write(const std::string& id, steady::time_point from = {}) {
    for (const auto& r : sim.writes())
      if (r.identity == id && is_lease_write(r) && r.status < 300 && r.mono >= from) return r.mono;
    return std::nullopt;
  }
  std::optional<steady::time_point> last_ok_write(const std::string& id) {
    std::optional<steady::time_point> last;
    for (const auto& r : sim.writes())
      if (r.identity == id && r.status < 300) last = r.mono;
    return last;
  }
  json lease() {
    client c{br::kube_sim::test::sim_config(sim)};
    auto l = c.get(resources::leases, "default", "bloodraven.shipstream.io");
    BOOST_REQUIRE(l.ok());
    return *l;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(leader_election, election_fixture)

BOOST_AUTO_TEST_CASE(second_waits_and_takes_over_after_the_first_dies) {
  auto a = start("pod-a", false);
  BOOST_REQUIRE(got(a, true, 10s));
  BOOST_TEST(a.guard->valid());
  auto b = start("pod-b", false);
  // Longer than the lease duration: A keeps renewing, so B must keep waiting.
  BOOST_TEST(!got(b, true, 2500ms));
  BOOST_TEST(!b.guard->valid());
  BOOST_TEST(lease()["spec"]["holderIdentity"] == "pod-a");

  const auto crashed = steady::now();
  caf::anon_send_exit(a.elector, caf::exit_reason::kill);  // no release: a crash
  BOOST_REQUIRE(got(b, true, 10s));
  const auto handover = std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - crashed);
  BOOST_TEST_MESSAGE("handover after crash took " << handover.count() << " ms (lease 1500 ms)");
  auto a_last = last_ok_write("pod-a");
  auto b_first = first_lease_write("pod-b");
  BOOST_REQUIRE(a_last && b_first);
  // B took the lease only after A's record had been unchanged for a full lease duration.
  BOOST_TEST((*b_first - *a_last) >= std::chrono::milliseconds{1500});
  const json l = lease();
  BOOST_TEST(l["spec"]["holderIdentity"] == "pod-b");
  BOOST_TEST(l["spec"]["leaseTransitions"] == 1);
  caf::anon_send_exit(b.elector, caf::exit_reason::kill);
}

BOOST_AUTO_TEST_CASE(clean_stop_releases_the_lease_for_a_fast_handover) {
  auto a = start("pod-a", true);
  BOOST_REQUIRE(got(a, true, 10s));
  auto b = start("pod-b", true);
  BOOST_TEST(!got(b, true, 500ms));
  const auto stopped = steady::now();
  caf::anon_send(a.elector, br::stop_atom::value);
  BOOST_REQUIRE(got(b, true, 10s));
  const auto handover = std::chrono::duration_cast<std::chrono::milliseconds>(steady::now() - stopped);
  BOOST_TEST_MESSAGE("handover after release took " << handover.count() << " ms");
  BOOST_TEST(!a.guard->valid());
  // The release is visible in the write log as A's last write, with an empty holder.
  json released;
  for (const auto& r : sim.writes())
    if (r.identity == "pod-a" && r.status < 300) released = r.object;
  BOOST_TEST(released["spec"]["holderIdentity"] == "");
  BOOST_TEST(lease()["spec"]["holderIdentity"] == "pod-b");
  caf::anon_send(b.elector, br::stop_atom::value);
}

BOOST_AUTO_TEST_CASE(partitioned_leader_stops_writing_before_it_can_be_replaced) {
  auto a = start("pod-a", false);
  BOOST_REQUIRE(got(a, true, 10s));
  // A does "group work" (writes a ConfigMap) only while its lease guard is valid.
  {
    client setup{br::kube_sim::test::sim_config(sim)};
    BOOST_REQUIRE(setup.create(resources::configmaps, "default",
                               {{"metadata", {{"name", "work"}}}, {"data", {{"n", "0"}}}}).ok());
  }
  std::atomic<bool> stop_work{false};
  std::atomic<int> work_done{0};
  std::thread worker([&] {
    for (int i = 1; !stop_work; ++i) {
      if (a.guard->valid()) {
        auto r = a.c->merge_patch(resources::configmaps, "default", "work", {{"data", {{"n", std::to_string(i)}}}},
                                  {}, std::max(1ms, a.guard->remaining()));
        if (r.ok()) ++work_done;
      }
      std::this_thread::sleep_for(20ms);
    }
  });
  auto b = start("pod-b", false);
  BOOST_TEST(!got(b, true, 1000ms));
  // Partition A from the API server: every request of A fails from now on.
  sim.set_failure_rule([](const std::string&, const std::string&, const std::string& identity) {
    return identity == "pod-a" ? 503 : 0;
  });
  BOOST_REQUIRE(got(a, false, 10s));
  const auto a_lost = steady::now();
  BOOST_REQUIRE(got(b, true, 10s));
  stop_work = true;
  worker.join();
  BOOST_TEST(work_done.load() > 0);
  auto b_first = first_lease_write("pod-b");
  BOOST_REQUIRE(b_first.has_value());
  BOOST_TEST((a_lost < *b_first));
  // The write log: nothing from A — lease renewals or group work, served or refused — arrived
  // after B took over.
  int a_writes = 0, late = 0;
  for (const auto& r : sim.writes()) {
    if (r.identity != "pod-a") continue;
    ++a_writes;
    if (r.mono >= *b_first) ++late;
  }
  BOOST_TEST(a_writes > 0);
  BOOST_TEST(late == 0);
  BOOST_TEST(lease()["spec"]["holderIdentity"] == "pod-b");
  caf::anon_send_exit(b.elector, caf::exit_reason::kill);
}

BOOST_AUTO_TEST_SUITE_END()
