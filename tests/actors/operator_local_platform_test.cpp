// Local platform: the fsynced state file (round trip, atomic replace, corrupt file is an error),
// the state store actor, the status writer skipping identical writes, DNS file + hook with timeout.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "actors/operator/local/local_platform.hpp"
#include "config/group_status.hpp"

using namespace br;
namespace fs = std::filesystem;

namespace {

/// A status whose JSON names `site` as active (the file holds that JSON).
config::group_status status_naming(const std::string& site) {
  config::group_status s;
  s.active_site = site;
  return s;
}

struct temp_dir {
  fs::path path;
  temp_dir() {
    path = fs::temp_directory_path() /
           ("br-local-platform-" + std::to_string(::getpid()) + "-" + std::to_string(counter()++));
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string file(const std::string& name) const { return (path / name).string(); }
};

std::string read_all(const std::string& p) {
  std::ifstream in(p);
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

durable_state sample() {
  durable_state s;
  s.view = {42, "b", "", 1700000000123, {}};
  s.last_failover_ms = 1700000000000;
  s.last_failover_target = "b";
  s.promotion_gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-10";
  s.plan_active = true;
  s.plan.id = 9;
  s.plan.kind = plan_kind::reclone;
  s.plan.group = "orders";
  s.plan.epoch = 41;
  s.plan.candidate = "a";
  s.plan.old_primary = "c";
  s.plan.old_primary_reachable = true;
  s.plan.followers = {"c", "d"};
  s.plan.phase = plan_phase::repointing;
  s.plan.promotion_gtid = "x";
  s.plan.policy = gate_policy::fast;
  s.plan.drain_timeout = std::chrono::seconds(17);
  s.plan.step_timeout = std::chrono::milliseconds(2500);
  s.plan.gate_timeout = std::chrono::minutes(3);
  s.recovery["a"] = {"RecoveryBlocked", "3e11fa47-71ca-11e1-9e33-c80aa9429562:11-12", 2};
  return s;
}

void check_equal(const durable_state& a, const durable_state& b) {
  BOOST_TEST(a.view.epoch == b.view.epoch);
  BOOST_TEST(a.view.active_site == b.view.active_site);
  BOOST_TEST(a.view.deposing == b.view.deposing);
  BOOST_TEST(a.view.observed_at_ms == b.view.observed_at_ms);
  BOOST_TEST(a.last_failover_ms == b.last_failover_ms);
  BOOST_TEST(a.last_failover_target == b.last_failover_target);
  BOOST_TEST(a.promotion_gtid == b.promotion_gtid);
  BOOST_TEST(a.plan_active == b.plan_active);
  BOOST_TEST(a.plan.id == b.plan.id);
  BOOST_TEST((a.plan.kind == b.plan.kind));
  BOOST_TEST(a.plan.group == b.plan.group);
  BOOST_TEST(a.plan.epoch == b.plan.epoch);
  BOOST_TEST(a.plan.candidate == b.plan.candidate);
  BOOST_TEST(a.plan.old_primary == b.plan.old_primary);
  BOOST_TEST(a.plan.old_primary_reachable == b.plan.old_primary_reachable);
  BOOST_TEST(a.plan.followers == b.plan.followers);
  BOOST_TEST((a.plan.phase == b.plan.phase));
  BOOST_TEST(a.plan.promotion_gtid == b.plan.promotion_gtid);
  BOOST_TEST((a.plan.policy == b.plan.policy));
  BOOST_TEST(a.plan.drain_timeout.count() == b.plan.drain_timeout.count());
  BOOST_TEST(a.plan.step_timeout.count() == b.plan.step_timeout.count());
  BOOST_TEST(a.plan.gate_timeout.count() == b.plan.gate_timeout.count());
  BOOST_REQUIRE_EQUAL(a.recovery.size(), b.recovery.size());
  for (const auto& [site, r] : a.recovery) {
    BOOST_TEST(r.state == b.recovery.at(site).state);
    BOOST_TEST(r.divergent_gtid == b.recovery.at(site).divergent_gtid);
    BOOST_TEST(r.divergent_count == b.recovery.at(site).divergent_count);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(state_file_round_trip) {
  temp_dir d;
  auto p = d.file("g.state.json");
  auto missing = load_state_file(p);
  BOOST_REQUIRE(missing);
  BOOST_TEST(missing->view.epoch == 0u);
  BOOST_TEST(!missing->plan_active);
  BOOST_REQUIRE(!save_state_file(p, sample()));
  auto back = load_state_file(p);
  BOOST_REQUIRE(back);
  check_equal(*back, sample());
}

BOOST_AUTO_TEST_CASE(state_file_is_replaced_atomically) {
  temp_dir d;
  auto p = d.file("g.state.json");
  auto first = sample();
  BOOST_REQUIRE(!save_state_file(p, first));
  auto second = sample();
  second.view.epoch = 43;
  second.view.active_site = "a";
  BOOST_REQUIRE(!save_state_file(p, second));
  BOOST_TEST(!fs::exists(p + ".tmp"));  // the temp file was renamed, not left behind
  auto back = load_state_file(p);
  BOOST_REQUIRE(back);
  BOOST_TEST(back->view.epoch == 43u);
  BOOST_TEST(back->view.active_site == "a");
  // A crash between writing the temp file and the rename leaves the old state intact.
  { std::ofstream(p + ".tmp") << "{ half written"; }
  auto still = load_state_file(p);
  BOOST_REQUIRE(still);
  BOOST_TEST(still->view.epoch == 43u);
}

BOOST_AUTO_TEST_CASE(corrupt_state_file_is_an_error_not_a_fresh_state) {
  temp_dir d;
  auto p = d.file("g.state.json");
  { std::ofstream(p) << "{\"view\": {\"epoch\": 7"; }
  auto r = load_state_file(p);
  BOOST_TEST(!r);
  BOOST_TEST(to_string(r.error()).find("corrupt") != std::string::npos);
  // Valid JSON without the members is corrupt too.
  { std::ofstream(p) << "{\"view\": {\"epoch\": 7}}"; }
  auto r2 = load_state_file(p);
  BOOST_TEST(!r2);
  // A wrong type.
  BOOST_REQUIRE(!save_state_file(p, sample()));
  auto text = read_all(p);
  auto pos = text.find("\"epoch\": 42");
  BOOST_REQUIRE(pos != std::string::npos);
  text.replace(pos, 11, "\"epoch\": \"x\"");
  { std::ofstream(p) << text; }
  BOOST_TEST(!load_state_file(p));
}

BOOST_AUTO_TEST_CASE(store_actor_persists_and_loads_and_reports_corruption) {
  temp_dir d;
  caf::actor_system_config cfg;
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  auto store = spawn_file_state_store(sys, d.path.string());
  caf::scoped_actor self{sys};
  bool ok = false;
  self->request(store, std::chrono::seconds(10), persist_atom::value, std::string("g"), sample())
      .receive([&](bool b) { ok = b; }, [&](caf::error&) {});
  BOOST_TEST(ok);
  durable_state loaded;
  self->request(store, std::chrono::seconds(10), load_atom::value, std::string("g"))
      .receive([&](durable_state& s) { loaded = s; }, [&](caf::error&) {});
  check_equal(loaded, sample());
  { std::ofstream(d.file("h.state.json")) << "garbage"; }
  bool failed = false;
  self->request(store, std::chrono::seconds(10), load_atom::value, std::string("h"))
      .receive([&](durable_state&) {}, [&](caf::error&) { failed = true; });
  BOOST_TEST(failed);
  self->send_exit(store, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(status_writer_skips_identical_writes_and_dns_runs_its_hook) {
  temp_dir d;
  caf::actor_system_config cfg;
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system sys{cfg};
  local_platform_config pc;
  pc.dir = d.path.string();
  auto marker = d.file("hook.out");
  pc.dns_hook = "echo \"$BR_GROUP $BR_SITE $BR_TARGET\" >> " + marker;
  pc.hook_timeout = std::chrono::seconds(10);
  auto p = spawn_local_platform(sys, pc);
  caf::scoped_actor self{sys};
  auto status_file = d.file("g.status.json");
  self->send(p.handles.status, status_atom::value, std::string("g"), status_naming("a"));
  bool dns_ok = false;
  self->request(p.handles.dns, std::chrono::seconds(20), dns_atom::value, std::string("g"),
                std::string("b"), std::string("10.0.0.2"))
      .receive([&](bool b) { dns_ok = b; }, [&](caf::error&) {});
  BOOST_TEST(dns_ok);
  BOOST_TEST(read_all(d.file("g.dns")) == "10.0.0.2\n");
  BOOST_TEST(read_all(marker) == "g b 10.0.0.2\n");
  // The status actor handled its message before ours? Ask it through a round trip: send the same
  // JSON again after changing the file by hand; an identical write must not restore it.
  for (int i = 0; i < 200 && !fs::exists(status_file); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  BOOST_REQUIRE(fs::exists(status_file));
  BOOST_TEST(read_all(status_file) == "{\"activeSite\":\"a\",\"epoch\":0}\n");
  { std::ofstream(status_file) << "touched"; }
  self->send(p.handles.status, status_atom::value, std::string("g"), status_naming("a"));
  self->send(p.handles.status, status_atom::value, std::string("g"), status_naming("b"));
  for (int i = 0; i < 200 && read_all(status_file) != "{\"activeSite\":\"b\",\"epoch\":0}\n"; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  BOOST_TEST(read_all(status_file) == "{\"activeSite\":\"b\",\"epoch\":0}\n");
  stop_local_platform(p);
}

BOOST_AUTO_TEST_CASE(hooks_are_killed_at_their_deadline) {
  auto r = run_hook("sleep 30", {}, std::chrono::milliseconds(200));
  BOOST_TEST(!r);
  auto ok = run_hook("test \"$X\" = 5", {{"X", "5"}}, std::chrono::seconds(10));
  BOOST_REQUIRE(ok);
  BOOST_TEST(*ok == 0);
  auto bad = run_hook("exit 3", {}, std::chrono::seconds(10));
  BOOST_REQUIRE(bad);
  BOOST_TEST(*bad == 3);
}
