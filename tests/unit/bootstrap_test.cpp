// Table tests for decide/bootstrap.hpp (how a group comes into being, auto-clone, account checks)
// and decide/bootstrap_record.hpp (status.bootstrap bookkeeping).
#include "actors/operator/decide/bootstrap.hpp"
#include "actors/operator/decide/bootstrap_record.hpp"
#include "actors/operator/decide/plan_steps.hpp"

#include <algorithm>
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

namespace {

using namespace br;

const std::string U1 = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
const std::string U2 = "4e11fa47-71ca-11e1-9e33-c80aa9429562";

bootstrap_site_facts fresh(const std::string& name, const std::string& gtid = "",
                           site_role role = site_role::primary_candidate) {
  bootstrap_site_facts f;
  f.name = name;
  f.role = role;
  f.reported = true;
  f.reachable = true;
  f.gtid_executed = gtid;
  return f;
}

bootstrap_facts three(std::string a, std::string b, std::string c) {
  bootstrap_facts in;
  in.seed = "a";
  in.sites = {fresh("a", std::move(a)), fresh("b", std::move(b)), fresh("c", std::move(c))};
  return in;
}

std::string actions(const bootstrap_decision& d) {
  std::string s;
  for (const auto& a : d.sites) s += (s.empty() ? "" : ",") + a.site + "=" + a.action;
  return s;
}

struct row {
  const char* name;
  bootstrap_facts in;
  bootstrap_verdict verdict;
  std::string actions;   ///< bootstrap: per other site
  std::string contains;  ///< in the reason (wait/refuse/not_new)
};

}  // namespace

BOOST_AUTO_TEST_SUITE(bootstrap_decision_table)

BOOST_AUTO_TEST_CASE(decide_bootstrap_rows) {
  using V = bootstrap_verdict;
  const std::string s5 = U1 + ":1-5";
  const std::string s3 = U1 + ":1-3";
  const std::string other = U2 + ":1-2";
  std::vector<row> rows;
  rows.push_back({"all empty: the others replicate", three("", "", ""), V::bootstrap,
                  "b=replicate,c=replicate", ""});
  rows.push_back({"seed with data, empty others: clone", three(s5, "", ""), V::bootstrap,
                  "b=clone,c=clone", ""});
  rows.push_back({"subset replicates, equal replicates", three(s5, s3, s5), V::bootstrap,
                  "b=replicate,c=replicate", ""});
  rows.push_back({"one divergent site is blocked, never cloned", three(s5, s3 + "," + other, ""),
                  V::bootstrap, "b=divergent,c=clone", ""});
  rows.push_back({"superset (audit H16): the seed lacks data b has", three(s3, s5, ""),
                  V::refuse, "", "set spec.bootstrap.seedSite to b"});
  rows.push_back({"empty seed while another holds data", three("", "", s3), V::refuse, "",
                  "holds every transaction of the seed"});
  rows.push_back({"two sites with data the seed lacks", three(s5, s3 + "," + other,
                                                              s3 + "," + U2 + ":5-6"),
                  V::refuse, "", "more than one site"});
  {
    auto in = three("", "", "");
    in.sites[2].reachable = false;
    rows.push_back({"a site unreachable: wait", in, V::wait, "", "waiting for c"});
  }
  {
    auto in = three("", "", "");
    in.sites[1].reported = false;
    rows.push_back({"a site not polled yet: wait", in, V::wait, "", "waiting for b"});
  }
  {
    auto in = three("", "", "");
    in.sites[1].writable = true;
    rows.push_back({"a writable site: adopt path", in, V::not_new, "", "b is writable"});
  }
  {
    auto in = three(s5, s5, "");
    in.sites[1].channel = true;
    rows.push_back({"a wired channel: not a fresh group", in, V::not_new, "",
                    "replication channel"});
  }
  {
    auto in = three("", "", "");
    in.durable.view.active_site = "a";
    in.durable.view.epoch = 3;
    rows.push_back({"had an active site", in, V::not_new, "", "had an active site"});
  }
  {
    auto in = three("", "", "");
    in.durable.last_failover_target = "b";
    rows.push_back({"a failover happened once", in, V::not_new, "", ""});
  }
  {
    auto in = three("", "", "");
    in.durable.view.epoch = 4;  // a failed bootstrap attempt left a deposing view, no active site
    in.durable.bootstrap.source = "fresh-deploy";
    in.durable.bootstrap.sites = {{"a", "seed", "Failed", "", 0, 0, 1}};
    rows.push_back({"a failed attempt is retried", in, V::bootstrap, "b=replicate,c=replicate",
                    ""});
  }
  {
    auto in = three("", "", "");
    in.seed = "c";
    in.sites[2].role = site_role::dr_only;
    rows.push_back({"seed must be a primary candidate", in, V::refuse, "", "not a primary"});
  }
  {
    auto in = three("", "", "");
    in.seed = "zz";
    rows.push_back({"unknown seed", in, V::refuse, "", "not a site"});
  }
  {
    auto in = three("garbage", "", "");
    rows.push_back({"unparsable set: wait", in, V::wait, "", "does not parse"});
  }
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto d = decide_bootstrap(r.in);
      BOOST_TEST(to_string(d.verdict) == to_string(r.verdict));
      if (r.verdict == V::bootstrap) {
        BOOST_TEST(actions(d) == r.actions);
        BOOST_TEST(d.seed == r.in.seed);
      }
      if (!r.contains.empty())
        BOOST_TEST(d.reason.find(r.contains) != std::string::npos, d.reason);
    }
  }
}

// spec.initFromBackup not Succeeded (issue 21): only a group that never had a primary is held.
BOOST_AUTO_TEST_CASE(restore_holds_rows) {
  const std::string why = "the restore of spec.initFromBackup has not succeeded yet";
  durable_state fresh;
  durable_state had;
  had.view = {3, "a", "", 1, {}};
  durable_state failed_over;  // between views: no active site, but a failover target recorded
  failed_over.last_failover_target = "b";
  durable_state seeded;  // a fresh-deploy bootstrap whose seed was promoted
  seeded.bootstrap.source = "fresh-deploy";
  seeded.bootstrap.sites = {{"a", "seed", "Done", "", 0, 0, 1}};
  struct row {
    const char* name;
    const durable_state* d;
    std::string hold;
    bool held;
  };
  std::vector<row> rows = {
      {"restore pending, new group: no bootstrap", &fresh, why, true},
      {"no restore pending: the ordinary rules", &fresh, "", false},
      {"restore pending, the group has a primary", &had, why, false},
      {"restore pending, a failover target recorded", &failed_over, why, false},
      {"restore pending, a seed already promoted", &seeded, why, false},
  };
  for (const auto& r : rows) BOOST_TEST(restore_holds(*r.d, r.hold) == r.held, r.name);
}

BOOST_AUTO_TEST_CASE(divergent_site_carries_its_extra_set) {
  auto d = decide_bootstrap(three(U1 + ":1-5", U1 + ":1-3," + U2 + ":1-2", ""));
  BOOST_REQUIRE(d.verdict == bootstrap_verdict::bootstrap);
  BOOST_TEST(d.sites[0].divergent_count == 2u);
  BOOST_TEST(d.sites[0].divergent_gtid == U2 + ":1-2");
  BOOST_TEST(d.sites[0].reason.find("reclone it explicitly") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(clone_need_rows) {
  struct cn {
    std::string recipient, executed, purged;
    clone_verdict verdict;
  };
  const std::string e = U1 + ":1-10";
  const std::vector<cn> rows = {
      {"", e, "", clone_verdict::clone},                       // empty recipient, donor has data
      {"", "", "", clone_verdict::replicate},                  // both empty
      {U1 + ":1-4", e, "", clone_verdict::replicate},          // subset, binlogs complete
      {U1 + ":1-4", e, U1 + ":1-3", clone_verdict::replicate}, // purged part held already
      {U1 + ":1-2", e, U1 + ":1-3", clone_verdict::clone},     // donor purged what it lacks
      {e, e, U1 + ":1-10", clone_verdict::replicate},          // resumed after a finished CLONE
      {U1 + ":1-4," + U2 + ":1", e, "", clone_verdict::divergent},  // never cloned
      {"x", e, "", clone_verdict::unknown},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.recipient << " / " << r.executed << " / " << r.purged) {
      BOOST_TEST(static_cast<int>(clone_need(r.recipient, r.executed, r.purged).verdict) ==
                 static_cast<int>(r.verdict));
    }
  }
  // An empty set with tables is data written without GTIDs (review finding 5): never cloned.
  auto t = clone_need("", e, "", "shop/orders");
  BOOST_TEST(static_cast<int>(t.verdict) == static_cast<int>(clone_verdict::divergent));
  BOOST_TEST(t.reason == "holds tables (shop/orders) but no GTIDs: data written without them");
  BOOST_TEST(static_cast<int>(clone_need("", "", "", "shop/orders").verdict) ==
             static_cast<int>(clone_verdict::divergent));
}

// A reclone a person asked for: cloned only when everything the recipient holds beyond the donor
// is inside what the request confirmed (review finding 1).
BOOST_AUTO_TEST_CASE(reclone_check_rows) {
  struct rc {
    std::string recipient, executed, confirmed;
    bool allowed;
    std::string discarded;
  };
  const std::string e = U1 + ":1-10";
  const std::vector<rc> rows = {
      {"", e, "", true, ""},                                     // empty: nothing lost
      {U1 + ":1-4", e, "", true, ""},                            // a subset: nothing lost
      {U1 + ":1-4," + U2 + ":1-2", e, "", false, U2 + ":1-2"},   // cold, holds more: refused
      {U1 + ":1-4," + U2 + ":1-2", e, U2 + ":1-2", true, U2 + ":1-2"},  // exactly confirmed
      {U1 + ":1-4," + U2 + ":1", e, U2 + ":1-2", true, U2 + ":1"},      // less than confirmed
      {U1 + ":1-4," + U2 + ":1-3", e, U2 + ":1-2", false, U2 + ":1-3"},  // more than confirmed
      {U1 + ":1-11", e, U2 + ":1-2", false, U1 + ":11"},         // the donor's own UUID, ahead
      {"x", e, "", false, ""},                                   // does not parse
      // after an in-place restore: its token confirms everything beyond the restored donor
      {U1 + ":1-40," + U2 + ":1-2", e, restore_discard("2026-11-26T15:00:00Z"), true, U1 + ":11-40,\n" + U2 + ":1-2"},
      {U1 + ":1-11", e, "restore=", false, ""},                  // no token: not the marker
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.recipient << " / " << r.confirmed) {
      auto c = reclone_check(r.recipient, r.executed, r.confirmed);
      BOOST_TEST(c.allowed == r.allowed);
      BOOST_TEST(c.discarded == r.discarded);
      if (!r.allowed) BOOST_TEST(!c.reason.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(pick_auto_clone_rows) {
  auto base = [] {
    auto_clone_facts in;
    in.active = "a";
    in.sites = {fresh("a", U1 + ":1-5"), fresh("b", U1 + ":1-5"), fresh("c", "")};
    in.sites[1].channel = true;
    in.now_ms = 1000;
    return in;
  };
  auto in = base();
  BOOST_TEST(pick_auto_clone(in).value_or("-") == "c");
  in.sites[2].channel = true;  // already wired: replication's business
  BOOST_TEST(!pick_auto_clone(in));
  in = base();
  in.sites[2].gtid_executed = U1 + ":1";  // has data: recover/reclone's business
  BOOST_TEST(!pick_auto_clone(in));
  in = base();
  in.sites[0].gtid_executed = "";  // the active site has nothing to clone
  BOOST_TEST(!pick_auto_clone(in));
  in = base();
  in.recovery["c"].state = "RecoveryBlocked";
  BOOST_TEST(!pick_auto_clone(in));
  in.recovery["c"].state = "RecoveryInProgress";
  BOOST_TEST(!pick_auto_clone(in));
  // Waiting to rejoin and back EMPTY (its volume lost meanwhile): cloned, not replicated from
  // scratch (seen in the kubelet e2e: the rejoin plan repointed the wiped server and its applier
  // stopped on the init's own schema).
  in.recovery["c"].state = "RecoveryPending";
  BOOST_TEST(pick_auto_clone(in).value_or("-") == "c");
  in.sites[2].gtid_executed = U1 + ":1";  // pending with data: recovery's business
  BOOST_TEST(!pick_auto_clone(in));
  in = base();
  in.not_before_ms["c"] = 2000;  // backoff after a failed clone
  BOOST_TEST(!pick_auto_clone(in));
  in.now_ms = 2000;
  BOOST_TEST(pick_auto_clone(in).value_or("-") == "c");
  in = base();
  in.settled_ms["c"] = 5000;  // c's last plan ended at 5000: a report polled before is stale
  in.sites[2].polled_ms = 4000;
  BOOST_TEST(!pick_auto_clone(in));
  in.sites[2].polled_ms = 5001;
  BOOST_TEST(pick_auto_clone(in).value_or("-") == "c");
  in = base();
  in.sites[2].writable = true;  // never clone a writable site
  BOOST_TEST(!pick_auto_clone(in));
  in = base();
  in.active = "c";  // never the active site itself
  BOOST_TEST(!pick_auto_clone(in));
  in = base();
  in.sites[2].reachable = false;
  BOOST_TEST(!pick_auto_clone(in));
  BOOST_TEST(auto_clone_backoff_ms(1000, 1) == 1000);
  BOOST_TEST(auto_clone_backoff_ms(1000, 3) == 4000);
  BOOST_TEST(auto_clone_backoff_ms(1000, 20) == 16000);
}

BOOST_AUTO_TEST_CASE(missing_privileges_rows) {
  const std::vector<std::string> sandbox_operator = {
      "GRANT SELECT, RELOAD, PROCESS, REPLICATION SLAVE, REPLICATION CLIENT, EVENT ON *.* TO "
      "`bloodraven`@`%`",
      "GRANT BACKUP_ADMIN,CLONE_ADMIN,CONNECTION_ADMIN,REPLICATION_SLAVE_ADMIN,SERVICE_CONNECTION_"
      "ADMIN,SYSTEM_VARIABLES_ADMIN ON *.* TO `bloodraven`@`%`",
      "GRANT ALL PRIVILEGES ON `bloodraven`.* TO `bloodraven`@`%`"};
  BOOST_TEST(missing_privileges(sandbox_operator, operator_account_privileges()).empty());
  const std::vector<std::string> repl = {
      "GRANT REPLICATION SLAVE, REPLICATION CLIENT ON *.* TO `repl`@`%`",
      "GRANT BACKUP_ADMIN,CLONE_ADMIN ON *.* TO `repl`@`%`"};
  BOOST_TEST(missing_privileges(repl, replication_account_privileges()).empty());
  // BACKUP_ADMIN only on a schema does not count; the missing one is named.
  const std::vector<std::string> weak = {
      "GRANT REPLICATION SLAVE ON *.* TO `repl`@`%`",
      "GRANT BACKUP_ADMIN ON `appdb`.* TO `repl`@`%`"};
  auto m = missing_privileges(weak, replication_account_privileges());
  BOOST_TEST(m.size() == 1u);
  BOOST_TEST(m.front() == "BACKUP_ADMIN");
  BOOST_TEST(missing_privileges({"GRANT ALL PRIVILEGES ON *.* TO `root`@`%` WITH GRANT OPTION"},
                                operator_account_privileges())
                 .empty());
  BOOST_TEST(missing_privileges({}, operator_account_privileges()).size() ==
             operator_account_privileges().size());
  // A user's operator account without PROCESS: its session kills would see no other session.
  const std::vector<std::string> no_process = {
      "GRANT REPLICATION CLIENT ON *.* TO `op`@`%`",
      "GRANT CLONE_ADMIN,CONNECTION_ADMIN,REPLICATION_SLAVE_ADMIN,SYSTEM_VARIABLES_ADMIN ON *.* TO `op`@`%`"};
  auto np = missing_privileges(no_process, operator_account_privileges());
  BOOST_TEST_REQUIRE(np.size() == 1u);
  BOOST_TEST(np.front() == "PROCESS");
}

BOOST_AUTO_TEST_CASE(record_phases_follow_the_plans) {
  bootstrap_record r;
  r.source = "fresh-deploy";
  r.seed = "a";
  r.sites = {{"a", "seed", "Pending", "", 0, 0, 0},
             {"b", "clone", "Pending", "", 0, 0, 0},
             {"c", "divergent", "Blocked", "", 0, 0, 0}};
  failover_plan seed;
  seed.kind = plan_kind::bootstrap;
  seed.candidate = "a";
  record_plan_started(r, seed, 100);
  BOOST_TEST(r.phase == "Promoting");
  plan_result ok;
  ok.ok = true;
  record_plan_done(r, seed, ok, 200);
  BOOST_TEST(r.sites[0].phase == "Done");
  BOOST_TEST(r.phase == "Pending");
  failover_plan clone;
  clone.kind = plan_kind::auto_clone;
  clone.candidate = "b";
  record_plan_started(r, clone, 300);
  BOOST_TEST(r.phase == "Cloning");
  record_plan_phase(r, clone, plan_phase::cloning);
  BOOST_TEST(r.phase == "WaitingForRestart");
  record_plan_phase(r, clone, plan_phase::restarting);
  BOOST_TEST(r.phase == "SetupReplication");
  plan_result bad;
  bad.error = "cloning: deadline exceeded";
  record_plan_done(r, clone, bad, 400);
  BOOST_TEST(r.phase == "Failed");
  record_plan_started(r, clone, 500);
  BOOST_TEST(r.sites[1].attempts == 2u);
  ok.clone_outcome = "cloned";
  record_plan_done(r, clone, ok, 600);
  BOOST_TEST(r.phase == "Done");  // the divergent site does not hold the bootstrap open
  BOOST_TEST(r.finished_ms == 600);
  BOOST_TEST(r.sites[1].message == "replicating (cloned)");
}

BOOST_AUTO_TEST_CASE(plan_step_lists_and_resume) {
  using P = plan_phase;
  auto b = plan_steps(plan_kind::bootstrap);
  BOOST_TEST(to_string(b.front()) == "verifying_accounts");
  BOOST_TEST((std::find(b.begin(), b.end(), P::gating) == b.end()));
  BOOST_TEST((std::find(b.begin(), b.end(), P::promoting) != b.end()));
  // A bootstrap resumed after its promotion was persisted never promotes again.
  auto r = resume_steps(plan_kind::bootstrap, P::promoting);
  BOOST_TEST(r.promotion_done);
  BOOST_TEST((std::find(r.steps.begin(), r.steps.end(), P::promoting) == r.steps.end()));
  auto a = plan_steps(plan_kind::auto_clone);
  BOOST_TEST(to_string(a.front()) == "fencing_old");  // the recipient is fenced before anything else
  BOOST_TEST(to_string(a[1]) == "cloning");
  BOOST_TEST(to_string(a[2]) == "restarting");
  auto ar = resume_steps(plan_kind::auto_clone, P::cloning);
  BOOST_TEST(to_string(ar.steps.front()) == "restarting");  // a persisted CLONE is not run again
}

BOOST_AUTO_TEST_SUITE_END()
