// The executor's bootstrap and auto_clone plans in virtual time against the simulated fleet:
// exact command sequences, the account check naming what is missing, CLONE only when needed,
// and an executor resumed mid-plan (an operator restart) that neither promotes nor clones twice.
#include <boost/test/unit_test.hpp>
#include <memory>
#include <string>
#include <vector>

#include "actors/operator/group/failover_executor.hpp"
#include "tests/actors/executor_test_support.hpp"
#include "tests/support/det_fixture.hpp"
#include "tests/support/recording_platform.hpp"

using namespace std::chrono_literals;
using namespace br;
using namespace br::test;

namespace {

const std::string U1 = "11111111-1111-1111-1111-111111111111";
const std::string U2 = "22222222-2222-2222-2222-222222222222";

struct boot_fixture : det_fixture {
  std::shared_ptr<fleet> fl = std::make_shared<fleet>();
  std::shared_ptr<coord_record> coord = std::make_shared<coord_record>();
  recording_platform platform = spawn_recording_platform(sys);
  site_io_actor io = spawn_fleet_io(sys, fl);
  coordinator_actor coordinator = spawn_recording_coordinator(sys, coord);
  std::vector<executor_actor> executors;

  boot_fixture() {
    // Fresh servers: fenced, no channel; the seed a has the application's first rows.
    fl->servers["a"] = {false, false, U1 + ":1-5", "", false};
    fl->servers["b"] = {false, false, "", "", false};
    fl->servers["c"] = {false, false, "", "", false};
  }

  ~boot_fixture() {
    for (auto& e : executors) self->send_exit(e, caf::exit_reason::kill);
    self->send_exit(io, caf::exit_reason::kill);
    self->send_exit(coordinator, caf::exit_reason::kill);
    stop_recording_platform(platform);
    run();
  }

  executor_deps deps() {
    executor_deps d;
    d.site_io = io;
    d.platform = platform.handles;
    d.coordinator = coordinator;
    d.group = "orders";
    d.sites = {"a", "b", "c"};
    uint16_t port = 4001;
    for (const auto& s : d.sites) {
      d.roles[s] = site_role::primary_candidate;
      d.targets[s] = mysql_target{s, "10.0.0." + std::to_string(port - 4000), port, "bloodraven",
                                  "opw", {}, {}, {}};
      d.lb_ips[s] = "192.0.2." + std::to_string(port - 4000);
      ++port;
    }
    d.replication = mysql_target{"", "", 0, "repl", "replpw", {}, {}, {}};
    d.registry_path = "root/group:orders";
    d.clone_timeout = 600s;
    return d;
  }

  failover_plan seed_plan() {
    failover_plan p;
    p.id = 1;
    p.kind = plan_kind::bootstrap;
    p.group = "orders";
    p.epoch = 1;
    p.candidate = "a";
    p.followers = {"b", "c"};
    p.step_timeout = 10s;
    return p;
  }

  failover_plan clone_plan(const std::string& site = "b") {
    failover_plan p;
    p.id = 2;
    p.kind = plan_kind::auto_clone;
    p.group = "orders";
    p.epoch = 2;
    p.candidate = site;
    p.source = "a";
    p.step_timeout = 10s;
    return p;
  }

  void start(failover_plan plan) {
    auto holder = std::make_shared<executor_actor>();
    auto d = deps();
    sys.spawn([holder, plan, d](caf::event_based_actor* parent) {
      *holder = spawn_failover_executor(parent, plan, d);
    });
    run();
    executors.push_back(*holder);
  }

  const plan_result& only_result() {
    BOOST_TEST_REQUIRE(coord->done.size() == 1u);
    return coord->done.front();
  }

  std::string log() const {
    std::string s;
    for (const auto& l : fl->log) s += l + "\n";
    return s;
  }
};

std::string lines(std::initializer_list<const char*> l) {
  std::string s;
  for (auto x : l) s += std::string(x) + "\n";
  return s;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(executor_bootstrap, boot_fixture)

BOOST_AUTO_TEST_CASE(bootstrap_verifies_accounts_then_promotes_the_seed) {
  start(seed_plan());
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(log() == lines({"show_grants a", "show_grants a", "show_grants b", "show_grants b",
                             "show_grants c", "show_grants c",  // operator + replication each
                             "stop_replica a", "probe a", "reset_replica_all a", "read_gtid a",
                             "promote_switch a", "probe a"}));
  // The second SHOW GRANTS of each site runs as the replication account.
  BOOST_TEST(fl->commands[1].target.user == "repl");
  BOOST_TEST(fl->commands[0].target.user == "bloodraven");
  BOOST_TEST(fl->servers["a"].writable);
  BOOST_TEST(r.promotion_gtid == U1 + ":1-5");
}

BOOST_AUTO_TEST_CASE(a_missing_privilege_fails_the_bootstrap_naming_account_and_privilege) {
  fl->servers["b"].grants = {"GRANT REPLICATION SLAVE ON *.* TO `repl`@`%`"};
  start(seed_plan());
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.error.find("operator account 'bloodraven' on b lacks the global privileges "
                          "SYSTEM_VARIABLES_ADMIN") != std::string::npos,
             r.error);
  BOOST_TEST(fl->count("a", mysql_op::promote_switch) == 0u);
}

BOOST_AUTO_TEST_CASE(bootstrap_resumed_after_promoting_does_not_promote_again) {
  auto plan = seed_plan();
  plan.phase = plan_phase::promoting;  // persisted before the operator restarted
  fl->servers["a"].writable = true;
  start(plan);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("a", mysql_op::promote_switch) == 0u);
  BOOST_TEST(fl->count("a", mysql_op::show_grants) == 0u);
}

BOOST_AUTO_TEST_CASE(auto_clone_fences_clones_waits_and_replicates) {
  start(clone_plan());
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(r.clone_outcome == "cloned");
  BOOST_TEST(log() == lines({"fence b", "read_clone_state b", "read_gtid b", "read_gtid a",
                             "read_purged a", "read_user_tables b", "clone b",
                             "read_gtid b",  // restarting: answers again
                             "fence b",      // and is fenced again (review finding 4)
                             "stop_replica b", "reset_replica_all b", "read_gtid a",
                             "read_gtid b", "change_source b", "start_replica b", "probe b"}));
  BOOST_TEST(fl->servers["b"].gtid == U1 + ":1-5");
  BOOST_TEST(fl->servers["b"].replicating);
  BOOST_TEST(!fl->servers["b"].writable);
}

BOOST_AUTO_TEST_CASE(resumed_after_the_clone_finished_does_not_clone_twice) {
  // The operator restarted after the CLONE finished but before `cloning` was persisted: the
  // plan resumes after fencing_old, and b already holds a's set.
  fl->servers["b"].gtid = U1 + ":1-5";
  auto plan = clone_plan();
  plan.phase = plan_phase::fencing_old;
  start(plan);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("b", mysql_op::clone) == 0u);
  BOOST_TEST(r.clone_outcome.rfind("not needed", 0) == 0u, r.clone_outcome);
  BOOST_TEST(fl->servers["b"].replicating);
}

BOOST_AUTO_TEST_CASE(resumed_after_cloning_was_persisted_goes_on_with_the_restart_wait) {
  fl->servers["b"].gtid = U1 + ":1-5";
  auto plan = clone_plan();
  plan.phase = plan_phase::cloning;
  start(plan);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("b", mysql_op::clone) == 0u);
  BOOST_TEST(fl->log.front() == "read_gtid b");  // restarting: the CLONE is not run again
}

BOOST_AUTO_TEST_CASE(the_restart_wait_polls_until_the_recipient_answers) {
  auto plan = clone_plan();
  plan.phase = plan_phase::cloning;
  fl->servers["b"].gtid = U1 + ":1-5";
  fl->servers["b"].down = true;
  start(plan);
  for (int i = 0; i < 10; ++i) advance(500ms);
  BOOST_TEST(coord->done.empty());
  BOOST_TEST(fl->count("b", mysql_op::read_gtid) >= 5u);
  fl->servers["b"].down = false;
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
}

BOOST_AUTO_TEST_CASE(resumed_during_a_running_clone_waits_for_it_instead_of_cloning_again) {
  // The operator restarted while the CLONE it issued still runs on b: the resumed plan waits
  // for it, then finds b holding a's set and only sets up replication.
  fl->servers["b"].clone_state = "In Progress";
  auto plan = clone_plan();
  plan.phase = plan_phase::fencing_old;
  start(plan);
  for (int i = 0; i < 6; ++i) advance(500ms);
  BOOST_TEST(coord->done.empty());
  BOOST_TEST(fl->count("b", mysql_op::read_clone_state) >= 3u);
  fl->servers["b"].clone_state = "Completed";
  fl->servers["b"].gtid = U1 + ":1-5";
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("b", mysql_op::clone) == 0u);
}

// An empty gtid_executed is not "no data": tables written without GTIDs (review finding 5) make
// the recipient divergent, never cloned automatically.
BOOST_AUTO_TEST_CASE(an_empty_set_with_user_tables_is_never_cloned) {
  fl->servers["b"].user_tables = "shop/orders";
  start(clone_plan());
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::cloning);
  BOOST_TEST(r.error.find("holds tables (shop/orders) but no GTIDs") != std::string::npos, r.error);
  BOOST_TEST(fl->count("b", mysql_op::clone) == 0u);
}

BOOST_AUTO_TEST_CASE(a_divergent_recipient_is_never_cloned) {
  fl->servers["b"].gtid = U1 + ":1-3," + U2 + ":1";
  start(clone_plan());
  const auto& r = only_result();
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::cloning);
  BOOST_TEST(r.error.find("transactions the donor lacks") != std::string::npos, r.error);
  BOOST_TEST(fl->count("b", mysql_op::clone) == 0u);
  BOOST_TEST(fl->count("b", mysql_op::change_source) == 0u);
}

BOOST_AUTO_TEST_CASE(a_site_behind_the_donors_purged_set_is_cloned) {
  fl->servers["a"].gtid = U1 + ":1-50";
  fl->servers["a"].purged = U1 + ":1-20";
  fl->servers["b"].gtid = U1 + ":1-10";
  start(clone_plan());
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("b", mysql_op::clone) == 1u);
}

BOOST_AUTO_TEST_CASE(a_subset_recipient_replicates_without_a_clone) {
  fl->servers["a"].gtid = U1 + ":1-50";
  fl->servers["b"].gtid = U1 + ":1-10";
  start(clone_plan());
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
  BOOST_TEST(fl->count("b", mysql_op::clone) == 0u);
  BOOST_TEST(fl->servers["b"].replicating);
}

// -- reclone (review findings 1 and 2): fenced first, its set read, cloned only when what it
// holds beyond the donor is inside what the request confirmed ------------------------------------

BOOST_AUTO_TEST_CASE(reclone_table) {
  struct row {
    const char* name;
    std::string recipient;  ///< b's gtid_executed before the plan
    std::string confirmed;  ///< plan.discard_gtid
    bool cloned;
    std::string blocked;    ///< the stranded loss recorded for b ("" = none)
  };
  const auto a5 = U1 + ":1-5";
  std::vector<row> rows = {
      {"cold reclone of an empty site", "", "", true, ""},
      {"cold reclone of a subset of the donor", U1 + ":1-3", "", true, ""},
      {"cold reclone of a site holding more: refused, blocked with it", U1 + ":1-5," + U2 + ":1-2",
       "", false, U2 + ":1-2"},
      {"prefix reclone: exactly the recorded set", U1 + ":1-5," + U2 + ":1-2", U2 + ":1-2", true,
       ""},
      {"prefix reclone: less than the recorded set", U1 + ":1-4," + U2 + ":1", U2 + ":1-2", true,
       ""},
      {"prefix reclone: more than recorded (written after the record): refused",
       U1 + ":1-5," + U2 + ":1-3", U2 + ":1-2", false, U2 + ":1-3"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      boot_fixture f;
      f.fl->servers["a"].gtid = a5;
      f.fl->servers["b"].gtid = r.recipient;
      f.fl->servers["b"].writable = true;  // whatever it was, it is fenced before anything else
      auto plan = f.clone_plan();
      plan.kind = plan_kind::reclone;
      plan.discard_gtid = r.confirmed;
      f.start(plan);
      const auto& res = f.only_result();
      BOOST_TEST(f.fl->log.front() == "fence b");
      BOOST_TEST(f.fl->count("b", mysql_op::clone) == (r.cloned ? 1u : 0u));
      BOOST_TEST(res.ok == r.cloned, res.error);
      BOOST_TEST(!f.fl->servers["b"].writable);
      if (r.cloned) {
        BOOST_TEST(f.fl->servers["b"].gtid == a5);
        BOOST_TEST(f.fl->servers["b"].replicating);
        BOOST_TEST(f.fl->count("b", mysql_op::fence) == 2u);  // again after the restart
      } else {
        BOOST_TEST(res.reached == plan_phase::cloning);
        BOOST_TEST(res.error.find("that the request did not confirm") != std::string::npos,
                   res.error);
        BOOST_REQUIRE_EQUAL(res.losses.size(), 1u);
        BOOST_TEST(res.losses[0].kind == gtid_loss_stranded);
        BOOST_TEST(res.losses[0].gtid == r.blocked);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_resumed_reclone_waits_for_a_running_clone_and_never_starts_a_second) {
  fl->servers["b"].clone_state = "In Progress";
  auto plan = clone_plan();
  plan.kind = plan_kind::reclone;
  plan.phase = plan_phase::fencing_old;
  start(plan);
  for (int i = 0; i < 6; ++i) advance(500ms);
  BOOST_TEST(coord->done.empty());
  BOOST_TEST(fl->count("b", mysql_op::read_clone_state) >= 3u);
  BOOST_TEST(fl->count("b", mysql_op::clone) == 0u);
  fl->servers["b"].clone_state = "Completed";
  fl->servers["b"].gtid = U1 + ":1-5";
  advance(1s);
  const auto& r = only_result();
  BOOST_TEST(r.ok, r.error);
}

BOOST_AUTO_TEST_SUITE_END()
