// End to end: the operator's real group actors (supervisor, pollers, coordinator, executor, real
// site_io, local file platform) against three real MySQL 9.7 servers (sandbox instances 4, 5, 6):
// adopt -> kill -9 failover -> old primary rejoins -> errant transaction blocks recovery ->
// invalid reclone token rejected -> valid token reclones and it rejoins.
#include <unistd.h>

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <caf/all.hpp>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "actors/operator/group/group_supervisor.hpp"
#include "actors/operator/local/local_platform.hpp"
#include "actors/operator/group/site_io.hpp"
#include "io/mysql/commands.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "io/mysql/replication.hpp"
#include "tests/support/mysql_sandbox.hpp"
#include "tests/support/eventually.hpp"

using namespace std::chrono_literals;
using namespace br;

namespace {

constexpr int primary = 4, candidate = 5, dr = 6;
const std::string group = "e2e";

std::string site_of(int i) {
  return "s" + std::to_string(i);
}

const test::mysql_sandbox& sandbox() {
  static const test::mysql_sandbox sb;
  return sb;
}

mysql::connection open_or_fail(int i, const std::string& user) {
  auto c = mysql::connection::open(sandbox().options(i, user));
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

/// A probe that may fail (the server may be down); used inside eventually().
std::optional<mysql::probe_result> try_probe(int i) {
  auto c = mysql::connection::open(sandbox().options(i, "bloodraven"));
  if (!c.ok()) return std::nullopt;
  auto p = mysql::probe(*c, mysql::mysql8());
  if (!p.ok()) return std::nullopt;
  return *p;
}

std::vector<std::string> rows_on(int i) {
  auto c = open_or_fail(i, "root");
  auto q = c.query("SELECT k FROM appdb.e2e_rows ORDER BY k");
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

/// Polls `pred` until it holds or the (generous, safety-only) deadline passes.
bool eventually(const std::function<bool()>& pred, std::chrono::seconds timeout) {
  return br::test::eventually(pred, timeout, 250ms);
}

bool replicates_from(int replica, int source) {
  auto p = try_probe(replica);
  return p && p->channel.configured && p->channel.source_port == sandbox().port(source) &&
         p->channel.io == mysql::thread_state::on && p->channel.sql == mysql::thread_state::on;
}

config::group_spec make_spec() {
  config::group_spec spec;
  for (int i : {primary, candidate, dr}) {
    config::site_spec s;
    s.name = site_of(i);
    s.role = i == dr ? site_role::dr_only : site_role::primary_candidate;
    s.lb_ip = "192.0.2." + std::to_string(i);
    s.address = config::address_spec{"127.0.0.1", sandbox().port(i)};
    spec.sites.push_back(s);
  }
  spec.poll_interval = 250ms;
  spec.failure_threshold = 3;
  spec.recovery_threshold = 2;
  // Long: the scenario has a single automatic failover; nothing else may trigger another.
  spec.failover_cooldown = std::chrono::hours(1);
  spec.relay_drain_timeout = 10s;
  spec.promotion_gate_timeout = 30s;
  spec.clone_timeout = 120;
  // Fast: the Safe gate's sidecar-based rules (docs/safety.md 2-3) are not wired yet, so a dead
  // primary could never be proven isolated under Safe.
  spec.promotion_policy = config::promotion_policy::fast;
  spec.replication.user = "repl";
  spec.replication.password = "replpw";
  spec.replication.tls = true;
  return spec;
}

struct e2e_fixture {
  std::string dir;
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  site_io_actor io;
  local_platform platform;
  caf::actor group_sup;
  coordinator_actor coord;

  e2e_fixture() {
    char tmpl[] = "/tmp/br-e2e-XXXXXX";
    BOOST_TEST_REQUIRE(::mkdtemp(tmpl) != nullptr);
    dir = tmpl;
    io = spawn_site_io(sys);
    local_platform_config pc;
    pc.dir = dir;
    platform = spawn_local_platform(sys, pc);
  }

  ~e2e_fixture() {
    if (group_sup) {
      self->request(group_sup, 20s, stop_atom::value).receive([](bool) {}, [](caf::error&) {});
      self->send_exit(group_sup, caf::exit_reason::user_shutdown);
    }
    self->send_exit(io, caf::exit_reason::user_shutdown);
    stop_local_platform(platform);
    for (int i : {primary, candidate, dr}) {
      auto r = sandbox().run({"stop", std::to_string(i)});
      if (r.exit_code != 0) BOOST_TEST_MESSAGE("stop " << i << ": " << r.err);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }

  void start_group() {
    group_credentials creds{"bloodraven", "bloodravenpw", "repl", "replpw", nullptr, ""};
    group_runtime rt;
    rt.site_io = io;
    rt.platform = platform.handles;
    rt.namespace_name = "default";
    rt.command_timeout = 10s;
    group_sup = spawn_group_supervisor(sys, "root/group:" + group, group, make_spec(), creds, rt);
    caf::actor c;
    self->request(group_sup, 10s, child_atom::value, std::string("coordinator"))
        .receive([&](caf::actor& a) { c = a; }, [](caf::error& e) {
          BOOST_FAIL("child coordinator: " << caf::to_string(e));
        });
    BOOST_TEST_REQUIRE(static_cast<bool>(c));
    coord = caf::actor_cast<coordinator_actor>(c);
  }

  topology_view view() {
    topology_view v;
    self->request(coord, 10s, view_atom::value)
        .receive([&](topology_view& x) { v = x; }, [](caf::error&) {});
    return v;
  }

  std::string annotate(const std::string& value) {
    std::string out;
    self->request(coord, 10s, annotate_atom::value, std::string(reclone_annotation), value)
        .receive([&](std::string& s) { out = s; },
                 [&](caf::error& e) { out = "error: " + caf::to_string(e); });
    return out;
  }

  /// The coordinator's durable state as persisted by the file store.
  durable_state stored() {
    auto s = load_state_file(dir + "/" + group + ".state.json");
    BOOST_TEST_REQUIRE(static_cast<bool>(s), "state file unreadable");
    return *s;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(operator_e2e, e2e_fixture)

BOOST_AUTO_TEST_CASE(group_actors_failover_rejoin_block_and_reclone) {
  for (int i : {primary, candidate, dr}) sandbox().reset(i);
  sandbox().replicate(candidate, primary);
  sandbox().replicate(dr, primary);
  {
    auto root = open_or_fail(primary, "root");
    exec_ok(root, "CREATE TABLE appdb.e2e_rows (k VARCHAR(64) PRIMARY KEY)");
  }

  // -- (1) the coordinator adopts 4 --------------------------------------------------------------
  start_group();
  BOOST_TEST_REQUIRE(eventually([&] { return view().active_site == site_of(primary); }, 60s),
                     "coordinator never adopted " << site_of(primary));
  auto adopted = view();
  std::vector<std::string> acked;
  {
    auto app = open_or_fail(primary, "app");
    for (int n = 0; n < 40; ++n) {
      auto k = "acked-" + std::to_string(1000 + n);
      if (app.exec("INSERT INTO appdb.e2e_rows VALUES ('" + k + "')").ok()) acked.push_back(k);
    }
  }
  BOOST_TEST_REQUIRE(acked.size() == 40u);
  // Async replication loses an unreplicated tail by design (S3): let the replicas catch up.
  auto before_kill = gtids(primary);
  for (int i : {candidate, dr}) {
    auto r = mysql::wait_for_executed(sandbox().options(i, "bloodraven"), mysql::mysql8(),
                                      before_kill, 30s);
    BOOST_TEST_REQUIRE((r.ok() && *r == mysql::wait_outcome::reached), "catch-up of " << i);
  }

  // -- (2) kill -9 4 -> 5 promoted, 6 follows 5, every acked row on 5 ----------------------------
  sandbox().kill9(primary);
  BOOST_TEST_REQUIRE(eventually(
                         [&] {
                           auto p = try_probe(candidate);
                           return p && p->writable() && replicates_from(dr, candidate) &&
                                  view().active_site == site_of(candidate);
                         },
                         180s),
                     "failover to " << site_of(candidate) << " did not complete");
  auto after_failover = view();
  BOOST_TEST(after_failover.epoch > adopted.epoch);
  BOOST_TEST(!try_probe(candidate)->channel.configured);
  BOOST_TEST(contains_all(rows_on(candidate), acked));
  BOOST_TEST(stored().last_failover_target == site_of(candidate));
  {
    auto app = open_or_fail(candidate, "app");
    exec_ok(app, "INSERT INTO appdb.e2e_rows VALUES ('after-failover')");
  }

  // -- (3) 4 returns fenced; the coordinator's recover plan makes it a replica of 5 ---------------
  sandbox().start(primary);
  BOOST_TEST_REQUIRE(eventually([&] { return replicates_from(primary, candidate); }, 180s),
                     "returning " << site_of(primary) << " never rejoined");
  {
    auto r = mysql::wait_for_executed(sandbox().options(primary, "bloodraven"), mysql::mysql8(),
                                      gtids(candidate), 30s);
    BOOST_TEST_REQUIRE((r.ok() && *r == mysql::wait_outcome::reached));
  }
  BOOST_TEST(contains_all(rows_on(primary), {"after-failover"}));
  BOOST_TEST(try_probe(primary)->super_read_only);
  BOOST_TEST(view().active_site == site_of(candidate));
  BOOST_TEST_REQUIRE(eventually([&] { return stored().recovery.count(site_of(primary)) == 0; }, 30s));

  // -- (4) an errant transaction on 4 while it is isolated -> RecoveryBlocked, not repointed ------
  gtid_set errant;
  {
    auto root = open_or_fail(primary, "root");
    exec_ok(root, "STOP REPLICA");
    auto before = gtids(primary);
    // read_only stays ON, so the pollers never see 4 writable; root bypasses read_only.
    exec_ok(root, "SET GLOBAL super_read_only = OFF");
    exec_ok(root, "INSERT INTO appdb.e2e_rows VALUES ('errant')");
    exec_ok(root, "SET GLOBAL super_read_only = ON");
    errant = gtids(primary).subtract(before);
    // No replication channel: it now looks like a returning old primary. The operator restarts a
    // stopped receiver whose source is healthy (at most every 30 s per site), which can happen
    // between the STOP above and this RESET; stop it again and retry then.
    bool reset = false;
    for (int attempt = 0; attempt < 3 && !reset; ++attempt) {
      exec_ok(root, "STOP REPLICA");
      reset = root.exec("RESET REPLICA ALL").ok();
    }
    BOOST_TEST_REQUIRE(reset, "RESET REPLICA ALL failed three times");
  }
  BOOST_TEST_REQUIRE(errant.count() == 1u, errant.to_string());
  BOOST_TEST_REQUIRE(eventually(
                         [&] {
                           auto s = stored();
                           auto r = s.recovery.find(site_of(primary));
                           return r != s.recovery.end() && r->second.state == "RecoveryBlocked";
                         },
                         60s),
                     "no RecoveryBlocked for " << site_of(primary));
  auto blocked = stored().recovery.at(site_of(primary));
  BOOST_TEST(blocked.divergent_gtid == errant.to_compact_string());
  BOOST_TEST(blocked.divergent_count == 1u);
  // Several poll intervals later it is still fenced and not repointed.
  std::this_thread::sleep_for(3s);
  {
    auto p4 = try_probe(primary);
    BOOST_TEST_REQUIRE(p4.has_value());
    BOOST_TEST(!p4->channel.configured);
    BOOST_TEST(p4->super_read_only);
  }
  BOOST_TEST(contains_all(rows_on(primary), {"errant"}));

  // -- (5) an invalid token changes nothing; a valid one reclones 4 ------------------------------
  auto reply = annotate(site_of(primary) + ":deadbeef00");
  BOOST_TEST(reply.rfind("rejected: ", 0) == 0u, reply);
  std::this_thread::sleep_for(2s);
  BOOST_TEST(stored().recovery.at(site_of(primary)).state == "RecoveryBlocked");
  BOOST_TEST(!try_probe(primary)->channel.configured);
  BOOST_TEST(contains_all(rows_on(primary), {"errant"}));

  auto token = site_of(primary) + ":" + blocked.divergent_gtid.substr(0, 12);
  reply = annotate(token);
  BOOST_TEST(reply.rfind("accepted: ", 0) == 0u, reply);
  BOOST_TEST_REQUIRE(eventually([&] { return replicates_from(primary, candidate); }, 300s),
                     "recloned " << site_of(primary) << " never replicated from "
                                 << site_of(candidate));
  {
    auto app = open_or_fail(candidate, "app");
    exec_ok(app, "INSERT INTO appdb.e2e_rows VALUES ('after-reclone')");
    auto r = mysql::wait_for_executed(sandbox().options(primary, "bloodraven"), mysql::mysql8(),
                                      gtids(candidate), 60s);
    BOOST_TEST_REQUIRE((r.ok() && *r == mysql::wait_outcome::reached));
  }
  auto rows4 = rows_on(primary);
  BOOST_TEST(contains_all(rows4, acked));
  BOOST_TEST(contains_all(rows4, {"after-failover", "after-reclone"}));
  BOOST_TEST(!contains_all(rows4, {"errant"}));
  BOOST_TEST(gtids(candidate).contains(gtids(primary)));
  BOOST_TEST(view().active_site == site_of(candidate));
  BOOST_TEST(view().epoch == after_failover.epoch);
  BOOST_TEST(eventually([&] { return stored().recovery.count(site_of(primary)) == 0; }, 30s));
}

BOOST_AUTO_TEST_SUITE_END()
