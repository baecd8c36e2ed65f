// Planned failover's pure rules: the annotation, the validation, the phase record.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <functional>

#include "actors/operator/decide/planned_failover.hpp"

using namespace br;
using namespace std::chrono_literals;

namespace {

struct parse_row {
  std::string value;
  bool ok;
  std::string target;
  std::optional<caf::timespan> lag;
  std::string error_part;  ///< a part of the error text
};

site_report report(const std::string& site, site_state state, bool replicating) {
  site_report r;
  r.site = site;
  r.step.next.state = state;
  r.probe_ok = state != site_state::unreachable;
  r.probe.read_only = state != site_state::writable;
  r.probe.channel_configured = replicating;
  if (replicating) r.probe.io_state = r.probe.sql_state = "ON";
  return r;
}

/// Group a (active, writable), b and c replicating, d a dr-only site; nothing running.
planned_facts healthy() {
  planned_facts f;
  f.group.sites = {"a", "b", "c", "d"};
  f.group.roles = {{"d", site_role::dr_only}};
  f.group.active_site = "a";
  f.group.reports = {{"a", report("a", site_state::writable, false)},
                     {"b", report("b", site_state::read_only, true)},
                     {"c", report("c", site_state::read_only, true)},
                     {"d", report("d", site_state::read_only, true)}};
  f.now_ms = 1'000'000;
  f.cooldown = 5min;
  return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(annotation_values) {
  std::vector<parse_row> rows = {
      {"b", true, "b", std::nullopt, ""},
      {"site-2", true, "site-2", std::nullopt, ""},
      {"b:maxLagWait=30s", true, "b", caf::timespan(30s), ""},
      {"b:maxLagWait=1m30s", true, "b", caf::timespan(90s), ""},
      {"", false, "", std::nullopt, "no site named"},
      {":maxLagWait=30s", false, "", std::nullopt, "no site named"},
      {"B", false, "", std::nullopt, "is not a site name"},
      {"b c", false, "", std::nullopt, "is not a site name"},
      {"-b", false, "", std::nullopt, "is not a site name"},
      {"b:", false, "", std::nullopt, "unknown option"},
      {"b:maxlagwait=30s", false, "", std::nullopt, "unknown option"},
      {"b:drainTimeout=30s", false, "", std::nullopt, "unknown option"},
      {"b:maxLagWait=", false, "", std::nullopt, "maxLagWait"},
      {"b:maxLagWait=30", false, "", std::nullopt, "maxLagWait"},
      {"b:maxLagWait=-1s", false, "", std::nullopt, "maxLagWait"},
      {"b:maxLagWait=0s", false, "", std::nullopt, "maxLagWait"},
      {"b:maxLagWait=25h", false, "", std::nullopt, "maxLagWait"},
      {"b:maxLagWait=30s:x", false, "", std::nullopt, "maxLagWait"},
  };
  for (const auto& row : rows) {
    BOOST_TEST_CONTEXT("value \"" << row.value << "\"") {
      auto r = parse_planned_annotation(row.value);
      BOOST_TEST(r.ok == row.ok);
      if (row.ok) {
        BOOST_TEST(r.target == row.target);
        BOOST_TEST((r.max_lag_wait == row.lag));
      } else {
        BOOST_TEST(r.error.find(row.error_part) != std::string::npos, r.error);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(validation_reasons) {
  struct row {
    std::string name;
    std::function<void(planned_facts&)> change;
    std::string target;
    planned_decision decision;
    std::string reason;
  };
  std::vector<row> rows = {
      {"healthy target", [](planned_facts&) {}, "b", planned_decision::start, ""},
      {"the other candidate", [](planned_facts&) {}, "c", planned_decision::start, ""},
      {"unknown site", [](planned_facts&) {}, "x", planned_decision::reject, "UnknownSite"},
      {"already active", [](planned_facts&) {}, "a", planned_decision::skip, ""},
      {"a plan runs", [](planned_facts& f) { f.running = "another plan (failover)"; f.group.busy = true; },
       "b", planned_decision::reject, "ConcurrentOperation"},
      {"a plan runs, target active", [](planned_facts& f) { f.running = "another plan (recover)"; },
       "a", planned_decision::reject, "ConcurrentOperation"},
      {"state being written", [](planned_facts& f) { f.group.busy = true; }, "b",
       planned_decision::reject, "ConcurrentOperation"},
      {"no active primary", [](planned_facts& f) { f.group.active_site.clear(); }, "b",
       planned_decision::reject, "ConcurrentOperation"},
      {"source not writable",
       [](planned_facts& f) { f.group.reports["a"] = report("a", site_state::unreachable, false); },
       "b", planned_decision::reject, "ConcurrentOperation"},
      {"dr-only target", [](planned_facts&) {}, "d", planned_decision::reject,
       "TargetUnhealthy"},
      {"target unreachable",
       [](planned_facts& f) { f.group.reports["b"] = report("b", site_state::unreachable, true); },
       "b", planned_decision::reject, "TargetUnhealthy"},
      {"target not polled", [](planned_facts& f) { f.group.reports.erase("b"); }, "b",
       planned_decision::reject, "TargetUnhealthy"},
      {"target writable",
       [](planned_facts& f) { f.group.reports["b"] = report("b", site_state::writable, true); },
       "b", planned_decision::reject, "TargetUnhealthy"},
      {"target not replicating",
       [](planned_facts& f) { f.group.reports["b"] = report("b", site_state::read_only, false); },
       "b", planned_decision::reject, "TargetUnhealthy"},
      {"cooldown active", [](planned_facts& f) { f.last_failover_ms = f.now_ms - 60'000; }, "b",
       planned_decision::reject, "CooldownActive"},
      {"cooldown over", [](planned_facts& f) { f.last_failover_ms = f.now_ms - 300'000; }, "b",
       planned_decision::start, ""},
      {"cooldown active, onCooldown=defer",
       [](planned_facts& f) {
         f.last_failover_ms = f.now_ms - 60'000;
         f.defer_on_cooldown = true;
       },
       "b", planned_decision::defer, "CooldownActive"},
      {"cooldown over, onCooldown=defer",
       [](planned_facts& f) {
         f.last_failover_ms = f.now_ms - 300'000;
         f.defer_on_cooldown = true;
       },
       "b", planned_decision::start, ""},
      {"unhealthy target, onCooldown=defer: refused, not deferred",
       [](planned_facts& f) {
         f.last_failover_ms = f.now_ms - 60'000;
         f.defer_on_cooldown = true;
         f.group.reports["b"] = report("b", site_state::unreachable, true);
       },
       "b", planned_decision::reject, "TargetUnhealthy"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto f = healthy();
      r.change(f);
      auto v = check_planned_failover(f, r.target);
      BOOST_TEST(static_cast<int>(v.decision) == static_cast<int>(r.decision));
      BOOST_TEST(v.reason == r.reason);
      BOOST_TEST(!v.message.empty());
      // A deferred request comes back when the cooldown ends, not before, not later.
      if (v.decision == planned_decision::defer)
        BOOST_TEST(v.retry_after_ms == f.last_failover_ms + 300'000);
    }
  }
}

BOOST_AUTO_TEST_CASE(deferred_cancelled_and_the_dragonfly_seam) {
  auto d = planned_deferred("b", "a", 3, 30'000, 5'000, 1'000, "deferred: ...");
  BOOST_TEST(d.phase == "Deferred");
  BOOST_TEST(d.reason == "CooldownActive");
  BOOST_TEST(d.in_progress());
  BOOST_TEST(d.request == 3u);
  auto st = planned_status_of(d);
  BOOST_TEST(st.has_value());
  BOOST_TEST(st->retry_after.has_value());
  auto c = planned_cancelled(d, 2'000);
  BOOST_TEST(c.phase == "Failed");
  BOOST_TEST(c.reason == "Cancelled");
  BOOST_TEST(c.finished_ms == 2'000);
  BOOST_TEST(!c.in_progress());
  BOOST_TEST(!planned_status_of(c)->retry_after.has_value());
  // Only a Deferred request can be cancelled: a running plan is never stopped halfway.
  auto running = planned_started("b", "a", 7, 4, 30s, 1000);
  BOOST_TEST((planned_cancelled(running, 2'000) == running));
  BOOST_TEST(planned_phase_after_lag(false) == "Promoting");
  BOOST_TEST(planned_phase_after_lag(true) == "WaitingForDragonflySync");
}

BOOST_AUTO_TEST_CASE(the_shown_record_and_its_condition) {
  planned_failover_record none;
  auto running = planned_started("b", "a", 7, 4, 30s, 1000);
  auto refused_later = planned_rejected("c", "a", "ConcurrentOperation", "x", 2000);
  BOOST_TEST((planned_shown(running, refused_later) == running));  // the running one stays
  auto ended = running;
  ended.phase = "Succeeded";
  ended.finished_ms = 1500;
  BOOST_TEST((planned_shown(ended, refused_later) == refused_later));  // newer
  auto refused_earlier = planned_rejected("c", "a", "UnknownSite", "x", 1200);
  BOOST_TEST((planned_shown(ended, refused_earlier) == ended));
  BOOST_TEST((planned_shown(none, refused_earlier) == refused_earlier));
  BOOST_TEST(!planned_condition_of(none).has_value());
  auto c1 = planned_condition_of(running);
  BOOST_TEST(c1->type == "PlannedFailover");
  BOOST_TEST(c1->status == "True");
  BOOST_TEST(c1->reason == "Draining");
  auto c2 = planned_condition_of(refused_later);
  BOOST_TEST(c2->status == "False");
  BOOST_TEST(c2->reason == "ConcurrentOperation");
  BOOST_TEST(planned_condition_of(ended)->reason == "Succeeded");
}

BOOST_AUTO_TEST_CASE(phases_follow_the_switchover_steps) {
  auto r = planned_started("b", "a", 7, 1, 30s, 1000);
  BOOST_TEST(r.phase == "Draining");
  BOOST_TEST(r.max_lag_wait_ms == 30000);
  BOOST_TEST(r.drain_started_ms == 1000);
  r = planned_advanced(r, plan_phase::fencing_old, "", 1100);
  r = planned_advanced(r, plan_phase::killing_sessions, "", 1200);
  BOOST_TEST(r.phase == "Draining");
  r = planned_advanced(r, plan_phase::gating, "", 1300);
  BOOST_TEST(r.phase == "WaitingForLag");
  BOOST_TEST(r.lag_wait_started_ms == 1300);
  r = planned_advanced(r, plan_phase::draining, "U:1-10", 1400);
  BOOST_TEST(r.phase == "Promoting");
  BOOST_TEST(r.source_gtid_at_fence == "U:1-10");
  BOOST_TEST(r.promote_started_ms == 1400);
  for (auto p : {plan_phase::stopping_replica, plan_phase::resetting_replica,
                 plan_phase::recording_gtid, plan_phase::promoting})
    r = planned_advanced(r, p, "", 1450);
  BOOST_TEST(r.phase == "Promoting");
  r = planned_advanced(r, plan_phase::confirming, "", 1500);
  BOOST_TEST(r.phase == "Resuming");
  BOOST_TEST(r.resume_started_ms == 1500);
  // A finished record does not move again.
  auto done = planned_rejected("b", "a", "CooldownActive", "x", 5);
  BOOST_TEST((planned_advanced(done, plan_phase::gating, "", 9) == done));
}

BOOST_AUTO_TEST_CASE(how_a_plan_ends) {
  struct row {
    std::string name;
    bool ok, kept, reachable;
    std::string error;
    std::string phase, reason, result;
  };
  std::vector<row> rows = {
      {"promoted", true, false, true, "", "Succeeded", "", "success"},
      {"promoted, source gone since", true, false, false, "", "Succeeded", "", "success"},
      {"lag timeout", false, true, true, "draining: LagTimeout: b did not ...", "Failed",
       "LagTimeout", "failed_timeout"},
      {"source died before promotion", false, true, false,
       "draining: the source a could not be fenced", "Failed", "SourceCrashed", "failed_other"},
      {"lag timeout while the source died", false, true, false, "draining: LagTimeout", "Failed",
       "SourceCrashed", "failed_other"},
      {"gate refused, rolled back", false, true, true, "gating: timeout", "Failed",
       "ExecuteFailed", "failed_other"},
      {"failed after promotion", false, false, true, "confirming: not writable", "Failed",
       "ExecuteFailed", "failed_other"},
  };
  for (const auto& x : rows) {
    BOOST_TEST_CONTEXT(x.name) {
      plan_result res;
      res.ok = x.ok;
      res.source_kept = x.kept;
      res.error = x.error;
      res.source_gtid = "U:1-5";
      auto o = planned_finished(planned_started("b", "a", 1, 1, 30s, 10), res, x.reachable, 99);
      BOOST_TEST(o.record.phase == x.phase);
      BOOST_TEST(o.record.reason == x.reason);
      BOOST_TEST(o.result == x.result);
      BOOST_TEST(o.record.finished_ms == 99);
      BOOST_TEST(o.record.source_gtid_at_fence == "U:1-5");
      BOOST_TEST(!o.record.in_progress());
    }
  }
}
