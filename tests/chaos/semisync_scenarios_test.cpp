// Semi-synchronous replication chaos scenarios (issue 25, acceptance 2): the async harness with the
// semi-sync plugins on every server and spec.replication.semiSync {enabled: true,
// waitForReplicaCount: K} (K from BR_CHAOS_SEMISYNC_K, default 1), policy Safe, the default 20 s
// lease: a failover of a hung or isolated primary opens by gate rule 4 (receivers stopped), not by
// waiting for the lease. Judged by the same checker; S1 on acknowledgements (no two sites
// acknowledging direct writes within one sample window, no overlapping acks), writable samples
// reported (docs/safety.md "What S1 means here"); S3 strict (a loss counts even when reported);
// convergence unchanged. Each scenario
// notes its failover time: the fault to the first acknowledged write on another site.
// Label semisync (tools/chaos.sh --label semisync); not in the CI smoke subset.
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <memory>
#include <string>

#include "messages/gtid_set.hpp"
#include "tests/chaos/scenario.hpp"

namespace bt = boost::unit_test;
using br::chaos::cluster_params;
using br::chaos::final_report;
using br::chaos::run_scenario;
using br::chaos::scenario;
using br::chaos::scenario_context;

namespace {

int semisync_k() {
  const char* v = std::getenv("BR_CHAOS_SEMISYNC_K");
  int k = v && *v ? std::atoi(v) : 1;
  return k == 2 ? 2 : 1;  // 3 sites: K is 1 or 2
}

/// One scenario's shared clock: when the fault started and when the operator named another site.
struct timeline {
  int64_t fault_ms = 0;
  int64_t named_ms = 0;
};

scenario ss_scenario(const std::string& name) {
  cluster_params p;
  p.semisync_k = semisync_k();
  p.lease_timeout = "20s";  // the default lease: rule 4 must not wait for it
  p.promotion_gate_timeout = "60s";
  if (const char* v = std::getenv("BR_CHAOS_KEYS_DIR"); v && *v) p.keys_dir = v;
  scenario s{name + (p.semisync_k == 2 ? "_k2" : ""), p, {}, {}, {}, {}};
  s.expect.probe_period_ms = 50;  // each site tried twice per 100 ms sample window
  s.expect.strict_s3 = true;      // no acknowledged write lost, reported or not
  s.expect.converge_seconds = 120;
  return s;
}

std::string active_of(scenario_context& x) {
  auto v = x.c.active_view();
  return v.is_object() ? v.value("activeSite", "") : "";
}

/// Waits for the operator to name a site other than s1; notes how long after the fault.
void wait_failover(scenario_context& x, timeline& t) {
  if (!x.wait_until([&] { auto a = active_of(x); return !a.empty() && a != "s1"; }, 90)) {
    x.notes.push_back("the operator named no other site within 90 s");
    return;
  }
  t.named_ms = br::chaos::now_ms();
  x.notes.push_back("operator names " + active_of(x) + " " + std::to_string(t.named_ms - t.fault_ms) +
                    " ms after the fault");
}

/// The failover time: the fault to the first write acknowledged by another site than s1.
void note_failover_time(scenario_context& x, const timeline& t) {
  int64_t first = -1;
  std::string site;
  for (const auto& a : x.w.acks())
    if (a.site != "s1" && a.t_send_ms >= t.fault_ms && (first < 0 || a.t_ack_ms < first)) {
      first = a.t_ack_ms;
      site = a.site;
    }
  x.notes.push_back(first < 0 ? std::string("failover time: no acknowledged write on another site")
                              : "failover time (fault -> first acked write on " + site + "): " +
                                    std::to_string(first - t.fault_ms) + " ms");
}

/// Writes s1 acknowledged after the operator named another site: none may exist.
void no_acks_from_old_primary(scenario_context& x, const timeline& t) {
  if (t.named_ms == 0) return;
  int n = 0;
  for (const auto& a : x.w.acks()) n += a.site == "s1" && a.t_ack_ms > t.named_ms ? 1 : 0;
  if (n > 0)
    x.failures.push_back("s1 acknowledged " + std::to_string(n) +
                         " writes after the operator named another site");
}

std::string gtid_executed(scenario_context& x, int k) {
  return x.c.sql(k).scalar("SELECT REPLACE(@@global.gtid_executed, '\\n', '')").value_or("");
}

/// What the operator reports about s1 (status recoveryState/divergentGtid, Events naming it).
std::string operator_on_s1(const final_report& r) {
  std::string out;
  if (r.status.is_object())
    for (const auto& s : r.status.value("sites", nlohmann::json::array()))
      if (s.is_object() && s.value("name", "") == "s1") {
        auto str = [&](const char* key) {
          return s.contains(key) && s[key].is_string() ? s[key].get<std::string>() : std::string();
        };
        out += "state " + str("state") + ", recoveryState '" + str("recoveryState") +
               "', divergentGtid '" + str("divergentGtid") + "'";
      }
  std::string reasons;
  if (r.events.is_array())
    for (const auto& e : r.events)
      if (e.is_object() && e.value("site", "") == "s1")
        reasons += (reasons.empty() ? "" : ",") + e.value("reason", "");
  return out + "; events on s1: " + (reasons.empty() ? "none" : reasons);
}

void check(const br::chaos::scenario_result& r) { BOOST_TEST(r.pass, r.line); }

}  // namespace

BOOST_AUTO_TEST_SUITE(chaos_semisync)

BOOST_AUTO_TEST_CASE(semisync_isolated_primary, *bt::label("semisync")) {
  // s1 cut from everything (operator, writer, replicas): rule 4 opens once s2's and s3's
  // receivers are stopped; s1 cannot acknowledge anything (no receiver reaches it).
  auto s = ss_scenario("semisync_isolated_primary");
  auto t = std::make_shared<timeline>();
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;  // a tail s1 wrote and nobody received is reported
  s.fault = [t](scenario_context& x) {
    t->fault_ms = br::chaos::now_ms();
    x.c.partition(0);
    wait_failover(x, *t);
    x.sleep_s(5);  // s1 still cut off, the workload on s2
  };
  s.restore = [](scenario_context& x) { x.c.heal(0); };
  s.verify = [t](scenario_context& x, const final_report& r) {
    note_failover_time(x, *t);
    no_acks_from_old_primary(x, *t);
    x.notes.push_back("operator on s1: " + operator_on_s1(r));
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(semisync_hung_primary, *bt::label("semisync")) {
  // s1's mysqld SIGSTOPped (connections open, nothing answers), SIGCONT after the failover: its
  // waiting commits find no receiver (s2 promoted, s3 repointed) and are never acknowledged.
  auto s = ss_scenario("semisync_hung_primary");
  auto t = std::make_shared<timeline>();
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;
  s.fault = [t](scenario_context& x) {
    t->fault_ms = br::chaos::now_ms();
    x.c.pause_mysqld(0);
    wait_failover(x, *t);
    x.sleep_s(2);
    x.c.resume_mysqld(0);
    x.sleep_s(5);  // the thawed s1 beside the new primary: its commits must not be acknowledged
    x.notes.push_back("thawed s1 read_only " +
                      x.c.sql(0).scalar("SELECT @@global.read_only").value_or("?") +
                      " 5 s after SIGCONT");
  };
  s.verify = [t](scenario_context& x, const final_report& r) {
    note_failover_time(x, *t);
    no_acks_from_old_primary(x, *t);
    x.notes.push_back("operator on s1: " + operator_on_s1(r));
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(semisync_stale_primary_returns, *bt::label("semisync")) {
  // s1 isolated, failed over, then healed at once while its 20 s lease still holds (writable):
  // the direct prober's commits on it reach its binary log but no receiver, so they are never
  // acknowledged; they must not be applied anywhere (the final primary holds none of s1's
  // transactions that s2 lacked at the promotion), and the operator's report on s1 is noted.
  auto s = ss_scenario("semisync_stale_primary_returns");
  auto t = std::make_shared<timeline>();
  auto promoted_set = std::make_shared<std::string>();  // s2's gtid_executed after the promotion
  s.expect.failover = true;
  s.expect.final_active = "s2";
  s.expect.allow_blocked = true;
  s.fault = [t, promoted_set](scenario_context& x) {
    t->fault_ms = br::chaos::now_ms();
    x.c.partition(0);
    wait_failover(x, *t);
    // s2 writable = promoted: its set now holds everything it will ever get from s1.
    x.wait_until([&] { return x.c.sql(1).scalar("SELECT @@global.read_only") == "0"; }, 30);
    *promoted_set = gtid_executed(x, 1);
    x.c.heal(0);  // back while its lease still holds
    int64_t t0 = br::chaos::now_ms();
    bool fenced = x.wait_until([&] { return x.c.sql(0).scalar("SELECT @@global.read_only") == "1"; }, 30);
    x.notes.push_back(fenced ? "returned s1 fenced " + std::to_string(br::chaos::now_ms() - t0) +
                                   " ms after the heal"
                             : std::string("returned s1 still writable 30 s after the heal"));
    auto s1set = br::gtid_set::parse(gtid_executed(x, 0));
    auto s2set = br::gtid_set::parse(*promoted_set);
    if (s1set && s2set)
      x.notes.push_back("s1 holds " + std::to_string(s1set->subtract(*s2set).count()) +
                        " transactions s2 lacked at the promotion (unacknowledged): [" +
                        s1set->subtract(*s2set).to_string() + "]");
  };
  s.verify = [t, promoted_set](scenario_context& x, const final_report& r) {
    note_failover_time(x, *t);
    no_acks_from_old_primary(x, *t);
    x.notes.push_back("operator on s1: " + operator_on_s1(r));
    // Every transaction the final primary holds under s1's server UUID was already on s2 at the
    // promotion: nothing s1 wrote afterwards (or before, unreceived) was applied there.
    // (s1 keeps its server UUID through a reclone: clone does not copy auto.cnf.)
    auto uuid = x.c.sql(0).scalar("SELECT @@server_uuid");
    auto fin = br::gtid_set::parse(gtid_executed(x, 1));
    auto at_promotion = br::gtid_set::parse(*promoted_set);
    auto s1_any = br::gtid_set::parse(uuid.value_or("") + ":1-1000000000000");
    if (!uuid || !fin || !at_promotion || !s1_any) {
      x.failures.push_back("cannot read the GTID sets for the unacknowledged-transaction check");
      return;
    }
    auto applied = fin->intersect(*s1_any).subtract(*at_promotion);
    if (!applied.empty())
      x.failures.push_back("s1's transactions written after the promotion were applied on s2: [" +
                           applied.to_string() + "]");
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(semisync_primary_replica_partition, *bt::label("semisync")) {
  // s1 cut from s2 only (the operator, the writer and s3 reach it): the group keeps s1; with K=1
  // s3's acknowledgements keep it writing; with K=2 its commits wait (reported, SemiSyncWaiting).
  auto s = ss_scenario("semisync_primary_replica_partition");
  auto t = std::make_shared<timeline>();
  s.expect.failover = false;
  s.expect.final_active = "s1";
  s.fault = [t](scenario_context& x) {
    t->fault_ms = br::chaos::now_ms();
    x.c.partition_from(0, {x.c.site_addr(1)});
    x.sleep_s(15);  // > failureThreshold x pollInterval, several sidecar peer checks
    int n = 0;
    for (const auto& a : x.w.acks()) n += a.site == "s1" && a.t_send_ms > t->fault_ms + 2000 ? 1 : 0;
    auto io = [&](int k) {
      return x.c.sql(k)
          .scalar("SELECT SERVICE_STATE FROM performance_schema.replication_connection_status "
                  "WHERE CHANNEL_NAME=''")
          .value_or("?");
    };
    x.notes.push_back("during the partition: s1 acknowledged " + std::to_string(n) +
                      " writes (from 2 s after the cut); receivers s2 " + io(1) + ", s3 " + io(2));
    if (x.c.params().semisync_k == 1 && n == 0)
      x.failures.push_back("K=1: s1 acknowledged nothing while s3 still received from it");
  };
  s.restore = [](scenario_context& x) { x.c.heal(0); };
  s.verify = [](scenario_context& x, const final_report& r) {
    std::string reasons;
    if (r.events.is_array())
      for (const auto& e : r.events)
        if (e.is_object() && e.value("reason", "") == "SemiSyncWaiting")
          reasons += " [" + e.value("message", "") + "]";
    x.notes.push_back("SemiSyncWaiting events:" + (reasons.empty() ? std::string(" none") : reasons));
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_CASE(semisync_lagging_candidate_hung_primary, *bt::label("semisync")) {
  // s2 (the only other primary-candidate) cut from s1 so it falls behind while s3 (read-only
  // role) keeps acknowledging; then s1 hangs. s2 lacks acknowledged writes that only s3 received:
  // docs/safety.md requires the no-loss candidate for every semi-sync promotion, so s2 must not
  // be promoted (no failover; the gate times out and alerts); s1 thawed and healed stays primary.
  auto s = ss_scenario("semisync_lagging_candidate_hung_primary");
  auto t = std::make_shared<timeline>();
  s.expect.failover = false;
  s.expect.epoch_may_change = true;  // a failed plan and s1 re-asserted move the epoch
  s.expect.final_active = "s1";
  s.expect.allow_blocked = true;
  s.fault = [t](scenario_context& x) {
    x.c.partition_from(0, {x.c.site_addr(1)});
    x.sleep_s(3);
    auto lacked = x.not_received(0, 1);
    x.notes.push_back("s2 lacked " + (lacked ? std::to_string(*lacked) : std::string("?")) +
                      " of s1's transactions when s1 hung");
    t->fault_ms = br::chaos::now_ms();
    x.c.pause_mysqld(0);
    bool moved = x.wait_until([&] { auto a = active_of(x); return !a.empty() && a != "s1"; }, 45);
    x.notes.push_back(moved ? "operator named " + active_of(x) + " " +
                                  std::to_string(br::chaos::now_ms() - t->fault_ms) +
                                  " ms after the hang"
                            : std::string("no other site named within 45 s of the hang"));
    x.c.resume_mysqld(0);
    x.c.heal(0);
  };
  s.verify = [t](scenario_context& x, const final_report& r) {
    x.notes.push_back("operator on s1: " + operator_on_s1(r));
    if (r.status.is_object() && r.status.contains("lastFailoverLosses"))
      x.notes.push_back("lastFailoverLosses: " + r.status["lastFailoverLosses"].dump());
  };
  check(run_scenario(s));
}

BOOST_AUTO_TEST_SUITE_END()
