// A planned failover's Dragonfly phases as pure functions (decide/planned_dragonfly.hpp): the
// record through WaitingForDragonflySync and PromotingDragonfly, fail vs proceed, Dragonfly
// disabled, the cache unreachable, reports matched to the phase waiting for them.
#include <boost/test/unit_test.hpp>

#include <chrono>

#include "actors/operator/decide/planned_dragonfly.hpp"
#include "actors/operator/decide/planned_failover.hpp"

using namespace br;
using namespace std::chrono_literals;

namespace {

dragonfly_rules df(bool enabled, bool fail) {
  dragonfly_rules r;
  r.enabled = enabled;
  r.max_sync_wait = 5s;
  r.fail_on_sync_timeout = fail;
  return r;
}

planned_failover_record accepted(const dragonfly_rules& rules) {
  auto r = planned_started("b", "a", 7, 3, 30s, 1000);
  return planned_sync_started(r, rules, 1000);
}

dragonfly_handover_report sync_report(bool ok, uint64_t request = 3) {
  dragonfly_handover_report rep;
  rep.request = request;
  rep.ok = ok;
  rep.master = "a";
  rep.source_offset = 500;
  rep.target_offset = ok ? 500 : 120;
  if (!ok) rep.error = "b did not reach a's offset 500 within maxSyncWait (at 120)";
  return rep;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(planned_dragonfly)

BOOST_AUTO_TEST_CASE(disabled_skips_both_phases) {
  auto r = accepted(df(false, true));
  BOOST_TEST(r.phase == "Draining");  // straight to the switchover plan
  BOOST_TEST(!r.dragonfly.enabled);
  r.phase = "Succeeded";
  BOOST_TEST(planned_after_mysql(r, 2000).phase == "Succeeded");
  BOOST_TEST(!planned_status_of(r)->dragonfly.has_value());
}

BOOST_AUTO_TEST_CASE(enabled_waits_for_the_sync_before_the_fence) {
  auto r = accepted(df(true, false));
  BOOST_TEST(r.phase == planned_phase_dragonfly_sync);
  BOOST_TEST(r.dragonfly.enabled);
  BOOST_TEST(r.dragonfly.max_sync_wait_ms == 5000);
  BOOST_TEST(r.dragonfly.sync_wait_started_ms == 1000);
  BOOST_TEST(r.drain_started_ms == 0);  // nothing fenced yet
  auto q = planned_handover_request(r);
  BOOST_TEST(!q.promote);
  BOOST_TEST(q.request == 3u);
  BOOST_TEST(q.target == "b");
  BOOST_TEST(q.max_wait_ms == 5000);
  BOOST_TEST(planned_handover_deadline(r) > caf::timespan{5s});  // room for the manager's reads
}

struct sync_row {
  const char* name;
  bool fail_on_timeout;
  bool ok;
  bool capture_failed;
  bool start_mysql;
  const char* phase;
  const char* reason;
  const char* sessions_preserved;
  const char* dragonfly_reason;
};

BOOST_AUTO_TEST_CASE(sync_outcomes) {
  const sync_row rows[] = {
      {"reached, fail", true, true, false, true, "Draining", "", "", ""},
      {"reached, proceed", false, true, false, true, "Draining", "", "", ""},
      {"timeout, fail: rolled back, MySQL untouched", true, false, false, false, "Failed",
       "DragonflySyncTimeout", "false", "DragonflySyncTimeout"},
      {"timeout, proceed: MySQL goes on", false, false, false, true, "Draining", "", "false",
       "DragonflySyncTimeout"},
      {"cache unreachable, fail", true, false, true, false, "Failed", "DragonflySyncTimeout", "false",
       "DragonflySyncTimeout"},
      {"cache unreachable, proceed", false, false, true, true, "Draining", "", "false",
       "DragonflySyncTimeout"},
  };
  for (const auto& row : rows) {
    BOOST_TEST_CONTEXT(row.name) {
      auto r = accepted(df(true, row.fail_on_timeout));
      auto rep = sync_report(row.ok);
      if (row.capture_failed) {
        rep.offset_capture_failed = true;
        rep.source_offset = rep.target_offset = -1;
        rep.error = "cannot read a's offset: connection refused";
      }
      auto v = planned_sync_done(r, rep, 4000);
      BOOST_TEST(v.start_mysql == row.start_mysql);
      BOOST_TEST(v.timed_out == !row.ok);
      BOOST_TEST(v.record.phase == row.phase);
      BOOST_TEST(v.record.reason == row.reason);
      BOOST_TEST(v.record.dragonfly.sessions_preserved == row.sessions_preserved);
      BOOST_TEST(v.record.dragonfly.reason == row.dragonfly_reason);
      BOOST_TEST(v.record.dragonfly.sync_wait_ms == 3000);
      BOOST_TEST(v.record.dragonfly.offset_capture_failed == row.capture_failed);
      BOOST_TEST(v.record.dragonfly.source_offset == (row.capture_failed ? -1 : 500));
      if (row.start_mysql) BOOST_TEST(v.record.drain_started_ms == 4000);
      if (!row.start_mysql) {
        BOOST_TEST(v.record.finished_ms == 4000);
        BOOST_TEST(v.record.message.find("rolled back before MySQL was touched") != std::string::npos);
        BOOST_TEST(planned_result_label(v.record) == "failed_timeout");
      }
      auto s = planned_status_of(v.record);
      BOOST_REQUIRE(s->dragonfly.has_value());
      BOOST_TEST(s->dragonfly->offset_capture_failed == row.capture_failed);
      BOOST_TEST(s->dragonfly->sync_wait_ms.value_or(-1) == 3000);
    }
  }
}

struct match_row {
  const char* phase;
  bool promote;
  uint64_t request;
  bool matches;
};

BOOST_AUTO_TEST_CASE(reports_answer_only_the_phase_waiting_for_them) {
  const match_row rows[] = {
      {"WaitingForDragonflySync", false, 3, true},  {"WaitingForDragonflySync", true, 3, false},
      {"WaitingForDragonflySync", false, 2, false}, {"PromotingDragonfly", true, 3, true},
      {"PromotingDragonfly", false, 3, false},      {"Draining", false, 3, false},
      {"Succeeded", true, 3, false},                {"Failed", false, 3, false},
  };
  auto r = accepted(df(true, true));
  for (const auto& row : rows) {
    BOOST_TEST_CONTEXT(row.phase << " promote=" << row.promote << " request=" << row.request) {
      r.phase = row.phase;
      auto rep = sync_report(true, row.request);
      rep.promote = row.promote;
      BOOST_TEST(planned_handover_matches(r, rep) == row.matches);
    }
  }
  auto off = accepted(df(false, true));
  off.phase = "WaitingForDragonflySync";
  BOOST_TEST(!planned_handover_matches(off, sync_report(true)));
}

BOOST_AUTO_TEST_CASE(after_mysql_the_cache_master_moves_then_the_request_succeeds) {
  auto r = planned_sync_done(accepted(df(true, true)), sync_report(true), 2000).record;
  plan_result res;
  res.ok = true;
  auto done = planned_after_mysql(planned_finished(r, res, true, 9000).record, 9000);
  BOOST_TEST(done.phase == planned_phase_dragonfly_promote);
  BOOST_TEST(done.in_progress());
  BOOST_TEST(done.finished_ms == 0);
  auto q = planned_handover_request(done);
  BOOST_TEST(q.promote);
  // A failed MySQL plan stays Failed: the cache is not moved.
  res.ok = false;
  res.source_kept = true;
  res.error = "draining: LagTimeout";
  BOOST_TEST(planned_after_mysql(planned_finished(r, res, true, 9000).record, 9000).phase == "Failed");

  dragonfly_handover_report rep;
  rep.promote = true;
  rep.request = 3;
  rep.ok = true;
  rep.method = "REPLTAKEOVER";
  rep.target_offset = 812;
  auto ok = planned_dragonfly_promoted(done, rep, 9500);
  BOOST_TEST(ok.phase == "Succeeded");
  BOOST_TEST(ok.finished_ms == 9500);
  BOOST_TEST(ok.dragonfly.promotion_method == "REPLTAKEOVER");
  BOOST_TEST(ok.dragonfly.sessions_preserved == "true");
  BOOST_TEST(ok.dragonfly.target_offset == 812);
  BOOST_TEST(*planned_status_of(ok)->dragonfly->sessions_preserved);

  rep.ok = false;
  rep.method.clear();
  rep.error = "the replica on b is not ready";
  auto bad = planned_dragonfly_promoted(done, rep, 9500);
  BOOST_TEST(bad.phase == "Succeeded");  // MySQL moved: the request is not undone
  BOOST_TEST(bad.reason.empty());
  BOOST_TEST(bad.dragonfly.reason == "DragonflyPromotionFailed");
  BOOST_TEST(bad.dragonfly.sessions_preserved == "false");
  BOOST_TEST(planned_result_label(bad) == "success");
}

BOOST_AUTO_TEST_CASE(proceed_after_a_timeout_never_claims_sessions_preserved) {
  auto r = planned_sync_done(accepted(df(true, false)), sync_report(false), 2000).record;
  r.phase = planned_phase_dragonfly_promote;
  dragonfly_handover_report rep;
  rep.promote = true;
  rep.request = 3;
  rep.ok = true;
  rep.method = "REPLICAOF NO ONE";
  auto done = planned_dragonfly_promoted(r, rep, 3000);
  BOOST_TEST(done.dragonfly.sessions_preserved == "false");
  BOOST_TEST(done.dragonfly.reason == "DragonflySyncTimeout");
}

BOOST_AUTO_TEST_SUITE_END()
