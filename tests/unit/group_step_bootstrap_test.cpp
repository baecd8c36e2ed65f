// Table tests of step() for how a group comes into being (issue 19): the bootstrap of a new group,
// bringing its sites in one plan at a time, auto-clone of a site that came back empty, resuming
// after an operator restart, and reclone requests around them. The pure rules underneath
// (decide_bootstrap, clone_need, pick_auto_clone) have their own rows in bootstrap_test.cpp; these
// drive the whole group step (actors/operator/decide/step_bootstrap.cpp) with values only.
#include <boost/test/unit_test.hpp>

#include "tests/unit/group_step_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using namespace group_step_test;

namespace {

/// Answers every queued durable write with ok and returns every effect step() asked for on the
/// way (the current ones first).
std::vector<group_effect> drain(group_fixture& f) {
  std::vector<group_effect> out = f.effects;
  for (int guard = 0; f.count<effect::persist>() > 0 && guard < 10; ++guard) {
    f.store_ok();
    out.insert(out.end(), f.effects.begin(), f.effects.end());
  }
  return out;
}

std::vector<std::string> reasons(const std::vector<group_effect>& effects) {
  std::vector<std::string> out;
  for (const auto& e : effects)
    if (auto x = std::get_if<effect::emit>(&e)) out.push_back(x->event.reason);
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

/// The plans whose executor step() started.
std::vector<failover_plan> started(const std::vector<group_effect>& effects) {
  std::vector<failover_plan> out;
  for (const auto& e : effects)
    if (auto x = std::get_if<effect::start_executor>(&e)) out.push_back(x->plan);
  return out;
}

/// A new group: nothing recorded, every site answering read-only without a channel.
std::vector<group_effect> new_group(group_fixture& f, const std::string& a, const std::string& b,
                                    const std::string& c) {
  f.load();
  auto out = drain(f);
  for (auto [s, g] : {std::pair{"a", a}, std::pair{"b", b}, std::pair{"c", c}}) {
    f.report(rep(s, site_state::read_only, g));
    auto more = drain(f);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

/// The running plan ends (ok or not); returns the effects until every write is stored.
std::vector<group_effect> finish_plan(group_fixture& f, bool ok, std::string clone_outcome = "") {
  plan_result r;
  r.id = f.st.durable.plan.id;
  r.ok = ok;
  r.reached = ok ? plan_phase::done : plan_phase::cloning;
  if (!ok) r.error = "cloning: failed";
  r.clone_outcome = std::move(clone_outcome);
  f.run(input::plan_done{r});
  return drain(f);
}

int64_t wall_ms(const group_fixture& f) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(f.clock.wall.time_since_epoch())
      .count();
}

/// One poll later: every site reports again, polled now.
std::vector<group_effect> poll(group_fixture& f, const std::map<std::string, site_report>& reports) {
  f.advance(f.rules.poll_interval);
  std::vector<group_effect> out;
  for (auto [s, r] : reports) {
    r.polled_at_ms = wall_ms(f);
    f.report(r);
    auto more = drain(f);
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

std::string actions(const bootstrap_record& r) {
  std::string s;
  for (const auto& x : r.sites) s += (s.empty() ? "" : ",") + x.name + "=" + x.action;
  return s;
}

const bootstrap_site* site_of(const bootstrap_record& r, const std::string& name) {
  for (const auto& s : r.sites)
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(group_step_bootstrap, group_fixture)

// A new group (never a primary, nobody writable or wired): the rules of decide_bootstrap meet the
// group's state. A bootstrap is recorded first (status.bootstrap), then the seed is promoted by a
// plan of kind bootstrap under a new epoch (the ordinary promotion executor).
BOOST_AUTO_TEST_CASE(new_group_table) {
  struct row {
    const char* name;
    std::string a, b, c;
    std::string seed_site;      ///< rules.seed_site ("" = the first candidate, a)
    bool b_unreachable = false;
    std::string actions;        ///< "" = no bootstrap recorded
    std::string note;           ///< prefix of st.bootstrap_note when nothing is started
    std::string event;          ///< an Event among the effects
  };
  const auto s5 = gtid(U1, 1, 5), s3 = gtid(U1, 1, 3), s7 = gtid(U1, 1, 7), other = gtid(U2, 1, 2);
  std::vector<row> rows = {
      {"all empty: the others replicate from the empty seed", "", "", "", "", false,
       "a=seed,b=replicate,c=replicate", "", "BootstrapStarted"},
      {"the seed has data: the empty ones are cloned", s5, "", "", "", false,
       "a=seed,b=clone,c=clone", "", "BootstrapStarted"},
      {"a subset of the seed is not cloned here (clone_need decides at bringing in)", s5, s3, "",
       "", false, "a=seed,b=replicate,c=clone", "", "BootstrapStarted"},
      {"a divergent site is recorded blocked, never cloned", s5, "", other, "", false,
       "a=seed,b=clone,c=divergent", "", "DataLossDetected"},
      {"spec.bootstrap.seedSite names the seed", "", s5, "", "b", false,
       "b=seed,a=clone,c=clone", "", "BootstrapStarted"},
      {"a site not answering: wait", s5, "", "", "", true, "", "waiting: waiting for b", ""},
      {"two divergent sites: refused", s5, other, gtid(U2, 1, 3) + "," + gtid(U1, 1, 1), "",
       false, "", "refused: more than one site", "BootstrapFailed"},
      {"a site holds more than the seed: refused, names the better seed", s5, s7, "", "", false, "",
       "refused: b holds every transaction of the seed a", "BootstrapFailed"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      group_fixture f;
      f.rules.seed_site = r.seed_site;
      f.load();
      drain(f);
      std::vector<group_effect> eff;
      for (auto [s, g] : {std::pair{"a", r.a}, std::pair{"b", r.b}, std::pair{"c", r.c}}) {
        f.report(s == std::string("b") && r.b_unreachable ? rep(s, site_state::unreachable)
                                                          : rep(s, site_state::read_only, g));
        auto more = drain(f);
        eff.insert(eff.end(), more.begin(), more.end());
      }
      const auto& rec = f.st.durable.bootstrap;
      BOOST_TEST(actions(rec) == r.actions);
      auto plans = started(eff);
      if (r.actions.empty()) {
        BOOST_TEST(f.st.bootstrap_note.rfind(r.note, 0) == 0u, f.st.bootstrap_note);
        BOOST_TEST(plans.empty());
        BOOST_TEST(!f.st.durable.plan_active);
        BOOST_TEST(f.st.durable.view.epoch == 0u);
      } else {
        auto seed = r.seed_site.empty() ? std::string("a") : r.seed_site;
        BOOST_TEST(rec.source == "fresh-deploy");
        BOOST_TEST(rec.seed == seed);
        BOOST_TEST(site_of(rec, seed)->phase == "Promoting");
        // The normal promotion path: one plan, of kind bootstrap, under a new epoch; nobody is
        // deposed (there never was a primary).
        BOOST_REQUIRE_EQUAL(plans.size(), 1u);
        BOOST_TEST(plans[0].kind == plan_kind::bootstrap);
        BOOST_TEST(plans[0].candidate == seed);
        BOOST_TEST(plans[0].old_primary == "");
        BOOST_TEST(f.st.durable.plan_active);
        BOOST_TEST(f.st.durable.view.epoch == 1u);
        BOOST_TEST(f.st.view.active_site == "");
      }
      if (!r.event.empty()) BOOST_TEST(has(reasons(eff), r.event), r.event);
      if (r.actions.find("c=divergent") != std::string::npos) {
        BOOST_TEST(site_of(rec, "c")->phase == "Blocked");
        BOOST_TEST(f.st.durable.recovery["c"].state == "RecoveryBlocked");
        BOOST_TEST(f.st.durable.recovery["c"].divergent_gtid == other);
      }
    }
  }
}

// After the seed's promotion the other sites are brought in one auto_clone plan at a time, from
// the seed; a divergent site never gets a plan; the record ends Done with BootstrapCompleted, and
// a bootstrap starts no anti-flap cooldown.
BOOST_AUTO_TEST_CASE(sites_are_brought_in_one_plan_at_a_time_and_a_divergent_one_never) {
  // b (declared before c) is divergent: it is passed over, c is brought in.
  const auto s5 = gtid(U1, 1, 5), other = gtid(U2, 1, 2);
  new_group(*this, s5, other, "");
  BOOST_REQUIRE(st.durable.plan_active);
  auto eff = finish_plan(*this, true);
  BOOST_TEST(st.view.active_site == "a");
  BOOST_TEST(st.durable.last_failover_ms == 0);  // no cooldown after a bootstrap (S7)
  BOOST_TEST(site_of(st.durable.bootstrap, "a")->phase == "Done");
  BOOST_TEST(started(eff).empty());  // nothing before the next poll
  std::map<std::string, site_report> reports = {{"a", rep("a", site_state::writable, s5)},
                                                {"b", rep("b", site_state::read_only, other)},
                                                {"c", rep("c", site_state::read_only, "")}};
  eff = poll(*this, reports);
  auto plans = started(eff);
  BOOST_REQUIRE_EQUAL(plans.size(), 1u);
  BOOST_TEST(plans[0].kind == plan_kind::auto_clone);
  BOOST_TEST(plans[0].candidate == "c");
  BOOST_TEST(plans[0].source == "a");
  BOOST_TEST(plans[0].epoch == st.view.epoch);  // bringing in is no promotion: same epoch
  BOOST_TEST(site_of(st.durable.bootstrap, "c")->phase == "Cloning");
  BOOST_TEST(site_of(st.durable.bootstrap, "b")->phase == "Blocked");
  // While c's plan runs, nothing else starts (one plan at a time).
  BOOST_TEST(started(poll(*this, reports)).empty());
  eff = finish_plan(*this, true, "cloned");
  BOOST_TEST(has(reasons(eff), "BootstrapSiteCloned"));
  BOOST_TEST(has(reasons(eff), "BootstrapCompleted"));
  BOOST_TEST(st.durable.bootstrap.phase == "Done");
  BOOST_TEST(site_of(st.durable.bootstrap, "b")->phase == "Blocked");
  // c's last report is from before its plan ended (polled during its CLONE: empty, no channel).
  // It is no evidence that c came back empty: no auto-clone until a newer poll.
  advance(rules.poll_interval);
  auto stale = reports["c"];
  stale.polled_at_ms = wall_ms(*this) - 3000;
  report(stale);
  BOOST_TEST(started(drain(*this)).empty());
  report(reports["a"]);
  BOOST_TEST(started(drain(*this)).empty());
  BOOST_TEST(st.durable.bootstrap.source == "fresh-deploy");
  // c's next poll shows it replicating.
  reports["c"] = rep("c", site_state::read_only, s5, true);
  for (int i = 0; i < 3; ++i) BOOST_TEST(started(poll(*this, reports)).empty());
  // Had it really come back empty after that, it would be auto-cloned (a fresh poll counts).
  reports["c"] = rep("c", site_state::read_only, "");
  auto later = started(poll(*this, reports));
  BOOST_REQUIRE_EQUAL(later.size(), 1u);
  BOOST_TEST(later[0].kind == plan_kind::auto_clone);
  BOOST_TEST(st.durable.bootstrap.source == "auto-clone");
  BOOST_TEST(st.durable.recovery["b"].state == "RecoveryBlocked");
}

// A site of a running group that comes back empty (a lost volume) is cloned from the active
// site: the record (source auto-clone) is written first, then one auto_clone plan. Everything
// else is left to replication, recovery or reclone.
BOOST_AUTO_TEST_CASE(auto_clone_table) {
  struct row {
    const char* name;
    site_report b;
    std::string b_recovery;  ///< durable recovery state of b
    std::string active_gtid;
    bool planned;
  };
  const auto s5 = gtid(U1, 1, 5);
  std::vector<row> rows = {
      {"empty, fenced, no channel: auto-clone", rep("b", site_state::read_only, ""), "", s5, true},
      {"has data: never auto-cloned", rep("b", site_state::read_only, gtid(U1, 1, 3)), "", s5,
       false},
      {"a channel is configured: replication's business",
       rep("b", site_state::read_only, "", true), "", s5, false},
      {"RecoveryBlocked: reclone's business", rep("b", site_state::read_only, ""),
       "RecoveryBlocked", s5, false},
      {"the active site has nothing to clone", rep("b", site_state::read_only, ""), "", "", false},
      {"unreachable", rep("b", site_state::unreachable), "", s5, false},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      group_fixture f;
      durable_state d;
      d.view = {1, "a", "", 1, {}};
      if (!r.b_recovery.empty()) d.recovery["b"].state = r.b_recovery;
      f.load(d);
      drain(f);
      std::vector<group_effect> eff;
      for (const auto& rp : {rep("a", site_state::writable, r.active_gtid),
                             rep("c", site_state::read_only, r.active_gtid, true), r.b}) {
        f.report(rp);
        auto more = drain(f);
        eff.insert(eff.end(), more.begin(), more.end());
      }
      auto plans = started(eff);
      bool auto_clone = !plans.empty() && plans[0].kind == plan_kind::auto_clone;
      BOOST_TEST(auto_clone == r.planned);
      if (r.planned) {
        BOOST_REQUIRE_EQUAL(plans.size(), 1u);
        BOOST_TEST(plans[0].candidate == "b");
        BOOST_TEST(plans[0].source == "a");
        BOOST_TEST(f.st.durable.bootstrap.source == "auto-clone");
        BOOST_TEST(f.st.durable.bootstrap.seed == "a");
        BOOST_TEST(site_of(f.st.durable.bootstrap, "b")->phase == "Cloning");
        BOOST_TEST(has(reasons(eff), "AutoCloneStarted"));
        BOOST_TEST(f.st.durable.view.epoch == 1u);  // no new epoch: b is not promoted
      } else {
        BOOST_TEST(f.st.durable.bootstrap.source != "auto-clone");
      }
    }
  }
}

// A failed auto-clone is retried after a backoff (plan_retry_delay x 2^(attempts-1)), not at once.
BOOST_AUTO_TEST_CASE(a_failed_auto_clone_is_retried_after_its_backoff) {
  const auto s5 = gtid(U1, 1, 5);
  durable_state d;
  d.view = {1, "a", "", 1, {}};
  load(d);
  drain(*this);
  std::map<std::string, site_report> reports = {{"a", rep("a", site_state::writable, s5)},
                                                {"b", rep("b", site_state::read_only, "")},
                                                {"c", rep("c", site_state::read_only, s5, true)}};
  BOOST_REQUIRE_EQUAL(started(poll(*this, reports)).size(), 1u);
  auto eff = finish_plan(*this, false);
  BOOST_TEST(has(reasons(eff), "BootstrapFailed"));
  BOOST_TEST(site_of(st.durable.bootstrap, "b")->phase == "Failed");
  BOOST_TEST(site_of(st.durable.bootstrap, "b")->attempts == 1u);
  BOOST_TEST(started(poll(*this, reports)).empty());  // 2 s later: inside the 30 s backoff
  advance(30s);
  auto plans = started(poll(*this, reports));
  BOOST_REQUIRE_EQUAL(plans.size(), 1u);
  BOOST_TEST(plans[0].candidate == "b");
  BOOST_TEST(site_of(st.durable.bootstrap, "b")->attempts == 2u);
}

// An operator restarted in the middle of a bootstrap resumes the persisted plan from its phase
// and starts no second one; a bootstrap whose seed was promoted goes on with the next site and
// never bootstraps again.
BOOST_AUTO_TEST_CASE(a_resumed_bootstrap_starts_no_second_plan) {
  const auto s5 = gtid(U1, 1, 5);
  bootstrap_record rec;
  rec.source = "fresh-deploy";
  rec.seed = "a";
  rec.phase = "Promoting";
  rec.sites = {{"a", "seed", "Promoting", "", 1, 0, 1},
               {"b", "clone", "Pending", "", 0, 0, 0},
               {"c", "clone", "Pending", "", 0, 0, 0}};
  struct row {
    const char* name;
    plan_kind kind;
    std::string candidate;
    plan_phase phase;
    std::string active;
  };
  std::vector<row> rows = {
      {"the seed's promotion", plan_kind::bootstrap, "a", plan_phase::promoting, ""},
      {"bringing b in, in its CLONE", plan_kind::auto_clone, "b", plan_phase::cloning, "a"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      group_fixture f;
      durable_state d;
      d.view = {1, r.active, "", 1, {}};
      d.plan_active = true;
      d.plan.id = 7;
      d.plan.kind = r.kind;
      d.plan.candidate = r.candidate;
      d.plan.source = r.active;
      d.plan.phase = r.phase;
      d.bootstrap = rec;
      if (!r.active.empty()) d.bootstrap.sites[0].phase = "Done";
      f.load(d);
      auto eff = f.effects;
      auto plans = started(eff);
      BOOST_REQUIRE_EQUAL(plans.size(), 1u);
      BOOST_TEST(plans[0].id == 7u);  // the persisted plan, from its persisted phase
      BOOST_TEST(plans[0].phase == r.phase);
      BOOST_TEST(f.count<effect::persist>() == 0u);
      std::vector<group_effect> more;
      for (int i = 0; i < 3; ++i) {
        f.advance(f.rules.poll_interval);
        for (auto s : {"a", "b", "c"}) {
          f.report(rep(s, s == r.active ? site_state::writable : site_state::read_only,
                       s == std::string("a") ? s5 : ""));
          auto e = drain(f);
          more.insert(more.end(), e.begin(), e.end());
        }
      }
      BOOST_TEST(started(more).empty());
      BOOST_TEST(f.st.durable.plan.id == 7u);
    }
  }
  // Restarted after the promotion, before b's plan was started: b (and only b) is next.
  durable_state d;
  d.view = {2, "a", "", 1, {}};
  d.last_failover_target = "a";
  d.plan.id = 7;
  d.plan.kind = plan_kind::bootstrap;
  d.plan.phase = plan_phase::done;
  d.bootstrap = rec;
  d.bootstrap.sites[0].phase = "Done";
  d.bootstrap.phase = "Pending";
  load(d);
  auto eff = drain(*this);
  for (auto s : {"a", "b", "c"}) {
    report(rep(s, s == std::string("a") ? site_state::writable : site_state::read_only,
               s == std::string("a") ? s5 : ""));
    auto e = drain(*this);
    eff.insert(eff.end(), e.begin(), e.end());
  }
  auto plans = started(eff);
  BOOST_REQUIRE_EQUAL(plans.size(), 1u);
  BOOST_TEST(plans[0].kind == plan_kind::auto_clone);
  BOOST_TEST(plans[0].candidate == "b");
  BOOST_TEST(plans[0].id == 8u);
}

// A bootstrap record the store refused starts no plan (review finding 6): the plan follows its
// record only once the record is stored, and the next evaluation decides again.
BOOST_AUTO_TEST_CASE(a_refused_bootstrap_record_starts_no_plan) {
  const auto s5 = gtid(U1, 1, 5);
  load();
  drain(*this);
  for (auto [s, g] : {std::pair{"a", s5}, std::pair{"b", std::string()}, std::pair{"c", std::string()}}) {
    report(rep(s, site_state::read_only, g));
    if (std::string(s) != "c") drain(*this);
  }
  // c's report completed the picture: the record is being written.
  BOOST_REQUIRE(st.persisting.has_value());
  BOOST_REQUIRE(std::holds_alternative<change_bootstrap>(*st.persisting));
  run(input::persisted{false, "conflict"});
  BOOST_TEST(started(effects).empty());
  BOOST_TEST(count<effect::persist>() == 0u);  // no plan-start write queued behind it
  BOOST_TEST(!st.durable.plan_active);
  BOOST_TEST(st.durable.view.epoch == 0u);
  BOOST_TEST(st.durable.bootstrap.source.empty());
  // A later poll decides again: record, then (stored) the plan.
  std::map<std::string, site_report> reports = {{"a", rep("a", site_state::read_only, s5)},
                                                {"b", rep("b", site_state::read_only, "")},
                                                {"c", rep("c", site_state::read_only, "")}};
  auto plans = started(poll(*this, reports));
  BOOST_REQUIRE_EQUAL(plans.size(), 1u);
  BOOST_TEST(plans[0].kind == plan_kind::bootstrap);
  BOOST_TEST(st.durable.bootstrap.source == "fresh-deploy");
}

// A failover during a fresh-deploy bootstrap (the seed lost after its promotion, b already
// brought in and promoted): the promoted site's entry is Done and the remaining site c is brought
// in from the new primary b (review finding 7: it used to wait for the seed for ever).
BOOST_AUTO_TEST_CASE(a_failover_during_the_bootstrap_brings_the_rest_in_from_the_new_primary) {
  const auto s5 = gtid(U1, 1, 5);
  bootstrap_record rec;
  rec.source = "fresh-deploy";
  rec.seed = "a";
  rec.phase = "Pending";
  rec.sites = {{"a", "seed", "Done", "", 1, 2, 1},
               {"b", "clone", "Done", "", 3, 4, 1},
               {"c", "clone", "Pending", "", 0, 0, 0}};
  durable_state d;
  d.view = {3, "a", "", 1, {}};
  d.last_failover_target = "a";
  d.bootstrap = rec;
  // A failover to b ended: the durable change of its result.
  failover_plan plan;
  plan.id = 9;
  plan.kind = plan_kind::failover;
  plan.candidate = "b";
  plan.old_primary = "a";
  plan.epoch = 4;
  plan_result res;
  res.id = 9;
  res.ok = true;
  res.reached = plan_phase::done;
  d.plan_active = true;
  d.plan = plan;
  auto after = apply_change(d, change_plan_done{plan, res, 100});
  BOOST_TEST(after.view.active_site == "b");
  // b's entry already Done stays as it was; c is still to be brought in.
  BOOST_TEST(site_of(after.bootstrap, "b")->phase == "Done");
  BOOST_TEST(site_of(after.bootstrap, "c")->phase == "Pending");
  // Had the failover promoted c (not yet brought in), c's entry would be Done: it is the primary.
  failover_plan to_c = plan;
  to_c.candidate = "c";
  auto c_after = apply_change(d, change_plan_done{to_c, res, 100});
  BOOST_TEST(site_of(c_after.bootstrap, "c")->phase == "Done");
  BOOST_TEST(site_of(c_after.bootstrap, "c")->message == "promoted by a failover during the bootstrap");
  BOOST_TEST(c_after.bootstrap.phase == "Done");
  // The group, loaded with b active: c is brought in from b.
  load(after);
  auto eff = drain(*this);
  std::map<std::string, site_report> reports = {{"a", rep("a", site_state::unreachable)},
                                                {"b", rep("b", site_state::writable, s5)},
                                                {"c", rep("c", site_state::read_only, "")}};
  auto more = poll(*this, reports);
  eff.insert(eff.end(), more.begin(), more.end());
  auto plans = started(eff);
  BOOST_REQUIRE_EQUAL(plans.size(), 1u);
  BOOST_TEST(plans[0].kind == plan_kind::auto_clone);
  BOOST_TEST(plans[0].candidate == "c");
  BOOST_TEST(plans[0].source == "b");
}

// Reclone requests around a bootstrap (on_annotate + validate_reclone_token): refused while any
// plan runs (acted on once; the requester asks again), refused for the active site and before
// there is one; a healthy replica only with the cold confirmation; a divergent site only with its
// divergentGtid prefix. After a reclone is Done the divergence is gone, so the same prefix is
// refused and only a cold confirmation would be accepted.
BOOST_AUTO_TEST_CASE(reclone_requests_around_a_bootstrap) {
  const auto s5 = gtid(U1, 1, 5), other = gtid(U2, 1, 2);
  auto ask = [&](group_fixture& f, const std::string& value) {
    f.run(input::annotate{reclone_annotation, value});
    BOOST_REQUIRE(f.answer.has_value());
    return *f.answer;
  };
  // Before there is an active site (the seed's promotion runs): every request is refused.
  new_group(*this, s5, "", other);
  BOOST_REQUIRE(st.durable.plan_active);
  auto a = ask(*this, "c:4e11fa47");
  BOOST_TEST(a.rfind("rejected: another plan (bootstrap) is running", 0) == 0u, a);
  BOOST_TEST(has(reasons(effects), "RecloneRejected"));
  finish_plan(*this, true);
  std::map<std::string, site_report> reports = {{"a", rep("a", site_state::writable, s5)},
                                                {"b", rep("b", site_state::read_only, "")},
                                                {"c", rep("c", site_state::read_only, other)}};
  poll(*this, reports);
  BOOST_REQUIRE(st.durable.plan_active);
  BOOST_REQUIRE(st.durable.plan.kind == plan_kind::auto_clone);
  a = ask(*this, "c:4e11fa47");
  BOOST_TEST(a.rfind("rejected: another plan (auto_clone) is running", 0) == 0u, a);
  BOOST_TEST(count<effect::persist>() == 0u);
  finish_plan(*this, true, "cloned");
  BOOST_REQUIRE(!st.durable.plan_active);

  struct row {
    const char* name;
    std::string value;
    std::string answer_prefix;
  };
  std::vector<row> rows = {
      {"the active site", "a:confirm=g", "rejected: refusing to reclone a: it is the active"},
      {"a healthy replica, cold confirmation", "b:confirm=g", "accepted: reclone of b"},
      {"a healthy replica, a prefix", "b:4e11fa47", "rejected: b has no recorded divergentGtid"},
      {"the divergent site, cold confirmation", "c:confirm=g", "rejected: cold reclone"},
      {"the divergent site, a short prefix", "c:4e11", "rejected: divergentGtid prefix too short"},
      {"the divergent site, its prefix", "c:4E11FA47-71ca", "accepted: reclone of c"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      group_fixture f;
      f.st = st;  // the bootstrapped group, no plan running
      auto got = ask(f, r.value);
      BOOST_TEST(got.rfind(r.answer_prefix, 0) == 0u, got);
      bool accepted = r.answer_prefix.rfind("accepted", 0) == 0;
      auto eff = drain(f);
      BOOST_TEST(has(reasons(eff), accepted ? "RecloneRequested" : "RecloneRejected"));
      auto plans = started(eff);
      BOOST_TEST(plans.size() == (accepted ? 1u : 0u));
      if (accepted) {
        BOOST_TEST(plans[0].kind == plan_kind::reclone);
        BOOST_TEST(plans[0].source == "a");
        BOOST_TEST(f.st.durable.bootstrap.source == "reclone");
        BOOST_TEST(f.st.durable.view.epoch == st.durable.view.epoch);
      }
    }
  }
  // The divergent site recloned: Done, its divergence forgotten, the same prefix now refused.
  a = ask(*this, "c:4e11fa47");
  BOOST_REQUIRE(a.rfind("accepted", 0) == 0u);
  drain(*this);
  auto eff = finish_plan(*this, true);
  BOOST_TEST(has(reasons(eff), "RecoveryComplete"));
  BOOST_TEST(st.durable.bootstrap.source == "reclone");
  BOOST_TEST(site_of(st.durable.bootstrap, "c")->phase == "Done");
  BOOST_TEST(!st.durable.recovery.count("c"));
  a = ask(*this, "c:4e11fa47");
  BOOST_TEST(a.rfind("rejected: c has no recorded divergentGtid", 0) == 0u, a);
  a = ask(*this, "c:confirm=g");
  BOOST_TEST(a.rfind("accepted", 0) == 0u, a);
}

// spec.initFromBackup not Succeeded yet (rules.restore_hold, issue 21): a group that never had
// a primary does nothing but poll, whatever its sites report: no bootstrap, no adoption of the
// restore target the Job made writable, no fence of it, no failover. A group that had a primary
// is not held (the restore refuses a server with data, so it is never overwritten).
BOOST_AUTO_TEST_CASE(restore_pending_holds_a_new_group) {
  const auto s5 = gtid(U1, 1, 5);
  struct row {
    const char* name;
    std::string hold;
    std::string active;  ///< the durable view's active site ("" = never had a primary)
    site_state a_state;  ///< a is the restore target
    bool held;
  };
  const std::string why = "the restore of spec.initFromBackup has not succeeded yet";
  std::vector<row> rows = {
      {"restore pending, every site fenced: no bootstrap", why, "", site_state::read_only, true},
      {"restore pending, the target writable while it loads: no adoption", why, "",
       site_state::writable, true},
      {"restore Succeeded (no hold): the bootstrap seeds from the restored site", "", "",
       site_state::read_only, false},
      {"held, but the group had a primary: the ordinary rules", why, "a", site_state::writable,
       false},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      group_fixture f;
      f.rules.restore_hold = r.hold;
      durable_state d;
      if (!r.active.empty()) d.view = {1, r.active, "", 1, {}};
      f.load(d);
      auto eff = drain(f);
      for (auto [s, g] : {std::pair{"a", s5}, std::pair{"b", std::string{}},
                          std::pair{"c", std::string{}}}) {
        f.report(s == std::string("a") ? rep(s, r.a_state, g) : rep(s, site_state::read_only, g));
        auto more = drain(f);
        eff.insert(eff.end(), more.begin(), more.end());
      }
      if (r.held) {
        BOOST_TEST(started(eff).empty());
        BOOST_TEST(f.st.durable.bootstrap.source.empty());
        BOOST_TEST(f.st.durable.view.active_site.empty());
        BOOST_TEST(f.st.durable.view.epoch == 0u);
        size_t fences = 0;
        for (const auto& e : eff)
          if (std::holds_alternative<effect::fence>(e)) ++fences;
        BOOST_TEST(fences == 0u);
        BOOST_TEST(f.st.bootstrap_note == "waiting: " + r.hold);
      } else if (r.active.empty()) {
        BOOST_TEST(actions(f.st.durable.bootstrap) == "a=seed,b=clone,c=clone");
        BOOST_TEST(started(eff).size() == 1u);
      } else {
        BOOST_TEST(f.st.bootstrap_note.empty());
        BOOST_TEST(f.st.durable.view.active_site == "a");
      }
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
