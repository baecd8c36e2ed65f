// Planned failover: request parsing, validation and the phase record (pure).
#include "actors/operator/decide/planned_failover.hpp"

#include <algorithm>
#include <chrono>

#include "config/duration.hpp"
#include "config/duration_limits.hpp"

namespace br {

namespace {

bool dns_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
  });
}

int64_t ms_of(caf::timespan d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

}  // namespace

planned_request parse_planned_annotation(const std::string& value) {
  planned_request r;
  auto bad = [&](std::string why) {
    r.ok = false;
    r.error = std::move(why);
    return r;
  };
  auto colon = value.find(':');
  r.target = value.substr(0, colon);
  if (r.target.empty()) return bad("no site named (expected <site>[:maxLagWait=<duration>])");
  if (!dns_label(r.target))
    return bad("site \"" + r.target + "\" is not a site name (lower-case letters, digits, '-')");
  if (colon == std::string::npos) {
    r.ok = true;
    return r;
  }
  auto opt = value.substr(colon + 1);
  const std::string key = "maxLagWait=";
  if (opt.rfind(key, 0) != 0)
    return bad("unknown option \"" + opt + "\" (the only option is maxLagWait=<duration>)");
  auto d = config::parse_duration(opt.substr(key.size()));
  if (!d) return bad("maxLagWait: " + d.error);
  auto range = config::check_bounds(*d.value, config::limits::max_lag_wait);
  if (!range.empty()) return bad("maxLagWait " + range);
  r.max_lag_wait = std::chrono::duration_cast<caf::timespan>(*d.value);
  r.ok = true;
  return r;
}

planned_verdict check_planned_failover(const planned_facts& f, const std::string& target) {
  auto no = [](std::string reason, std::string message) {
    return planned_verdict{planned_decision::reject, std::move(reason), std::move(message)};
  };
  const auto& g = f.group;
  if (std::find(g.sites.begin(), g.sites.end(), target) == g.sites.end())
    return no("UnknownSite", "unknown site " + target);
  if (!g.active_site.empty() && g.active_site == target && f.running.empty())
    return {planned_decision::skip, "", target + " is already the active site"};
  if (!f.running.empty()) return no("ConcurrentOperation", f.running + " is running");
  // The switchover rules name every other refusal; which reason is ours, by the fact it tested.
  auto v = check_switchover(g, target);
  if (!v.accepted) {
    bool about_source = g.busy || g.active_site.empty() ||
                        v.reason.rfind("active site ", 0) == 0;
    return no(about_source ? "ConcurrentOperation" : "TargetUnhealthy", v.reason);
  }
  if (f.last_failover_ms > 0) {
    auto until = f.last_failover_ms + ms_of(f.cooldown);
    if (f.now_ms < until) {
      auto in = "the anti-flap cooldown after the last failover ends in " +
                std::to_string((until - f.now_ms + 999) / 1000) + " s";
      if (!f.defer_on_cooldown) return no("CooldownActive", in);
      return {planned_decision::defer, "CooldownActive",
              "deferred (onCooldown=defer): " + in + "; validated again then", until};
    }
  }
  return {planned_decision::start, "", "planned failover from " + g.active_site + " to " + target};
}

planned_failover_record planned_rejected(const std::string& target, const std::string& source,
                                         const std::string& reason, const std::string& message,
                                         int64_t now_ms) {
  planned_failover_record r;
  r.phase = "Failed";
  r.target = target;
  r.source = source;
  r.reason = reason;
  r.message = message;
  r.started_ms = r.finished_ms = now_ms;
  return r;
}

planned_failover_record planned_deferred(const std::string& target, const std::string& source,
                                         uint64_t request, int64_t max_lag_wait_ms,
                                         int64_t retry_after_ms, int64_t started_ms,
                                         const std::string& message) {
  planned_failover_record r;
  r.phase = "Deferred";
  r.target = target;
  r.source = source;
  r.reason = "CooldownActive";
  r.message = message;
  r.request = request;
  r.max_lag_wait_ms = max_lag_wait_ms;
  r.retry_after_ms = retry_after_ms;
  r.started_ms = started_ms;
  return r;
}

planned_failover_record planned_cancelled(planned_failover_record r, int64_t now_ms) {
  if (r.phase != "Deferred") return r;
  r.phase = "Failed";
  r.reason = "Cancelled";
  r.message = "cancelled while deferred; nothing was changed";
  r.retry_after_ms = 0;
  r.finished_ms = now_ms;
  return r;
}

std::string planned_phase_after_lag(bool dragonfly_managed) {
  return dragonfly_managed ? "WaitingForDragonflySync" : "Promoting";
}

std::string planned_result_label(const planned_failover_record& r) {
  if (r.phase == "Succeeded") return "success";
  if (r.reason == "LagTimeout" || r.reason == "DragonflySyncTimeout") return "failed_timeout";
  return "failed_other";
}

planned_failover_record planned_started(const std::string& target, const std::string& source,
                                        uint64_t plan_id, uint64_t request,
                                        caf::timespan max_lag_wait, int64_t now_ms) {
  planned_failover_record r;
  r.phase = "Draining";
  r.target = target;
  r.source = source;
  r.plan_id = plan_id;
  r.request = request;
  r.max_lag_wait_ms = ms_of(max_lag_wait);
  r.started_ms = r.drain_started_ms = now_ms;
  r.message = "fencing " + source + " and killing its sessions";
  return r;
}

planned_failover_record planned_advanced(planned_failover_record r, plan_phase done,
                                         const std::string& source_gtid, int64_t now_ms) {
  if (!r.in_progress()) return r;
  switch (done) {
    case plan_phase::gating:
      r.phase = "WaitingForLag";
      r.lag_wait_started_ms = now_ms;
      r.message = "waiting until " + r.target + " executed every transaction of " + r.source;
      break;
    case plan_phase::draining:
      r.phase = planned_phase_after_lag(false);  // Dragonfly is not managed yet (issue 24)
      if (!source_gtid.empty()) r.source_gtid_at_fence = source_gtid;
      r.promote_started_ms = now_ms;
      r.message = r.target + " executed the fenced source's set; promoting it";
      break;
    case plan_phase::confirming:
      r.phase = "Resuming";
      r.resume_started_ms = now_ms;
      r.message = r.target + " is writable; steering traffic and repointing the other sites";
      break;
    default:
      break;
  }
  return r;
}

planned_outcome planned_finished(planned_failover_record r, const plan_result& res,
                                 bool source_reachable, int64_t now_ms) {
  planned_outcome o;
  r.finished_ms = now_ms;
  if (!res.source_gtid.empty() && r.source_gtid_at_fence.empty())
    r.source_gtid_at_fence = res.source_gtid;
  if (res.ok) {
    r.phase = "Succeeded";
    r.reason.clear();
    r.message = r.target + " is the active primary; nothing lost (it executed " + r.source +
                "'s whole set before promotion)";
  } else if (res.source_kept && !source_reachable) {
    r.phase = "Failed";
    r.reason = "SourceCrashed";
    r.message = "the source " + r.source + " stopped answering during the plan (" + res.error +
                "); the emergency failover takes over";
  } else if (res.source_kept && res.error.find("LagTimeout") != std::string::npos) {
    r.phase = "Failed";
    r.reason = "LagTimeout";
    r.message = "rolled back: " + res.error + "; " + r.source + " stays the active primary";
  } else {
    r.phase = "Failed";
    r.reason = "ExecuteFailed";
    r.message = res.source_kept ? "rolled back: " + res.error + "; " + r.source +
                                      " stays the active primary"
                                : res.error + " (after promotion started: not rolled back)";
  }
  o.result = planned_result_label(r);
  o.record = std::move(r);
  return o;
}

const planned_failover_record& planned_shown(const planned_failover_record& accepted,
                                             const planned_failover_record& refused) {
  if (accepted.in_progress() || refused.phase.empty()) return accepted;
  if (accepted.phase.empty() || refused.finished_ms >= accepted.finished_ms) return refused;
  return accepted;
}

std::optional<config::condition> planned_condition_of(const planned_failover_record& r) {
  if (r.phase.empty()) return std::nullopt;
  bool running = r.in_progress();
  std::string reason = running || r.phase == "Succeeded" ? r.phase : r.reason;
  return config::condition{"PlannedFailover", running ? "True" : "False", reason,
                           "to " + r.target + ": " + r.message, std::nullopt};
}

std::optional<config::planned_failover_status> planned_status_of(const planned_failover_record& r) {
  if (r.phase.empty()) return std::nullopt;
  auto stamp = [](int64_t ms) -> std::optional<config::timestamp> {
    if (ms <= 0) return std::nullopt;
    return config::timestamp(std::chrono::milliseconds(ms));
  };
  config::planned_failover_status s;
  s.phase = r.phase;
  s.target = r.target;
  s.source_primary = r.source;
  s.reason = r.reason;
  s.message = r.message;
  s.source_gtid_at_fence = r.source_gtid_at_fence;
  if (r.max_lag_wait_ms > 0)
    s.max_lag_wait = config::format_duration(std::chrono::milliseconds(r.max_lag_wait_ms));
  s.start_time = stamp(r.started_ms);
  s.drain_start_time = stamp(r.drain_started_ms);
  s.lag_wait_start_time = stamp(r.lag_wait_started_ms);
  s.promote_start_time = stamp(r.promote_started_ms);
  s.resume_start_time = stamp(r.resume_started_ms);
  s.completion_time = stamp(r.finished_ms);
  if (r.phase == "Deferred") s.retry_after = stamp(r.retry_after_ms);
  if (const auto& d = r.dragonfly; d.enabled) {
    config::planned_dragonfly_status ds;
    ds.enabled = true;
    ds.sync_wait_start_time = stamp(d.sync_wait_started_ms);
    if (d.source_offset >= 0) ds.source_offset_at_drain = d.source_offset;
    ds.offset_capture_failed = d.offset_capture_failed;
    if (d.target_offset >= 0) ds.target_offset_at_promotion = d.target_offset;
    if (d.sync_wait_ms >= 0) ds.sync_wait_ms = d.sync_wait_ms;
    if (!d.sessions_preserved.empty()) ds.sessions_preserved = d.sessions_preserved == "true";
    ds.promotion_method = d.promotion_method;
    ds.reason = d.reason;
    ds.message = d.message;
    s.dragonfly = std::move(ds);
  }
  return s;
}

}  // namespace br
