// A planned failover's Dragonfly phases (see planned_dragonfly.hpp).
#include "actors/operator/decide/planned_dragonfly.hpp"

#include <chrono>

namespace br {

namespace {

std::string offsets_text(const dragonfly_handover_report& rep) {
  std::string t;
  if (rep.source_offset >= 0)
    t += (rep.master.empty() ? std::string("the cache master") : rep.master) + "'s offset " +
         std::to_string(rep.source_offset);
  if (rep.target_offset >= 0) t += std::string(t.empty() ? "" : ", ") + "target at " + std::to_string(rep.target_offset);
  return t;
}

}  // namespace

planned_failover_record planned_sync_started(planned_failover_record r, const dragonfly_rules& rules,
                                             int64_t now_ms) {
  if (!rules.enabled) return r;
  auto& d = r.dragonfly;
  d = {};
  d.enabled = true;
  d.fail_on_timeout = rules.fail_on_sync_timeout;
  d.max_sync_wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(rules.max_sync_wait).count();
  d.sync_wait_started_ms = now_ms;
  r.phase = planned_phase_dragonfly_sync;
  r.drain_started_ms = 0;
  r.message = "waiting until the cache replica on " + r.target +
              " reached the cache master's offset (maxSyncWait " + std::to_string(d.max_sync_wait_ms) +
              " ms) before " + r.source + " is fenced";
  return r;
}

dragonfly_handover_request planned_handover_request(const planned_failover_record& r) {
  dragonfly_handover_request q;
  q.promote = r.phase == planned_phase_dragonfly_promote;
  q.request = r.request;
  q.source = r.source;
  q.target = r.target;
  q.max_wait_ms = r.dragonfly.max_sync_wait_ms;
  return q;
}

caf::timespan planned_handover_deadline(const planned_failover_record& r) {
  // The manager's reads and commands are each bounded by its client's deadlines (1 s connect,
  // 2 s I/O): a few of them around the wait, and REPLTAKEOVER's own maxSyncWait + I/O.
  return std::chrono::milliseconds(r.dragonfly.max_sync_wait_ms) + std::chrono::seconds(15);
}

bool planned_handover_matches(const planned_failover_record& r, const dragonfly_handover_report& rep) {
  if (!r.dragonfly.enabled || rep.request != r.request) return false;
  return rep.promote ? r.phase == planned_phase_dragonfly_promote : r.phase == planned_phase_dragonfly_sync;
}

planned_sync_verdict planned_sync_done(planned_failover_record r,
                                       const dragonfly_handover_report& rep, int64_t now_ms) {
  planned_sync_verdict v;
  auto& d = r.dragonfly;
  d.sync_wait_ms = d.sync_wait_started_ms > 0 ? now_ms - d.sync_wait_started_ms : rep.waited_ms;
  d.source_offset = rep.source_offset;
  d.target_offset = rep.target_offset;
  d.offset_capture_failed = rep.offset_capture_failed;
  if (rep.ok) {
    d.message = "the cache replica on " + r.target + " reached the cache master's offset (" +
                offsets_text(rep) + ")";
    r.phase = "Draining";
    r.drain_started_ms = now_ms;
    r.message = "fencing " + r.source + " and killing its sessions";
    v.start_mysql = true;
    v.record = std::move(r);
    return v;
  }
  v.timed_out = true;
  d.reason = "DragonflySyncTimeout";
  d.sessions_preserved = "false";
  d.message = "the cache replica on " + r.target + " did not reach the cache master's offset: " + rep.error;
  if (d.fail_on_timeout) {
    r.phase = "Failed";
    r.reason = "DragonflySyncTimeout";
    r.message = "rolled back before MySQL was touched (onSyncTimeout=fail): " + d.message + "; " + r.source +
                " stays the active primary";
    r.finished_ms = now_ms;
    v.record = std::move(r);
    return v;
  }
  r.phase = "Draining";
  r.drain_started_ms = now_ms;
  r.message = "fencing " + r.source + " and killing its sessions (onSyncTimeout=proceed: cache sessions "
              "written since the replica's last sync may be lost)";
  v.start_mysql = true;
  v.record = std::move(r);
  return v;
}

planned_failover_record planned_after_mysql(planned_failover_record r, int64_t now_ms) {
  if (r.phase != "Succeeded" || !r.dragonfly.enabled) return r;
  (void)now_ms;
  r.phase = planned_phase_dragonfly_promote;
  r.finished_ms = 0;
  r.message = r.target + " is the active primary (it executed " + r.source +
              "'s whole set); moving the cache master to " + r.target;
  return r;
}

planned_failover_record planned_dragonfly_promoted(planned_failover_record r,
                                                   const dragonfly_handover_report& rep,
                                                   int64_t now_ms) {
  auto& d = r.dragonfly;
  r.phase = "Succeeded";
  r.reason.clear();
  r.finished_ms = now_ms;
  d.target_offset = rep.target_offset;
  if (rep.ok) {
    d.promotion_method = rep.method.empty() ? "skipped" : rep.method;
    if (d.sessions_preserved.empty()) d.sessions_preserved = "true";
    d.message = "the cache master is on " + r.target + " (" + d.promotion_method + ")";
    r.message = r.target + " is the active primary; nothing lost (it executed " + r.source +
                "'s whole set before promotion); the cache master moved with it (" + d.promotion_method + ")";
  } else {
    d.promotion_method = rep.method;
    d.sessions_preserved = "false";
    d.reason = "DragonflyPromotionFailed";
    d.message = "the cache master did not move to " + r.target + ": " + rep.error +
                "; the Dragonfly manager moves it to MySQL's active site once the replica there is ready";
    r.message = r.target + " is the active primary; nothing lost (it executed " + r.source +
                "'s whole set before promotion); the cache master did not move: " + rep.error;
  }
  return r;
}

}  // namespace br
