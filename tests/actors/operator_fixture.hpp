// Shared fixture of the operator actor tests: a group supervisor over the mock site_io, the
// recording platform and a stub executor factory, all in virtual time.
#pragma once

#include <boost/test/unit_test.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "actors/common/registry.hpp"
#include "io/log/log.hpp"
#include "actors/operator/group/group_supervisor.hpp"
#include "tests/support/det_fixture.hpp"
#include "tests/support/recording_platform.hpp"

namespace br {
// Printable enums for BOOST_TEST messages.
inline std::ostream& operator<<(std::ostream& os, plan_kind k) { return os << to_string(k); }
inline std::ostream& operator<<(std::ostream& os, plan_phase p) { return os << to_string(p); }
inline std::ostream& operator<<(std::ostream& os, mysql_op op) { return os << to_string(op); }
}  // namespace br

namespace br::test {

using namespace std::chrono_literals;

/// A plan result as an executor would send it.
inline plan_result result_of(uint64_t id, bool ok, const std::string& promotion_gtid = "",
                             const std::string& error = "") {
  plan_result r;
  r.id = id;
  r.ok = ok;
  r.reached = ok ? plan_phase::done : plan_phase::failed;
  r.error = error;
  r.promotion_gtid = promotion_gtid;
  return r;
}

inline const std::string U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
inline const std::string U2 = "4e11fa47-71ca-11e1-9e33-c80aa9429562";
inline const std::string U3 = "5e11fa47-71ca-11e1-9e33-c80aa9429562";

/// What the stub executor factory saw.
struct executor_record {
  std::vector<failover_plan> plans;
  std::vector<executor_deps> deps;
  std::vector<executor_actor> executors;
};

struct operator_fixture : det_fixture {
  recording_platform platform = spawn_recording_platform(sys);
  std::shared_ptr<site_io_record> io_rec = std::make_shared<site_io_record>();
  site_io_actor io = spawn_mock_site_io(sys, io_rec);
  std::shared_ptr<executor_record> exec = std::make_shared<executor_record>();
  caf::actor_clock::time_point mono_base = sched.clock().now();
  wall_time wall_base = wall_time(std::chrono::hours(24 * 365 * 50));
  config::group_spec spec;
  caf::actor sup;
  const topology* topo = nullptr;  ///< null: async replication
  /// Sidecar HTTP (view pushes, epoch recovery) and the operator's keys; empty: none.
  std::function<http_worker_actor()> http_worker;
  std::shared_ptr<const auth::key_ring> keys;

  operator_fixture() {
    log::set_level(log::level::error);
    spec.poll_interval = 2s;
    spec.failure_threshold = 3;
    spec.recovery_threshold = 2;
    spec.failover_cooldown = 5min;
  }

  ~operator_fixture() {
    if (sup) self->send_exit(sup, caf::exit_reason::kill);
    for (auto& e : exec->executors) self->send_exit(e, caf::exit_reason::kill);
    self->send_exit(io, caf::exit_reason::kill);
    stop_recording_platform(platform);
    run();
  }

  void add_site(const std::string& name, site_role role) {
    config::site_spec s;
    s.name = name;
    s.role = role;
    s.lb_ip = "10.0.0." + std::to_string(spec.sites.size() + 1);
    spec.sites.push_back(s);
  }

  wall_time wall_now() const { return wall_base + (sched.clock().now() - mono_base); }

  void start() {
    sup = spawn_group_supervisor(sys, "root/group:g", "g", spec, credentials(), runtime());
    run();
  }

  group_credentials credentials() const { return {"bloodraven", "secretpw", "repl", "replpw", nullptr, ""}; }

  /// The runtime start() gives the group: mock site_io, recording platform, stub executors.
  group_runtime runtime() {
    group_runtime rt;
    rt.site_io = io;
    rt.topo = topo;
    rt.platform = platform.handles;
    rt.namespace_name = "test";
    auto rec = exec;
    rt.make_executor = [rec](caf::local_actor* parent, failover_plan plan,
                             executor_deps deps) -> executor_actor {
      rec->plans.push_back(plan);
      rec->deps.push_back(deps);
      // A recording stand-in: ignores its timers and stays alive until killed.
      auto h = parent->spawn([](executor_actor::pointer) -> executor_actor::behavior_type {
        return {[](begin_atom) {}, [](deadline_atom, uint64_t) {}, [](gate_atom, uint64_t) {},
                [](retry_atom, uint64_t) {}, [](push_atom, const std::string&, uint64_t) {}};
      });
      rec->executors.push_back(h);
      return h;
    };
    rt.wall_clock = [this] { return wall_now(); };
    rt.http_worker = http_worker;
    rt.keys = keys;
    return rt;
  }

  /// Advances virtual time one poll interval at a time.
  void polls(int n) {
    for (int i = 0; i < n; ++i) advance(spec.poll_interval);
  }

  caf::actor child(const std::string& name) {
    caf::actor result;
    self->send(sup, child_atom::value, name);
    run();
    self->receive([&](caf::actor& a) { result = a; },
                  [&](caf::error& e) { BOOST_TEST_MESSAGE("child " << name << ": " << to_string(e)); },
                  caf::after(std::chrono::seconds(0)) >> [&] { BOOST_TEST_MESSAGE("child " << name << ": no answer"); });
    return result;
  }

  coordinator_actor coord() { return caf::actor_cast<coordinator_actor>(child("coordinator")); }

  topology_view view() {
    topology_view v;
    v.epoch = 999999;
    self->send(coord(), view_atom::value);
    run();
    self->receive([&](topology_view& x) { v = x; }, caf::after(std::chrono::seconds(0)) >> [] {});
    return v;
  }

  std::string annotate(const std::string& key, const std::string& value) {
    std::string answer = "(none)";
    self->send(coord(), annotate_atom::value, key, value);
    run();
    self->receive([&](std::string& s) { answer = s; },
                  caf::after(std::chrono::seconds(0)) >> [] {});
    return answer;
  }

  /// Seeds the store's "disk" (what the coordinator loads at start).
  void preset(durable_state d) {
    platform.rec->disk = std::move(d);
    platform.rec->has_disk = true;
  }

  std::string gtid(const std::string& uuid, int first, int last) {
    return uuid + ":" + std::to_string(first) + "-" + std::to_string(last);
  }

  void check_no_unexpected() {
    BOOST_TEST(io_rec->unexpected.empty());
    BOOST_TEST(platform.rec->unexpected.empty());
  }
};

}  // namespace br::test
