// The failover executor against three real MySQL 9.7 servers (sandbox instances 4, 5, 6 only):
// kill -9 of the primary -> the candidate is promoted (policy Fast), the dr-only site follows it,
// every acknowledged row survives; the old primary rejoins through a recover plan; an errant
// transaction on the old primary is classified divergent with exactly its set, and a reclone
// plan repairs it. Uses the real site_io (detached workers over io/mysql).
#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <caf/all.hpp>
#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "actors/operator/group/failover_executor.hpp"
#include "actors/operator/decide/recovery.hpp"
#include "actors/operator/group/site_io.hpp"
#include "io/mysql/commands.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/recording_platform.hpp"

namespace br {
/// Boost.Test prints compared values.
inline std::ostream& operator<<(std::ostream& os, plan_phase p) {
  return os << to_string(p);
}
}  // namespace br

using namespace std::chrono_literals;
using namespace br;

namespace {

constexpr int primary = 4, candidate = 5, dr = 6;

std::string site_of(int i) {
  return "s" + std::to_string(i);
}

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

mysql::connection open_or_fail(int i, const std::string& user, bool no_binlog = false) {
  auto o = sandbox().options(i, user);
  o.disable_session_binlog = no_binlog;
  auto c = mysql::connection::open(o);
  BOOST_TEST_REQUIRE(
      c.ok(), "connect " << i << " as " << user << ": " << (c.ok() ? "" : c.error().to_string()));
  return std::move(c).value();
}

void exec_ok(mysql::connection& c, const std::string& sql) {
  auto r = c.exec(sql);
  BOOST_TEST_REQUIRE(r.ok(), sql << ": " << (r.ok() ? "" : r.error().to_string()));
}

gtid_set gtids(int i) {
  auto c = open_or_fail(i, "bloodraven");
  auto g = mysql::read_gtid_executed(c, mysql::mysql8());
  BOOST_TEST_REQUIRE(g.ok(), "gtid_executed of " << i);
  return *g;
}

mysql::probe_result probe(int i) {
  auto c = open_or_fail(i, "bloodraven");
  auto p = mysql::probe(c, mysql::mysql8());
  BOOST_TEST_REQUIRE(p.ok(), "probe of " << i << ": " << (p.ok() ? "" : p.error().to_string()));
  return *p;
}

/// Waits (bounded) until instance i has executed `set`.
void wait_executed(int i, const gtid_set& set, std::chrono::seconds timeout = 30s) {
  auto r =
      mysql::wait_for_executed(sandbox().options(i, "bloodraven"), mysql::mysql8(), set, timeout);
  BOOST_TEST_REQUIRE(r.ok(), "wait on " << i << ": " << (r.ok() ? "" : r.error().to_string()));
  BOOST_TEST_REQUIRE((*r == mysql::wait_outcome::reached),
                     "instance " << i << " did not reach " << set.to_string());
}

/// Keys of the rows present in appdb.failover_rows on instance i.
std::vector<std::string> rows_on(int i) {
  auto c = open_or_fail(i, "root");
  auto q = c.query("SELECT k FROM appdb.failover_rows ORDER BY k");
  BOOST_TEST_REQUIRE(q.ok(), "select on " << i << ": " << (q.ok() ? "" : q.error().to_string()));
  std::vector<std::string> keys;
  for (auto& row : q->rows) keys.push_back(row[0].value_or(""));
  return keys;
}

bool contains_all(const std::vector<std::string>& have, const std::vector<std::string>& want) {
  for (auto& w : want)
    if (std::find(have.begin(), have.end(), w) == have.end()) return false;
  return true;
}

/// A coordinator stand-in: persists nothing, acks every phase, forwards the plan result.
coordinator_actor spawn_acking_coordinator(caf::actor_system& sys, caf::actor waiter,
                                           std::shared_ptr<std::vector<plan_phase>> phases) {
  return sys.spawn([waiter, phases]() -> coordinator_actor::behavior_type {
    return {
        [](observe_atom, const site_report&) {},
        [](view_atom) { return topology_view{}; },
        [](status_atom) { return config::group_status{}; },
        [phases](phase_atom, uint64_t, plan_phase p, const plan_facts&) {
          phases->push_back(p);
          return true;
        },
        [waiter](plan_done_atom, const plan_result& r) {
          caf::anon_send(waiter, plan_done_atom::value, r);
        },
        [](annotate_atom, const std::string&, const std::string&) { return std::string(); },
        [](switchover_atom, const std::string&) { return std::string("rejected: test"); },
        [](flush_atom) {},
    };
  });
}

struct failover_fixture {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  site_io_actor io = spawn_site_io(sys);
  test::recording_platform platform = test::spawn_recording_platform(sys);
  std::shared_ptr<std::vector<plan_phase>> phases = std::make_shared<std::vector<plan_phase>>();
  coordinator_actor coordinator =
      spawn_acking_coordinator(sys, caf::actor_cast<caf::actor>(self), phases);

  ~failover_fixture() {
    self->send_exit(io, caf::exit_reason::user_shutdown);
    self->send_exit(coordinator, caf::exit_reason::user_shutdown);
    test::stop_recording_platform(platform);
    for (int i : {primary, candidate, dr}) {
      auto r = sandbox().run({"stop", std::to_string(i)});
      if (r.exit_code != 0) BOOST_TEST_MESSAGE("stop " << i << ": " << r.err);
    }
  }

  executor_deps deps() {
    executor_deps d;
    d.site_io = io;
    d.platform = platform.handles;
    d.coordinator = coordinator;
    d.group = "itest";
    for (int i : {primary, candidate, dr}) {
      auto s = site_of(i);
      d.sites.push_back(s);
      d.targets[s] = mysql_target{s, "127.0.0.1", sandbox().port(i), "bloodraven", "bloodravenpw",
                                   {}, {}, {}};
      d.lb_ips[s] = "192.0.2." + std::to_string(i);
    }
    d.roles = {{site_of(primary), site_role::primary_candidate},
               {site_of(candidate), site_role::primary_candidate},
               {site_of(dr), site_role::dr_only}};
    d.replication = mysql_target{"", "", 0, "repl", "replpw", {}, {}, {}};
    d.replication_ssl = true;
    d.registry_path = "root/group:itest";
    d.command_timeout = 10s;
    d.request_timeout = 12s;
    d.clone_timeout = 120s;
    // Promotions arm the dead man's switch (rule 7) and nothing here heartbeats the new primary
    // (no operator poll, no sidecar): a lease longer than the test keeps the switch from fencing it
    // mid-test on a slow host (seen: 47 s from promotion to the last write under load).
    d.lease_timeout = 10min;
    return d;
  }

  plan_result run_plan(const failover_plan& plan) {
    auto d = deps();
    phases->clear();
    sys.spawn(
        [plan, d](caf::event_based_actor* parent) { spawn_failover_executor(parent, plan, d); });
    plan_result result;
    bool got = false;
    // A generous safety bound only; the steps carry their own deadlines.
    self->receive([&](plan_done_atom, const plan_result& r) { result = r, got = true; },
                  caf::after(std::chrono::seconds(300)) >> [] {});
    BOOST_TEST_REQUIRE(got, "no plan result within 300 s");
    return result;
  }
};

failover_plan repair_plan(plan_kind kind, uint64_t id) {
  failover_plan p;
  p.id = id;
  p.kind = kind;
  p.group = "itest";
  p.candidate = site_of(primary);
  p.source = site_of(candidate);
  p.step_timeout = 30s;
  return p;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(failover_mysql, failover_fixture)

BOOST_AUTO_TEST_CASE(kill9_failover_recover_errant_and_reclone) {
  // -- topology: 4 primary, 5 candidate and 6 dr-only replicating from it ------------------------
  for (int i : {primary, candidate, dr}) sandbox().reset(i);
  sandbox().replicate(candidate, primary);
  sandbox().replicate(dr, primary);
  {
    auto root = open_or_fail(primary, "root");
    exec_ok(root, "CREATE TABLE appdb.failover_rows (k VARCHAR(64) PRIMARY KEY)");
  }
  std::vector<std::string> acked;
  {
    auto app = open_or_fail(primary, "app");
    for (int n = 0; n < 50; ++n) {
      auto k = "acked-" + std::to_string(1000 + n);
      auto r = app.exec("INSERT INTO appdb.failover_rows VALUES ('" + k + "')");
      if (r.ok()) acked.push_back(k);  // autocommit: ok = acknowledged
    }
  }
  BOOST_TEST_REQUIRE(acked.size() == 50u);
  // Async replication: a tail the candidate never received is lost by design (S3). Let both
  // replicas catch up so "every acked row survives" is a property of the executor, not luck.
  auto before_kill = gtids(primary);
  wait_executed(candidate, before_kill);
  wait_executed(dr, before_kill);
  sandbox().kill9(primary);

  // -- failover (policy Fast: the dead primary is treated as isolated) ---------------------------
  failover_plan plan;
  plan.id = 1;
  plan.kind = plan_kind::failover;
  plan.group = "itest";
  plan.epoch = 2;
  plan.candidate = site_of(candidate);
  plan.old_primary = site_of(primary);
  plan.old_primary_reachable = false;
  plan.followers = {site_of(dr)};
  plan.policy = gate_policy::fast;
  plan.step_timeout = 30s;
  plan.drain_timeout = 10s;
  plan.gate_timeout = 30s;
  auto r = run_plan(plan);
  BOOST_TEST_REQUIRE(r.ok, r.error);
  BOOST_TEST(r.fence_outcome == "skipped: unreachable (plan)");
  BOOST_TEST(r.not_repointed.empty());
  BOOST_TEST(phases->size() == 11u);
  auto promo = gtid_set::parse(r.promotion_gtid);
  BOOST_TEST_REQUIRE(promo.has_value(), r.promotion_gtid);
  BOOST_TEST(promo->contains(before_kill));
  auto p5 = probe(candidate);
  BOOST_TEST(p5.writable());
  BOOST_TEST(!p5.channel.configured);
  BOOST_TEST(contains_all(rows_on(candidate), acked));
  // The dr-only site follows the new primary.
  auto p6 = probe(dr);
  BOOST_TEST(p6.channel.configured);
  BOOST_TEST(p6.channel.source_port == sandbox().port(candidate));
  BOOST_TEST(!p6.writable());
  {
    auto app = open_or_fail(candidate, "app");
    exec_ok(app, "INSERT INTO appdb.failover_rows VALUES ('after-failover')");
  }
  auto after = gtids(candidate);
  wait_executed(dr, after);
  BOOST_TEST(contains_all(rows_on(dr), {"after-failover"}));
  // Steering happened once, to the candidate.
  BOOST_TEST_REQUIRE(platform.rec->dns.size() == 1u);
  BOOST_TEST(std::get<1>(platform.rec->dns[0]) == site_of(candidate));

  // -- the old primary returns: contained -> recover plan -> replica of 5 ------------------------
  sandbox().start(primary);
  auto p4 = probe(primary);
  BOOST_TEST(p4.super_read_only);  // S5: boots fenced
  auto cls = classify_recovery(p4.gtid_executed, gtids(candidate));
  BOOST_TEST((cls.kind == recovery_kind::contained), cls.divergent_gtid);
  r = run_plan(repair_plan(plan_kind::recover, 2));
  BOOST_TEST_REQUIRE(r.ok, r.error);
  p4 = probe(primary);
  BOOST_TEST(p4.channel.configured);
  BOOST_TEST(p4.channel.source_port == sandbox().port(candidate));
  BOOST_TEST((p4.channel.io == mysql::thread_state::on));
  BOOST_TEST((p4.channel.sql == mysql::thread_state::on));
  wait_executed(primary, after);
  BOOST_TEST(contains_all(rows_on(primary), {"after-failover"}));

  // -- errant transaction on 4 while it is briefly its own island, then kill -9 ------------------
  gtid_set errant;
  {
    auto admin = open_or_fail(primary, "bloodraven", true);
    exec_ok(admin, "STOP REPLICA");
    exec_ok(admin, "SET GLOBAL super_read_only = OFF");
    exec_ok(admin, "SET GLOBAL read_only = OFF");
    auto before = gtids(primary);
    auto app = open_or_fail(primary, "app");  // sql_log_bin ON: the write gets 4's own GTID
    exec_ok(app, "INSERT INTO appdb.failover_rows VALUES ('errant')");
    errant = gtids(primary).subtract(before);
  }
  BOOST_TEST_REQUIRE(errant.count() == 1u, errant.to_string());
  BOOST_TEST(errant.streams().begin()->first.first == probe(primary).server_uuid);
  sandbox().kill9(primary);
  sandbox().start(primary);
  BOOST_TEST(probe(primary).super_read_only);
  cls = classify_recovery(gtids(primary), gtids(candidate));
  BOOST_TEST((cls.kind == recovery_kind::divergent));
  BOOST_TEST(cls.divergent.to_string() == errant.to_string());
  BOOST_TEST(cls.divergent_gtid == errant.to_compact_string());
  BOOST_TEST(cls.divergent_count == 1u);
  // The executor itself refuses to repoint a divergent site (S4) even if asked to.
  r = run_plan(repair_plan(plan_kind::recover, 3));
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::repointing);
  BOOST_TEST(r.error.find(errant.to_compact_string()) != std::string::npos, r.error);
  BOOST_TEST(!probe(primary).channel.configured);

  // -- a reclone that did not confirm the errant transaction clones nothing ----------------------
  // (a cold reclone: the plan fences 4, reads its set and finds what only it holds)
  r = run_plan(repair_plan(plan_kind::reclone, 4));
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.reached == plan_phase::cloning);
  BOOST_TEST_REQUIRE(r.losses.size() == 1u);
  BOOST_TEST(r.losses[0].gtid == errant.to_string());
  BOOST_TEST(gtids(primary).contains(errant));  // not cloned: the errant row is still there
  BOOST_TEST(probe(primary).super_read_only);

  // -- reclone 4 from 5 confirming its divergent set: the errant row is gone, 4 replicates -------
  auto confirmed = repair_plan(plan_kind::reclone, 5);
  confirmed.discard_gtid = errant.to_string();
  r = run_plan(confirmed);
  BOOST_TEST_REQUIRE(r.ok, r.error);
  p4 = probe(primary);
  BOOST_TEST(p4.super_read_only);
  BOOST_TEST(p4.channel.source_port == sandbox().port(candidate));
  BOOST_TEST((p4.channel.io == mysql::thread_state::on));
  BOOST_TEST(gtids(candidate).contains(p4.gtid_executed));
  {
    auto app = open_or_fail(candidate, "app");
    exec_ok(app, "INSERT INTO appdb.failover_rows VALUES ('after-reclone')");
  }
  wait_executed(primary, gtids(candidate));
  auto rows4 = rows_on(primary);
  BOOST_TEST(contains_all(rows4, acked));
  BOOST_TEST(contains_all(rows4, {"after-failover", "after-reclone"}));
  BOOST_TEST(!contains_all(rows4, {"errant"}));
  // Reclone of the active primary is refused before anything runs.
  auto bad = repair_plan(plan_kind::reclone, 6);
  bad.candidate = site_of(candidate);
  r = run_plan(bad);
  BOOST_TEST(!r.ok);
  BOOST_TEST(r.error == "fencing_old: refusing to reclone the active primary " + site_of(candidate));
  BOOST_TEST(probe(candidate).writable());
}

BOOST_AUTO_TEST_SUITE_END()
