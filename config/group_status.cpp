// Status JSON: camelCase keys, empty strings and absent optionals omitted.
#include "config/group_status.hpp"

#include <stdexcept>

#include "config/group_spec.hpp"
#include "config/json_reader.hpp"

namespace br::config {

std::string_view to_string(recovery_state r) {
  switch (r) {
    case recovery_state::none:
      return "";
    case recovery_state::in_progress:
      return "RecoveryInProgress";
    case recovery_state::blocked:
      return "RecoveryBlocked";
  }
  return "";
}

std::optional<site_state> parse_site_state(std::string_view s) {
  for (auto st :
       {site_state::unknown, site_state::writable, site_state::read_only, site_state::unreachable})
    if (to_string(st) == s) return st;
  return std::nullopt;
}

void read(const json& v, const std::string& path, site_state& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"unknown", site_state::unknown},
             {"writable", site_state::writable},
             {"read-only", site_state::read_only},
             {"unreachable", site_state::unreachable}},
            errs);
}

void read(const json& v, const std::string& path, recovery_state& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"", recovery_state::none},
             {"RecoveryInProgress", recovery_state::in_progress},
             {"RecoveryBlocked", recovery_state::blocked}},
            errs);
}

void read(const json& v, const std::string& path, site_semisync_status& out,
          field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("role", out.role)
      .field("sourceOn", out.source_on)
      .field("clients", out.clients)
      .field("waitCount", out.wait_count)
      .field("waitingSessions", out.waiting_sessions)
      .field("replicaOn", out.replica_on);
}

void read(const json& v, const std::string& path, site_status& out, field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("name", out.name)
      .field("role", out.role)
      .field("state", out.state)
      .field("lastSeen", out.last_seen)
      .field("replicating", out.replicating)
      .field("secondsBehindSource", out.seconds_behind_source)
      .field("gtidExecuted", out.gtid_executed)
      .field("sourceHost", out.source_host)
      .field("recoveryState", out.recovery_state)
      .field("divergentGtid", out.divergent_gtid)
      .field("divergentTransactionCount", out.divergent_transaction_count)
      .field("servingHealthy", out.serving_healthy)
      .field("manuallyFenced", out.manually_fenced)
      .field("restorePending", out.restore_pending)
      .field("semiSync", out.semi_sync);
}

void read(const json& v, const std::string& path, condition& out, field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("type", out.type)
      .field("status", out.status)
      .field("reason", out.reason)
      .field("message", out.message)
      .field("lastTransitionTime", out.last_transition_time);
}

void read(const json& v, const std::string& path, transaction_loss& out, field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("site", out.site)
      .field("kind", out.kind)
      .field("gtidSet", out.gtid_set)
      .field("count", out.count);
}

void read(const json& v, const std::string& path, bootstrap_site_status& out,
          field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("name", out.name)
      .field("phase", out.phase)
      .field("message", out.message)
      .field("startedAt", out.started_at)
      .field("finishedAt", out.finished_at);
}

void read(const json& v, const std::string& path, bootstrap_status& out, field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("phase", out.phase)
      .field("source", out.source)
      .field("seedSite", out.seed_site)
      .field("message", out.message)
      .field("sites", out.sites);
}

void read(const json& v, const std::string& path, planned_dragonfly_status& out,
          field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("enabled", out.enabled)
      .field("syncWaitStartTime", out.sync_wait_start_time)
      .field("sourceOffsetAtDrain", out.source_offset_at_drain)
      .field("offsetCaptureFailed", out.offset_capture_failed)
      .field("targetOffsetAtPromotion", out.target_offset_at_promotion)
      .field("sessionsPreserved", out.sessions_preserved)
      .field("promotionMethod", out.promotion_method)
      .field("reason", out.reason)
      .field("message", out.message);
  if (v.is_object())
    if (auto it = v.find("syncWaitSeconds"); it != v.end() && it->is_number())
      out.sync_wait_ms = static_cast<int64_t>(it->get<double>() * 1000.0 + 0.5);
}

void read(const json& v, const std::string& path, planned_failover_status& out,
          field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("phase", out.phase)
      .field("target", out.target)
      .field("sourcePrimary", out.source_primary)
      .field("reason", out.reason)
      .field("message", out.message)
      .field("sourceGtidAtFence", out.source_gtid_at_fence)
      .field("maxLagWait", out.max_lag_wait)
      .field("startTime", out.start_time)
      .field("drainStartTime", out.drain_start_time)
      .field("lagWaitStartTime", out.lag_wait_start_time)
      .field("promoteStartTime", out.promote_start_time)
      .field("resumeStartTime", out.resume_start_time)
      .field("completionTime", out.completion_time)
      .field("retryAfter", out.retry_after)
      .field("dragonfly", out.dragonfly);
}

void read(const json& v, const std::string& path, gr_member_status& out, field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("name", out.name)
      .field("memberId", out.member_id)
      .field("state", out.state)
      .field("role", out.role)
      .field("reachable", out.reachable);
}

void read(const json& v, const std::string& path, gr_recovery_plan_status& out,
          field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("kind", out.kind)
      .field("survivor", out.survivor)
      .field("rejoin", out.rejoin)
      .field("reason", out.reason)
      .field("atRisk", out.at_risk)
      .field("digest", out.digest);
}

void read(const json& v, const std::string& path, gr_last_recovery_status& out,
          field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("request", out.request).field("result", out.result).field("message", out.message);
}

void read(const json& v, const std::string& path, gr_leaving_status& out, field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("site", out.site)
      .field("memberId", out.member_id)
      .field("phase", out.phase)
      .field("message", out.message);
}

void read(const json& v, const std::string& path, group_replication_status& out,
          field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("groupName", out.group_name)
      .field("bootstrapped", out.bootstrapped)
      .field("primaryMember", out.primary_member)
      .field("hasQuorum", out.has_quorum)
      .field("viewId", out.view_id)
      .field("observedViewMax", out.observed_view_max)
      .field("viewKnown", out.view_known)
      .field("message", out.message)
      .field("switchoverTarget", out.switchover_target)
      .field("members", out.members)
      .field("phase", out.phase)
      .field("recoveryPlan", out.recovery_plan)
      .field("lastRecovery", out.last_recovery)
      .field("leaving", out.leaving);
}

void read(const json& v, const std::string& path, group_status& out, field_errors& errs) {
  json_reader r{v, path, errs, /*strict=*/false};
  r.field("activeSite", out.active_site)
      .field("sites", out.sites)
      .field("lastFailover", out.last_failover)
      .field("lastFailoverTarget", out.last_failover_target)
      .field("promotionGtidExecuted", out.promotion_gtid_executed)
      .field("conditions", out.conditions)
      .field("epoch", out.epoch)
      .field("deposingSite", out.deposing_site)
      .field("observedAt", out.observed_at)
      .field("lastFailoverLosses", out.last_failover_losses)
      .field("bootstrap", out.bootstrap)
      .field("plannedFailover", out.planned_failover)
      .field("groupReplication", out.group_replication);
}

namespace {

void put(json& j, const char* key, const std::string& s) {
  if (!s.empty()) j[key] = s;
}

void put(json& j, const char* key, const std::optional<timestamp>& t) {
  if (t) j[key] = format_rfc3339(*t);
}

}  // namespace

void to_json(json& j, const site_status& s) {
  j = json::object();
  j["name"] = s.name;
  if (s.role) j["role"] = std::string{to_string(*s.role)};
  j["state"] = std::string{to_string(s.state)};
  put(j, "lastSeen", s.last_seen);
  j["replicating"] = s.replicating;
  if (s.seconds_behind_source) j["secondsBehindSource"] = *s.seconds_behind_source;
  put(j, "gtidExecuted", s.gtid_executed);
  put(j, "sourceHost", s.source_host);
  put(j, "recoveryState", std::string{to_string(s.recovery_state)});
  put(j, "divergentGtid", s.divergent_gtid);
  if (s.divergent_transaction_count)
    j["divergentTransactionCount"] = *s.divergent_transaction_count;
  if (s.serving_healthy) j["servingHealthy"] = *s.serving_healthy;
  if (s.manually_fenced) j["manuallyFenced"] = true;
  if (s.restore_pending) j["restorePending"] = true;
  if (s.semi_sync)
    j["semiSync"] = {{"role", s.semi_sync->role},
                     {"sourceOn", s.semi_sync->source_on},
                     {"clients", s.semi_sync->clients},
                     {"waitCount", s.semi_sync->wait_count},
                     {"waitingSessions", s.semi_sync->waiting_sessions},
                     {"replicaOn", s.semi_sync->replica_on}};
}

void to_json(json& j, const condition& c) {
  j = json::object();
  j["type"] = c.type;
  j["status"] = c.status;
  put(j, "reason", c.reason);
  put(j, "message", c.message);
  put(j, "lastTransitionTime", c.last_transition_time);
}

void to_json(json& j, const bootstrap_site_status& s) {
  j = json::object();
  j["name"] = s.name;
  put(j, "phase", s.phase);
  put(j, "message", s.message);
  put(j, "startedAt", s.started_at);
  put(j, "finishedAt", s.finished_at);
}

void to_json(json& j, const bootstrap_status& s) {
  j = json::object();
  put(j, "phase", s.phase);
  put(j, "source", s.source);
  put(j, "seedSite", s.seed_site);
  put(j, "message", s.message);
  if (!s.sites.empty()) j["sites"] = s.sites;
}

void to_json(json& j, const planned_dragonfly_status& s) {
  j = {{"enabled", s.enabled}};
  put(j, "syncWaitStartTime", s.sync_wait_start_time);
  if (s.source_offset_at_drain) j["sourceOffsetAtDrain"] = *s.source_offset_at_drain;
  if (s.offset_capture_failed) j["offsetCaptureFailed"] = true;
  if (s.target_offset_at_promotion) j["targetOffsetAtPromotion"] = *s.target_offset_at_promotion;
  if (s.sync_wait_ms) j["syncWaitSeconds"] = static_cast<double>(*s.sync_wait_ms) / 1000.0;
  if (s.sessions_preserved) j["sessionsPreserved"] = *s.sessions_preserved;
  put(j, "promotionMethod", s.promotion_method);
  put(j, "reason", s.reason);
  put(j, "message", s.message);
}

void to_json(json& j, const planned_failover_status& s) {
  j = json::object();
  put(j, "phase", s.phase);
  put(j, "target", s.target);
  put(j, "sourcePrimary", s.source_primary);
  put(j, "reason", s.reason);
  put(j, "message", s.message);
  put(j, "sourceGtidAtFence", s.source_gtid_at_fence);
  put(j, "maxLagWait", s.max_lag_wait);
  put(j, "startTime", s.start_time);
  put(j, "drainStartTime", s.drain_start_time);
  put(j, "lagWaitStartTime", s.lag_wait_start_time);
  put(j, "promoteStartTime", s.promote_start_time);
  put(j, "resumeStartTime", s.resume_start_time);
  put(j, "completionTime", s.completion_time);
  put(j, "retryAfter", s.retry_after);
  if (s.dragonfly) j["dragonfly"] = *s.dragonfly;
}

void to_json(json& j, const gr_member_status& m) {
  j = {{"name", m.name}, {"state", m.state}, {"role", m.role}, {"reachable", m.reachable}};
  put(j, "memberId", m.member_id);
}

void to_json(json& j, const group_replication_status& g) {
  j = {{"groupName", g.group_name},         {"bootstrapped", g.bootstrapped},
       {"primaryMember", g.primary_member}, {"hasQuorum", g.has_quorum},
       {"viewId", g.view_id},               {"observedViewMax", g.observed_view_max},
       {"viewKnown", g.view_known},         {"members", g.members}};
  put(j, "message", g.message);
  put(j, "switchoverTarget", g.switchover_target);
  put(j, "phase", g.phase);
  if (g.recovery_plan) j["recoveryPlan"] = *g.recovery_plan;
  if (g.last_recovery) j["lastRecovery"] = *g.last_recovery;
  if (!g.leaving.empty()) j["leaving"] = g.leaving;
}

void to_json(json& j, const gr_leaving_status& l) {
  j = {{"site", l.site}, {"phase", l.phase}};
  put(j, "memberId", l.member_id);
  put(j, "message", l.message);
}

void to_json(json& j, const gr_recovery_plan_status& p) {
  j = {{"kind", p.kind}, {"reason", p.reason}, {"rejoin", p.rejoin}, {"atRisk", p.at_risk}};
  put(j, "survivor", p.survivor);
  put(j, "digest", p.digest);
}

void to_json(json& j, const gr_last_recovery_status& r) {
  j = {{"request", r.request}, {"result", r.result}, {"message", r.message}};
}

void to_json(json& j, const group_status& s) {
  j = json::object();
  put(j, "activeSite", s.active_site);
  if (!s.sites.empty()) j["sites"] = s.sites;
  put(j, "lastFailover", s.last_failover);
  put(j, "lastFailoverTarget", s.last_failover_target);
  put(j, "promotionGtidExecuted", s.promotion_gtid_executed);
  if (!s.conditions.empty()) j["conditions"] = s.conditions;
  j["epoch"] = s.epoch;
  put(j, "deposingSite", s.deposing_site);
  put(j, "observedAt", s.observed_at);
  if (!s.last_failover_losses.empty()) {
    auto& losses = j["lastFailoverLosses"] = json::array();
    for (const auto& l : s.last_failover_losses)
      losses.push_back({{"site", l.site}, {"kind", l.kind}, {"gtidSet", l.gtid_set}, {"count", l.count}});
  }
  if (s.bootstrap) j["bootstrap"] = *s.bootstrap;
  if (s.planned_failover) j["plannedFailover"] = *s.planned_failover;
  if (s.group_replication) j["groupReplication"] = *s.group_replication;
}

void from_json(const json& j, group_status& s) {
  field_errors errs;
  group_status out;
  read(j, "status", out, errs);
  if (!errs.empty()) throw std::invalid_argument(to_string(errs));
  s = std::move(out);
}

}  // namespace br::config
