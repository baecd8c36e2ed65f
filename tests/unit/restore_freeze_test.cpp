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
  if (frozen) d.restore_freeze = {T1, true, site, {}};
  return d;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(restore_freeze)

BOOST_AUTO_TEST_CASE(requests_parse) {
  bool freeze = false;
  std::string token;
  BOOST_TEST(parse_restore_freeze_request("freeze:" + T1, freeze, token));
  BOOST_TEST(freeze);
  BOOST_TEST(token == T1);
  BOOST_TEST(parse_restore_freeze_request("lift:" + T1, freeze, token));
  BOOST_TEST(!freeze);
  for (const char* bad : {"", "freeze", "freeze:", "thaw:x", ":x"}) BOOST_TEST(!parse_restore_freeze_request(bad, freeze, token), bad);
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
      {"not RFC 3339", [](auto&) {}, "tomorrow", false, false, "not an RFC 3339 time"},
      {"the used token again (an operator restart never runs it twice)",
       [](auto& f) { f.now = {T1, false, "a", {}}; }, T1, false, false, "not newer"},
      {"an older token", [](auto& f) { f.now = {T1, false, "a", {}}; }, T0, false, false, "not newer"},
      {"the same instant written differently", [](auto& f) { f.now = {T1, false, "a", {}}; },
       "2026-11-26T16:00:00+01:00", false, false, "not newer"},
      {"a newer token", [](auto& f) { f.now = {T1, false, "a", {}}; }, T2, true, true, "recorded"},
      {"frozen, the same token: nothing changes", [](auto& f) { f.now = {T1, true, "a", {}}; }, T1, true, false,
       "already frozen"},
      {"frozen, another token", [](auto& f) { f.now = {T1, true, "a", {}}; }, T2, false, false, "lifted first"},
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
      auto v = check_freeze(f, r.token);
      BOOST_TEST(v.accepted == r.accepted);
      BOOST_TEST(v.wait == (r.reason == "waiting for a conclusive poll"));
      BOOST_TEST(v.changes == r.changes);
      BOOST_TEST(v.reason.find(r.reason) != std::string::npos, v.reason);
      if (v.changes) {
        BOOST_TEST(v.next.token == r.token);
        BOOST_TEST(v.next.frozen);
        BOOST_TEST(v.next.site == "a");
      } else {
        BOOST_TEST(v.next == f.now);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(lifting_table) {
  auto f = healthy();
  BOOST_TEST(check_lift(f, T1).accepted);  // not frozen: nothing to lift
  BOOST_TEST(!check_lift(f, T1).changes);
  f.now = {T1, true, "a", {}};
  auto other = check_lift(f, T2);
  BOOST_TEST(!other.accepted);
  BOOST_TEST(other.reason.find("belongs to token " + T1) != std::string::npos, other.reason);
  auto v = check_lift(f, T1);
  BOOST_TEST(v.accepted);
  BOOST_TEST(v.changes);
  BOOST_TEST(!v.next.frozen);
  BOOST_TEST(v.next.token == T1);  // the used token stays recorded
}

BOOST_AUTO_TEST_CASE(the_token_is_recorded_before_the_fence_and_used_once) {
  group_fixture f;
  f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1});
  BOOST_REQUIRE(f.answer.has_value());
  BOOST_TEST(f.answer->rfind("accepted:", 0) == 0u, *f.answer);
  BOOST_TEST(f.persisted_next().restore_freeze == (restore_freeze_record{T1, true, "a", {}}));
  BOOST_TEST(f.fenced().empty());  // nothing is changed before the store holds the token
  f.store_ok();
  BOOST_TEST(f.fenced() == std::vector<std::string>{"a"});
  BOOST_TEST(f.count<effect::stop_receiver>() == 2u);  // b and c stop replicating from a
  BOOST_TEST(f.has_event("RestoreInPlaceFrozen"));
  // The controller asks again (restarted mid-way): nothing changes.
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1});
  BOOST_TEST(f.answer->rfind("accepted: already frozen", 0) == 0u, *f.answer);
  BOOST_TEST(f.count<effect::persist>() == 0u);
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
  BOOST_TEST(f.count<effect::reassert>() == 0u);
  f.store_ok();
  BOOST_REQUIRE_EQUAL(f.count<effect::reassert>(), 1u);
  BOOST_TEST(f.all<effect::reassert>().front().site == "a");
  BOOST_TEST(f.has_event("RestoreInPlaceResumed"));
  // The same token never arms again; a newer one does.
  f.report(rep("a", site_state::writable, gtid(U1, 1, 5)));
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1});
  BOOST_TEST(f.answer->find("not newer") != std::string::npos, *f.answer);
  f.run(input::annotate{restore_freeze_key, "freeze:" + T2});
  BOOST_TEST(f.answer->rfind("accepted:", 0) == 0u, *f.answer);
}

BOOST_AUTO_TEST_CASE(a_group_replication_group_is_refused) {
  group_fixture f;
  f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  f.rules.gr.enabled = true;
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1});
  BOOST_REQUIRE(f.answer.has_value());
  BOOST_TEST(f.answer->find("Group Replication") != std::string::npos, *f.answer);
  BOOST_TEST(f.count<effect::persist>() == 0u);
}

BOOST_AUTO_TEST_CASE(a_refused_write_changes_nothing) {
  group_fixture f;
  f.settled("a", 1, gtid(U1, 1, 5), gtid(U1, 1, 5));
  f.run(input::annotate{restore_freeze_key, "freeze:" + T1});
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

BOOST_AUTO_TEST_SUITE_END()
