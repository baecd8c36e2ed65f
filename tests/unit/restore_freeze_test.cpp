// spec.restoreInPlace's arming and freeze (issue 21): the pure rules (decide/restore_freeze.hpp)
// and step() with values only: the token is recorded before the fence, is used once, and while
// the group is frozen no rule that starts a plan, adopts, re-asserts or restarts a receiver acts.
// Every freeze row runs the same situation unfrozen first and requires the rule to act there, so
// a row cannot pass because its situation started nothing anyway.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/restore_freeze.hpp"
#include "tests/unit/group_step_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using namespace group_step_test;

namespace br {
inline std::ostream& operator<<(std::ostream& os, const restore_freeze_record& r) {
  return os << "{" << r.token << ", " << (r.frozen ? "frozen" : "open") << ", " << r.site << "}";
}
}  // namespace br

namespace {

const std::string T1 = "2026-11-26T15:00:00Z";
const std::string T0 = "2026-11-26T14:00:00Z";
const std::string T2 = "2026-11-26T16:00:00Z";

restore_freeze_facts healthy() {
  restore_freeze_facts f;
  f.active_site = "a";
  f.active_writable = true;
  f.active_known = true;
  return f;
}

/// Whether step() acted: a durable write, a plan's executor, a re-assert, a receiver restart, a
/// fence or a set read (the returning-primary check), or an accepted request.
bool acted(const group_fixture& f, const std::vector<std::string>& allowed_fences = {}) {
  for (const auto& s : f.fenced())
    if (std::find(allowed_fences.begin(), allowed_fences.end(), s) == allowed_fences.end()) return true;
  return f.count<effect::persist>() > 0 || f.count<effect::start_executor>() > 0 ||
         f.count<effect::reassert>() > 0 || f.count<effect::start_receiver>() > 0 ||
         f.count<effect::read_gtid>() > 0 || (f.answer && f.answer->rfind("accepted:", 0) == 0);
}

durable_state viewed(uint64_t epoch, const std::string& active) {
  durable_state d;
  d.view = {epoch, active, "", 1, {}};
  return d;
}

durable_state with_freeze(durable_state d, bool frozen, const std::string& site) {
  if (frozen) d.restore_freeze = {T1, true, site, {}, {}};
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(restore_freeze)

BOOST_AUTO_TEST_CASE(requests_parse) {
  restore_freeze_request rq;
  BOOST_TEST(parse_restore_freeze_request("freeze:" + T1 + ":a", rq));
  BOOST_TEST((rq.verb == restore_freeze_verb::freeze));
  BOOST_TEST(rq.token == T1);
  BOOST_TEST(rq.site == "a");
  BOOST_TEST(parse_restore_freeze_request("freeze:2026-11-26T16:00:00+01:00:pdx", rq));
  BOOST_TEST(rq.token == "2026-11-26T16:00:00+01:00");
  BOOST_TEST(rq.site == "pdx");
  BOOST_TEST(parse_restore_freeze_request("lift:" + T1, rq));
  BOOST_TEST((rq.verb == restore_freeze_verb::lift));
  BOOST_TEST(rq.token == T1);
  BOOST_TEST(parse_restore_freeze_request("cancel:" + T1, rq));
  BOOST_TEST((rq.verb == restore_freeze_verb::cancel));
  BOOST_TEST(parse_restore_freeze_request("abandon:" + T1, rq));
  BOOST_TEST((rq.verb == restore_freeze_verb::abandon));
  for (const char* bad : {"", "freeze", "freeze:", "thaw:x", ":x", "freeze:a", "freeze::a", "freeze:x:"})
    BOOST_TEST(!parse_restore_freeze_request(bad, rq), bad);
}

BOOST_AUTO_TEST_CASE(arming_table) {
  struct row {
    const char* name;
    std::function<void(restore_freeze_facts&)> edit;
    std::string token;
    bool accepted, changes;
    std::string reason;  ///< a piece of it
  };
  const std::vector<row> rows = {
      {"first token, healthy group", [](auto&) {}, T1, true, true, "recorded"},
      {"the freeze names another site than the active one (H2: a switchover since the preflight)",
       [](auto& f) { f.active_site = "b"; }, T1, false, false, "the restore targets a but the active site is b"},
      {"the target fenced and pending after an abandoned restore: restored again (M8)",
       [](auto& f) { f.active_writable = false, f.now = {T1, false, "a", {}, {"a", "b", "c"}}; }, T2, true, true, "recorded"},
      {"fenced, pending, but the abandoned restore was of another site",
       [](auto& f) { f.active_writable = false, f.now = {T1, false, "b", {}, {"a", "b", "c"}}; }, T2, false, false, "not writable"},
      {"not RFC 3339", [](auto&) {}, "tomorrow", false, false, "not an RFC 3339 time"},
      {"the used token again (an operator restart never runs it twice)",
       [](auto& f) { f.now = {T1, false, "a", {}, {}}; }, T1, false, false, "not newer"},
      {"an older token", [](auto& f) { f.now = {T1, false, "a", {}, {}}; }, T0, false, false, "not newer"},
      {"the same instant written differently", [](auto& f) { f.now = {T1, false, "a", {}, {}}; },
       "2026-11-26T16:00:00+01:00", false, false, "not newer"},
      {"a newer token", [](auto& f) { f.now = {T1, false, "a", {}, {}}; }, T2, true, true, "recorded"},
      {"frozen, the same token: nothing changes", [](auto& f) { f.now = {T1, true, "a", {}, {}}; }, T1, true, false,
       "already frozen"},
      {"frozen, another token", [](auto& f) { f.now = {T1, true, "a", {}, {}}; }, T2, false, false, "lifted first"},
      {"no active primary", [](auto& f) { f.active_site.clear(); }, T1, false, false, "no active primary"},
      {"the active site not writable", [](auto& f) { f.active_writable = false; }, T1, false, false, "not writable"},
      {"the active site not polled yet (a restart): wait, not refused",
       [](auto& f) { f.active_writable = false, f.active_known = false; }, T1, false, false, "waiting for a conclusive poll"},
      {"a plan runs", [](auto& f) { f.plan_running = true; }, T1, false, false, "a plan is running"},
      {"a bootstrap runs", [](auto& f) { f.bootstrap_running = true; }, T1, false, false, "bootstrap"},
      {"a planned failover is Deferred", [](auto& f) { f.planned_deferred = true; }, T1, false, false, "Deferred"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto f = healthy();
      r.edit(f);
      auto v = check_freeze(f, r.token, "a");
      BOOST_TEST(v.accepted == r.accepted);
      BOOST_TEST(v.wait == (r.reason == "waiting for a conclusive poll"));
      BOOST_TEST(v.changes == r.changes);
      BOOST_TEST(v.reason.find(r.reason) != std::string::npos, v.reason);
      if (v.changes) {
        BOOST_TEST(v.next.token == r.token);
        BOOST_TEST(v.next.frozen);
        BOOST_TEST(v.next.site == "a");
        BOOST_TEST(v.next.pending == f.now.pending);  // released only by reclones
      } else {
        BOOST_TEST(v.next == f.now);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(lifting_table) {
  auto f = healthy();
  f.sites = {"a", "b", "c"};
  const auto lift = restore_freeze_verb::lift;
  BOOST_TEST(check_unfreeze(f, lift, T1).accepted);  // not frozen: nothing to lift
  BOOST_TEST(!check_unfreeze(f, lift, T1).changes);
  f.now = {T1, true, "a", {}, {}};
  auto other = check_unfreeze(f, lift, T2);
  BOOST_TEST(!other.accepted);
  BOOST_TEST(other.reason.find("belongs to token " + T1) != std::string::npos, other.reason);
  struct row {
    const char* name;
    restore_freeze_verb verb;
    std::vector<std::string> pending_before, pending_after;
  };
  const std::vector<row> rows = {
      // H1: the others may hold what the restore discarded until recloned from a.
      {"lift: loaded, the other sites restore-pending", lift, {}, {"b", "c"}},
      {"lift: an earlier abandoned target is restored now", lift, {"a", "b", "c"}, {"b", "c"}},
      {"cancel: nothing loaded, nobody pending", restore_freeze_verb::cancel, {}, {}},
      {"cancel keeps an earlier restore's pending sites", restore_freeze_verb::cancel, {"c"}, {"c"}},
      // M8: a Failed restore lifted by a person: a half-loaded target is held too.
      {"abandon: every site pending, the target too", restore_freeze_verb::abandon, {}, {"a", "b", "c"}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      f.now = {T1, true, "a", {}, r.pending_before};
      auto v = check_unfreeze(f, r.verb, T1);
      BOOST_TEST(v.accepted);
      BOOST_TEST(v.changes);
      BOOST_TEST(!v.next.frozen);
      BOOST_TEST(v.next.token == T1);  // the used token stays recorded
      BOOST_TEST(v.next.pending == r.pending_after, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(a_reclone_releases_its_site_only_when_it_succeeded) {  // M7
  restore_freeze_record r{T1, false, "a", {"b"}, {"b", "c"}};
  auto failed = after_reclone(r, "b", false);
  BOOST_TEST(failed.pending == (std::vector<std::string>{"b", "c"}), boost::test_tools::per_element());
  BOOST_TEST(failed.recloned.empty());  // may be asked again
  auto ok = after_reclone(r, "b", true);
  BOOST_TEST(ok.pending == std::vector<std::string>{"c"}, boost::test_tools::per_element());
  BOOST_TEST(ok.recloned == std::vector<std::string>{"b"}, boost::test_tools::per_element());
  BOOST_TEST(after_reclone(r, "x", false) == r);  // not pending: untouched
}

BOOST_AUTO_TEST_CASE(the_token_is_recorded_before_the_fence_and_used_once) {
  group_fixture f;
  f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1 + ":a"});
  BOOST_REQUIRE(f.answer.has_value());
  BOOST_TEST(f.answer->rfind("accepted:", 0) == 0u, *f.answer);
  BOOST_TEST(f.persisted_next().restore_freeze == (restore_freeze_record{T1, true, "a", {}, {}}));
  BOOST_TEST(f.fenced().empty());  // nothing is changed before the store holds the token
  f.store_ok();
  BOOST_TEST(f.fenced() == std::vector<std::string>{"a"});
  BOOST_TEST(f.count<effect::stop_receiver>() == 2u);  // b and c stop replicating from a
  BOOST_TEST(f.has_event("RestoreInPlaceFrozen"));
  f.run(input::fenced{"a", true});
  // The controller asks again (restarted mid-way, or its next Fencing pass): nothing is stored,
  // the fence and the STOP REPLICA go again (H3: a site down at the first one gets it now).
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1 + ":a"});
  BOOST_TEST(f.answer->rfind("accepted: already frozen", 0) == 0u, *f.answer);
  BOOST_TEST(f.count<effect::persist>() == 0u);
  BOOST_TEST(f.fenced() == std::vector<std::string>{"a"});
  BOOST_TEST(f.count<effect::stop_receiver>() == 2u);
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1 + ":b"});  // the same token, another site
  BOOST_TEST(f.answer->find("holds site a, not b") != std::string::npos, *f.answer);
  BOOST_TEST(f.count<effect::stop_receiver>() == 0u);
  // The restore's target, fenced and writable in turn while the Job loads it, is left alone.
  f.report(rep("a", site_state::read_only, gtid(U1, 1, 5)));
  f.advance(3s);
  f.report(rep("a", site_state::writable, ""));
  BOOST_TEST(!acted(f));
  // Lifted by its token: recorded first, then unfenced through the promotion path.
  f.run(input::annotate{restore_freeze_key, "lift:" + T2});
  BOOST_TEST(f.answer->rfind("rejected:", 0) == 0u, *f.answer);
  f.run(input::annotate{restore_freeze_key, "lift:" + T1});
  BOOST_TEST(f.answer->rfind("accepted:", 0) == 0u, *f.answer);
  BOOST_TEST(!f.persisted_next().restore_freeze.frozen);
  BOOST_TEST(f.persisted_next().restore_freeze.pending == (std::vector<std::string>{"b", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST(f.count<effect::reassert>() == 0u);
  f.store_ok();
  BOOST_REQUIRE_EQUAL(f.count<effect::reassert>(), 1u);
  BOOST_TEST(f.all<effect::reassert>().front().site == "a");
  BOOST_TEST(f.has_event("RestoreInPlaceResumed"));
  // The same token never arms again; a newer one does.
  f.report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1 + ":a"});
  BOOST_TEST(f.answer->find("not newer") != std::string::npos, *f.answer);
  f.run(input::annotate{restore_freeze_key, "freeze:" + T2 + ":a"});
  BOOST_TEST(f.answer->rfind("accepted:", 0) == 0u, *f.answer);
}

BOOST_AUTO_TEST_CASE(a_group_replication_group_is_refused) {
  group_fixture f;
  f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  f.rules.gr.enabled = true;
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1 + ":a"});
  BOOST_REQUIRE(f.answer.has_value());
  BOOST_TEST(f.answer->find("Group Replication") != std::string::npos, *f.answer);
  BOOST_TEST(f.count<effect::persist>() == 0u);
}

BOOST_AUTO_TEST_CASE(a_refused_write_changes_nothing) {
  group_fixture f;
  f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1 + ":a"});
  f.run(input::persisted{false, "conflict"});
  BOOST_TEST(f.fenced().empty());
  BOOST_TEST(!f.st.durable.restore_freeze.frozen);
  BOOST_TEST(!f.has_event("RestoreInPlaceFrozen"));
}

// One row per rule that starts something; each acts unfrozen and does nothing frozen (the
// freeze loaded from the durable state, as after an operator restart mid-restore).
BOOST_AUTO_TEST_CASE(the_freeze_stops_every_rule_that_starts_a_plan) {
  const auto s5 = gtid(U1, 1, 5);
  struct row {
    const char* name;
    std::function<void(group_fixture&, bool frozen)> run;
    std::vector<std::string> frozen_fences = {};  ///< fences still made while frozen
  };
  const std::vector<row> rows = {
      {"failover: the primary is lost",
       [&](group_fixture& f, bool fr) {
         f.load(with_freeze(viewed(1, "a"), fr, "a"));
         f.report(rep("b", site_state::read_only, s5, true));
         f.report(rep("c", site_state::read_only, s5, true));
         f.report(rep("a", site_state::unreachable));
       }},
      {"split brain: another site writable too (fenced, no plan)",
       [&](group_fixture& f, bool fr) {
         f.rules.site_priorities = {"b"};
         f.load(with_freeze(viewed(1, "a"), fr, "a"));
         f.report(rep("c", site_state::read_only, s5, true));
         f.report(rep("a", site_state::writable, s5));
         f.report(rep("b", site_state::writable, gtid(U1, 1, 6)));
       },
       {"b"}},
      {"adoption of the single writable candidate",
       [&](group_fixture& f, bool fr) {
         f.load(with_freeze({}, fr, "a"));
         f.report(rep("b", site_state::read_only, s5, true));
         f.report(rep("c", site_state::read_only, s5, true));
         f.report(rep("a", site_state::writable, s5));
       }},
      {"bootstrap of a group that never had a primary",
       [&](group_fixture& f, bool fr) {
         f.load(with_freeze({}, fr, "a"));
         for (const auto& s : {"a", "b", "c"}) f.report(rep(s, site_state::read_only, ""));
       }},
      {"auto-clone of an empty site",
       [&](group_fixture& f, bool fr) {
         f.load(with_freeze(viewed(1, "a"), fr, "a"));
         f.report(rep("c", site_state::read_only, s5, true));
         f.report(rep("a", site_state::writable, s5));
         f.report(rep("b", site_state::read_only, ""));
       }},
      {"recovery: a returning primary is fenced and read",
       [&](group_fixture& f, bool fr) {
         auto d = viewed(3, "b");
         d.last_failover_target = "b";
         d.last_failover_ms = 1;
         f.load(with_freeze(d, fr, "b"));
         f.report(rep("b", site_state::writable, gtid(U1, 1, 9)));
         f.report(rep("c", site_state::read_only, gtid(U1, 1, 9), true));
         f.report(rep("a", site_state::read_only, gtid(U1, 1, 7), false));
       }},
      {"re-assert: the fenced active site made writable again",
       [&](group_fixture& f, bool fr) {
         auto d = viewed(4, "b");
         d.last_failover_target = "b";
         d.promotion_gtid = s5;
         d.last_failover_ms = 1;
         f.load(with_freeze(d, fr, "b"));
         f.report(rep("a", site_state::read_only, s5, true));
         f.report(rep("c", site_state::read_only, s5, true));
         f.report(rep("b", site_state::read_only, gtid(U1, 1, 6)));
       }},
      {"a stopped receiver restarted",
       [&](group_fixture& f, bool fr) {
         f.load(with_freeze(viewed(1, "a"), fr, "a"));
         f.report(rep("a", site_state::writable, s5));
         f.report(rep("c", site_state::read_only, s5, true));
         auto b = rep("b", site_state::read_only, s5, true);
         b.probe.io_state = "OFF";
         b.probe.last_io_errno = 2003;
         f.advance(3s);
         f.report(b);
       }},
      {"a reclone request",
       [&](group_fixture& f, bool fr) {
         auto d = viewed(3, "b");
         d.last_failover_target = "b";
         d.last_failover_ms = 1;
         f.load(with_freeze(d, fr, "b"));
         f.report(rep("b", site_state::writable, gtid(U1, 1, 9)));
         f.report(rep("c", site_state::read_only, gtid(U1, 1, 9), true));
         f.report(rep("a", site_state::read_only, gtid(U1, 1, 9), true));
         f.run(input::annotate{reclone_annotation, "a:confirm=g"});
       }},
      {"a planned failover",
       [&](group_fixture& f, bool fr) {
         f.load(with_freeze(viewed(1, "a"), fr, "a"));
         for (const auto& s : {"a", "b", "c"})
           f.report(s == std::string("a") ? rep(s, site_state::writable, s5) : rep(s, site_state::read_only, s5, true));
         f.run(input::switchover{"b"});
       }},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      group_fixture open;
      r.run(open, false);
      BOOST_TEST(acted(open), "unfrozen, the rule must act");
      group_fixture frozen;
      r.run(frozen, true);
      BOOST_TEST(!acted(frozen, r.frozen_fences));
      BOOST_TEST(frozen.fenced() == r.frozen_fences, boost::test_tools::per_element());
      BOOST_TEST(!frozen.st.durable.plan_active);
    }
  }
}

namespace {

/// The freeze of T1 into a lifted, with `pending` not recloned yet (H1).
durable_state lifted(durable_state d, const std::vector<std::string>& pending) {
  d.restore_freeze = {T1, false, "a", {}, pending};
  return d;
}

}  // namespace

// H1 of issue 21: after the lift, a site not recloned from the restored one may hold transactions
// the restore discarded, which the restored primary lists as purged (it looks like a clean
// replica). Each row acts with nobody pending and must not act with the site pending.
BOOST_AUTO_TEST_CASE(restore_pending_sites_stay_out_until_recloned) {
  const auto s5 = gtid(U1, 1, 5);
  struct row {
    const char* name;
    std::vector<std::string> pending;
    std::function<void(group_fixture&, const std::vector<std::string>&)> run;
  };
  const std::vector<row> rows = {
      {"failover: the restored primary is lost, only pending sites left",
       {"b", "c"},
       [&](group_fixture& f, const std::vector<std::string>& p) {
         f.load(lifted(viewed(2, "a"), p));
         f.report(rep("b", site_state::read_only, s5, true));
         f.report(rep("c", site_state::read_only, s5, true));
         f.report(rep("a", site_state::unreachable));
       }},
      {"a stopped receiver (STOP REPLICA of the freeze) is not restarted",
       {"b"},
       [&](group_fixture& f, const std::vector<std::string>& p) {
         f.load(lifted(viewed(2, "a"), p));
         f.report(rep("a", site_state::writable, s5));
         f.report(rep("c", site_state::read_only, s5, true));
         auto b = rep("b", site_state::read_only, s5, true);
         b.probe.io_state = "OFF";
         f.advance(3s);
         f.report(b);
       }},
      {"recovery: a pending site is never repointed as a returning primary",
       {"c"},
       [&](group_fixture& f, const std::vector<std::string>& p) {
         auto d = lifted(viewed(3, "a"), p);
         d.last_failover_target = "a";
         d.last_failover_ms = 1;
         f.load(d);
         f.report(rep("a", site_state::writable, gtid(U1, 1, 9)));
         f.report(rep("b", site_state::read_only, gtid(U1, 1, 9), true));
         f.report(rep("c", site_state::read_only, gtid(U1, 1, 7), false));
       }},
      {"a planned failover to a pending site",
       {"b"},
       [&](group_fixture& f, const std::vector<std::string>& p) {
         f.load(lifted(viewed(2, "a"), p));
         for (const auto& s : {"a", "b", "c"})
           f.report(s == std::string("a") ? rep(s, site_state::writable, s5) : rep(s, site_state::read_only, s5, true));
         f.run(input::switchover{"b"});
       }},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      group_fixture open;
      r.run(open, {});
      BOOST_TEST(acted(open), "nobody pending, the rule must act");
      group_fixture held;
      r.run(held, r.pending);
      BOOST_TEST(!acted(held));
      BOOST_TEST(!held.st.durable.plan_active);
    }
  }
  // The planned failover says why.
  group_fixture f;
  rows[3].run(f, {"b"});
  BOOST_REQUIRE(f.answer.has_value());
  BOOST_TEST(f.answer->find("restore-pending") != std::string::npos, *f.answer);
}

BOOST_AUTO_TEST_CASE(a_writable_pending_site_is_fenced) {
  group_fixture f;
  f.load(lifted(viewed(2, "a"), {"b", "c"}));
  f.report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  f.report(rep("c", site_state::read_only, gtid(U1, 1, 5), true));
  f.report(rep("b", site_state::writable, gtid(U1, 1, 5)));
  BOOST_TEST(f.fenced() == std::vector<std::string>{"b"});
  BOOST_TEST(!f.st.durable.plan_active);
}

// M7: the reclone releases its site only once the plan succeeded (clone, restart, repointed to
// the restored site and confirmed replicating); a failed one is asked again.
BOOST_AUTO_TEST_CASE(a_pending_site_is_released_by_its_reclone_only) {
  const auto s5 = gtid(U1, 1, 5);
  group_fixture f;
  f.load(lifted(viewed(2, "a"), {"b", "c"}));
  for (const auto& s : {"a", "b", "c"})
    f.report(s == std::string("a") ? rep(s, site_state::writable, s5) : rep(s, site_state::read_only, s5, true));
  auto ask = [&] {
    f.run(input::annotate{reclone_annotation, "b:restore=" + T1});
    BOOST_REQUIRE(f.answer.has_value());
    BOOST_TEST(f.answer->rfind("accepted:", 0) == 0u, *f.answer);
    for (int i = 0; i < 3 && f.count<effect::persist>() + f.st.persist_queue.size() > 0; ++i) f.store_ok();
  };
  ask();
  BOOST_REQUIRE(f.st.durable.plan_active);
  BOOST_TEST(f.st.durable.restore_freeze.pending == (std::vector<std::string>{"b", "c"}),
             boost::test_tools::per_element());  // accepted is not done
  plan_result r;
  r.id = f.st.durable.plan.id;
  r.error = "cloning: deadline exceeded";
  r.reached = plan_phase::cloning;
  f.run(input::plan_done{r});
  f.store_ok();
  BOOST_TEST(f.st.durable.restore_freeze.pending == (std::vector<std::string>{"b", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST(f.st.durable.restore_freeze.recloned.empty());  // asked again below
  f.advance(60s);
  f.report(rep("a", site_state::writable, s5));
  ask();
  BOOST_REQUIRE(f.st.durable.plan_active);
  r = {};
  r.id = f.st.durable.plan.id;
  r.ok = true;
  r.reached = plan_phase::confirming;
  f.run(input::plan_done{r});
  f.store_ok();
  BOOST_TEST(f.st.durable.restore_freeze.pending == std::vector<std::string>{"c"}, boost::test_tools::per_element());
}

// M8: a Failed restore lifted by a person (abandon): the half-loaded target stays fenced, no
// re-assert, every site pending; a newer confirm restores it again though it is not writable.
BOOST_AUTO_TEST_CASE(an_abandoned_restore_holds_its_target_until_restored_again) {
  const auto s5 = gtid(U1, 1, 5);
  group_fixture f;
  f.load(with_freeze(viewed(2, "a"), true, "a"));
  for (const auto& s : {"a", "b", "c"}) f.report(rep(s, site_state::read_only, s5, s != std::string("a")));
  f.run(input::annotate{restore_freeze_key, "abandon:" + T1});
  BOOST_TEST(f.answer->rfind("accepted:", 0) == 0u, *f.answer);
  f.store_ok();
  BOOST_TEST(f.count<effect::reassert>() == 0u);
  BOOST_TEST(f.has_event("RestoreInPlaceAbandoned"));
  BOOST_TEST(f.st.durable.restore_freeze.pending == (std::vector<std::string>{"a", "b", "c"}),
             boost::test_tools::per_element());
  // Polls: nothing re-asserts a, fails over or repoints; a writable a is fenced again.
  f.advance(60s);
  for (const auto& s : {"b", "c"}) f.report(rep(s, site_state::read_only, s5, true));
  f.report(rep("a", site_state::read_only, s5));
  BOOST_TEST(!acted(f));
  f.report(rep("a", site_state::writable, s5));
  BOOST_TEST(f.fenced() == std::vector<std::string>{"a"});
  f.report(rep("a", site_state::read_only, s5));
  f.run(input::annotate{restore_freeze_key, "freeze:" + T2 + ":a"});
  BOOST_TEST(f.answer->rfind("accepted:", 0) == 0u, *f.answer);
}

BOOST_AUTO_TEST_SUITE_END()
