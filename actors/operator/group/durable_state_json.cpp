// durable_state <-> JSON: camelCase members, enums as names, durations in milliseconds.
#include "actors/operator/group/durable_state_json.hpp"

#include <caf/error.hpp>
#include <caf/sec.hpp>

#include <chrono>
#include <stdexcept>

namespace br {

namespace {

using nlohmann::json;

int64_t ms(caf::timespan d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}

struct bad_member : std::runtime_error {
  using std::runtime_error::runtime_error;
};

const json& member(const json& j, const char* name) {
  if (!j.is_object() || !j.contains(name)) throw bad_member(std::string("missing member ") + name);
  return j.at(name);
}

template <class T>
T get(const json& j, const char* name) {
  const auto& v = member(j, name);
  try {
    return v.get<T>();
  } catch (const json::exception&) {
    throw bad_member(std::string("wrong type of member ") + name);
  }
}

json losses_json(const std::vector<gtid_loss>& losses) {
  json out = json::array();
  for (const auto& l : losses)
    out.push_back({{"site", l.site}, {"kind", l.kind}, {"gtid", l.gtid}, {"count", l.count}});
  return out;
}

std::vector<gtid_loss> losses_from_json(const json& j) {
  if (!j.is_array()) throw bad_member("wrong type of member losses");
  std::vector<gtid_loss> out;
  for (const auto& x : j)
    out.push_back({get<std::string>(x, "site"), get<std::string>(x, "kind"),
                   get<std::string>(x, "gtid"), get<uint64_t>(x, "count")});
  return out;
}

}  // namespace

std::string epoch_regression(const std::string& stored_text, const durable_state& next) {
  if (stored_text.empty()) return {};
  auto j = json::parse(stored_text, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("view") || !j["view"].is_object()) return {};
  const auto& e = j["view"]["epoch"];
  if (!e.is_number_unsigned()) return {};
  auto stored = e.get<uint64_t>();
  if (next.view.epoch >= stored) return {};
  return "the stored view has epoch " + std::to_string(stored) + ", this write " +
         std::to_string(next.view.epoch) + ": the epoch never goes down (S6)";
}

namespace {

json bootstrap_json(const bootstrap_record& b) {
  json sites = json::array();
  for (const auto& x : b.sites)
    sites.push_back({{"name", x.name},
                     {"action", x.action},
                     {"phase", x.phase},
                     {"message", x.message},
                     {"startedMs", x.started_ms},
                     {"finishedMs", x.finished_ms},
                     {"attempts", x.attempts}});
  return {{"source", b.source},       {"seed", b.seed},
          {"phase", b.phase},         {"message", b.message},
          {"startedMs", b.started_ms}, {"finishedMs", b.finished_ms},
          {"sites", sites}};
}

bootstrap_record bootstrap_from_json(const json& j) {
  bootstrap_record b;
  b.source = get<std::string>(j, "source");
  b.seed = get<std::string>(j, "seed");
  b.phase = get<std::string>(j, "phase");
  b.message = get<std::string>(j, "message");
  b.started_ms = get<int64_t>(j, "startedMs");
  b.finished_ms = get<int64_t>(j, "finishedMs");
  const auto& sites = member(j, "sites");
  if (!sites.is_array()) throw bad_member("wrong type of member bootstrap.sites");
  for (const auto& x : sites) {
    bootstrap_site s;
    s.name = get<std::string>(x, "name");
    s.action = get<std::string>(x, "action");
    s.phase = get<std::string>(x, "phase");
    s.message = get<std::string>(x, "message");
    s.started_ms = get<int64_t>(x, "startedMs");
    s.finished_ms = get<int64_t>(x, "finishedMs");
    s.attempts = get<uint32_t>(x, "attempts");
    b.sites.push_back(std::move(s));
  }
  return b;
}

json planned_json(const planned_failover_record& r) {
  return {{"phase", r.phase},
          {"target", r.target},
          {"source", r.source},
          {"reason", r.reason},
          {"message", r.message},
          {"sourceGtidAtFence", r.source_gtid_at_fence},
          {"planId", r.plan_id},
          {"request", r.request},
          {"retryAfterMs", r.retry_after_ms},
          {"maxLagWaitMs", r.max_lag_wait_ms},
          {"startedMs", r.started_ms},
          {"drainStartedMs", r.drain_started_ms},
          {"lagWaitStartedMs", r.lag_wait_started_ms},
          {"promoteStartedMs", r.promote_started_ms},
          {"resumeStartedMs", r.resume_started_ms},
          {"finishedMs", r.finished_ms},
          {"dragonfly", {{"enabled", r.dragonfly.enabled},
                         {"failOnTimeout", r.dragonfly.fail_on_timeout},
                         {"maxSyncWaitMs", r.dragonfly.max_sync_wait_ms},
                         {"syncWaitStartedMs", r.dragonfly.sync_wait_started_ms},
                         {"syncWaitMs", r.dragonfly.sync_wait_ms},
                         {"sourceOffset", r.dragonfly.source_offset},
                         {"offsetCaptureFailed", r.dragonfly.offset_capture_failed},
                         {"targetOffset", r.dragonfly.target_offset},
                         {"sessionsPreserved", r.dragonfly.sessions_preserved},
                         {"promotionMethod", r.dragonfly.promotion_method},
                         {"reason", r.dragonfly.reason},
                         {"message", r.dragonfly.message}}}};
}

planned_failover_record planned_from_json(const json& j) {
  planned_failover_record r;
  r.phase = get<std::string>(j, "phase");
  r.target = get<std::string>(j, "target");
  r.source = get<std::string>(j, "source");
  r.reason = get<std::string>(j, "reason");
  r.message = get<std::string>(j, "message");
  r.source_gtid_at_fence = get<std::string>(j, "sourceGtidAtFence");
  r.plan_id = get<uint64_t>(j, "planId");
  r.request = get<uint64_t>(j, "request");
  r.retry_after_ms = get<int64_t>(j, "retryAfterMs");
  r.max_lag_wait_ms = get<int64_t>(j, "maxLagWaitMs");
  r.started_ms = get<int64_t>(j, "startedMs");
  r.drain_started_ms = get<int64_t>(j, "drainStartedMs");
  r.lag_wait_started_ms = get<int64_t>(j, "lagWaitStartedMs");
  r.promote_started_ms = get<int64_t>(j, "promoteStartedMs");
  r.resume_started_ms = get<int64_t>(j, "resumeStartedMs");
  r.finished_ms = get<int64_t>(j, "finishedMs");
  if (auto it = j.find("dragonfly"); it != j.end() && it->is_object()) {  // absent before issue 24
    const auto& d = *it;
    auto& x = r.dragonfly;
    x.enabled = get<bool>(d, "enabled");
    x.fail_on_timeout = get<bool>(d, "failOnTimeout");
    x.max_sync_wait_ms = get<int64_t>(d, "maxSyncWaitMs");
    x.sync_wait_started_ms = get<int64_t>(d, "syncWaitStartedMs");
    x.sync_wait_ms = get<int64_t>(d, "syncWaitMs");
    x.source_offset = get<int64_t>(d, "sourceOffset");
    x.offset_capture_failed = get<bool>(d, "offsetCaptureFailed");
    x.target_offset = get<int64_t>(d, "targetOffset");
    x.sessions_preserved = get<std::string>(d, "sessionsPreserved");
    x.promotion_method = get<std::string>(d, "promotionMethod");
    x.reason = get<std::string>(d, "reason");
    x.message = get<std::string>(d, "message");
  }
  return r;
}

}  // namespace

caf::expected<plan_kind> parse_plan_kind(const std::string& s) {
  for (auto k : {plan_kind::failover, plan_kind::switchover, plan_kind::recover, plan_kind::reclone,
                 plan_kind::bootstrap, plan_kind::auto_clone})
    if (to_string(k) == s) return k;
  return caf::make_error(caf::sec::invalid_argument, "unknown plan kind " + s);
}

caf::expected<plan_phase> parse_plan_phase(const std::string& s) {
  for (int i = 0; i <= static_cast<int>(plan_phase::restarting); ++i) {
    auto p = static_cast<plan_phase>(i);
    if (to_string(p) == s) return p;
  }
  return caf::make_error(caf::sec::invalid_argument, "unknown plan phase " + s);
}

nlohmann::json durable_state_to_json(const durable_state& s) {
  json recovery = json::object();
  for (const auto& [site, r] : s.recovery)
    recovery[site] = {{"state", r.state},
                      {"divergentGtid", r.divergent_gtid},
                      {"divergentCount", r.divergent_count}};
  const auto& p = s.plan;
  nlohmann::json j = {
      {"view",
       {{"epoch", s.view.epoch},
        {"activeSite", s.view.active_site},
        {"deposing", s.view.deposing},
        {"observedAtMs", s.view.observed_at_ms}}},
      {"lastFailoverMs", s.last_failover_ms},
      {"lastFailoverTarget", s.last_failover_target},
      {"promotionGtid", s.promotion_gtid},
      {"planActive", s.plan_active},
      {"plan",
       {{"id", p.id},
        {"kind", to_string(p.kind)},
        {"group", p.group},
        {"epoch", p.epoch},
        {"candidate", p.candidate},
        {"oldPrimary", p.old_primary},
        {"oldPrimaryReachable", p.old_primary_reachable},
        {"source", p.source},
        {"followers", p.followers},
        {"phase", to_string(p.phase)},
        {"promotionGtid", p.promotion_gtid},
        {"policy", to_string(p.policy)},
        {"drainTimeoutMs", ms(p.drain_timeout)},
        {"stepTimeoutMs", ms(p.step_timeout)},
        {"gateTimeoutMs", ms(p.gate_timeout)},
        {"maxLagWaitMs", ms(p.max_lag_wait)},
        {"sessionDrainTimeoutMs", ms(p.session_drain_timeout)},
        {"sourceGtid", p.source_gtid},
        {"discardGtid", p.discard_gtid},
        {"semiSync", {{"waitForReplicaCount", p.semisync_k},
                      {"sourceConfirmed", p.semisync_confirmed},
                      {"inStep", p.semisync_in_step}}},
        {"losses", losses_json(p.losses)}}},
      {"recovery", recovery},
      {"lastFailoverLosses", losses_json(s.last_failover_losses)},
      {"bootstrap", bootstrap_json(s.bootstrap)},
      {"manuallyFenced", s.manually_fenced},
      {"plannedFailover", planned_json(s.planned)},
  };
  // Group Replication groups only (issue 22); an async group's state keeps its old shape.
  if (s.gr != gr_durable{}) {
    j["groupReplication"] = {{"groupName", s.gr.group_name},
                             {"bootstrapped", s.gr.bootstrapped},
                             {"observedViewMax", s.gr.observed_view_max},
                             {"bootstrapStarted", s.gr.bootstrap_started}};
    // Guarded quorum recovery (issue 23); a record that never had one keeps its old shape.
    if (!s.gr.recovery_request.empty())
      j["groupReplication"]["recovery"] = {{"request", s.gr.recovery_request},
                                           {"kind", s.gr.recovery_kind},
                                           {"site", s.gr.recovery_site},
                                           {"open", s.gr.recovery_open}};
    // Scale-down (issue 23); a record that never had a leave keeps its old shape.
    if (!s.gr.leaving.empty()) {
      json leaving = json::array();
      for (const auto& l : s.gr.leaving)
        leaving.push_back({{"site", l.site}, {"memberId", l.member_id}, {"phase", l.phase}});
      j["groupReplication"]["leaving"] = leaving;
    }
  }
  // spec.restoreInPlace (issue 21); a state that never had one keeps its old shape.
  if (s.restore_freeze != restore_freeze_record{})
    j["restoreFreeze"] = {{"token", s.restore_freeze.token},
                          {"frozen", s.restore_freeze.frozen},
                          {"site", s.restore_freeze.site}};
  if (!s.restore_freeze.recloned.empty()) j["restoreFreeze"]["recloned"] = s.restore_freeze.recloned;
  if (!s.restore_freeze.pending.empty()) j["restoreFreeze"]["pending"] = s.restore_freeze.pending;
  // Issue 25; a state without a semi-sync no-loss failover keeps its old shape.
  if (!s.semisync_unacked_site.empty()) j["semiSyncUnackedSite"] = s.semisync_unacked_site;
  return j;
}

caf::expected<durable_state> durable_state_from_json(const nlohmann::json& j) {
  try {
    durable_state s;
    const auto& v = member(j, "view");
    s.view.epoch = get<uint64_t>(v, "epoch");
    s.view.active_site = get<std::string>(v, "activeSite");
    s.view.deposing = get<std::string>(v, "deposing");
    s.view.observed_at_ms = get<int64_t>(v, "observedAtMs");
    s.last_failover_ms = get<int64_t>(j, "lastFailoverMs");
    s.last_failover_target = get<std::string>(j, "lastFailoverTarget");
    s.promotion_gtid = get<std::string>(j, "promotionGtid");
    s.plan_active = get<bool>(j, "planActive");
    const auto& p = member(j, "plan");
    s.plan.id = get<uint64_t>(p, "id");
    auto kind = parse_plan_kind(get<std::string>(p, "kind"));
    if (!kind) return kind.error();
    s.plan.kind = *kind;
    s.plan.group = get<std::string>(p, "group");
    s.plan.epoch = get<uint64_t>(p, "epoch");
    s.plan.candidate = get<std::string>(p, "candidate");
    s.plan.old_primary = get<std::string>(p, "oldPrimary");
    s.plan.old_primary_reachable = get<bool>(p, "oldPrimaryReachable");
    s.plan.followers = get<std::vector<std::string>>(p, "followers");
    auto phase = parse_plan_phase(get<std::string>(p, "phase"));
    if (!phase) return phase.error();
    s.plan.phase = *phase;
    s.plan.promotion_gtid = get<std::string>(p, "promotionGtid");
    // Older state files have no plan source (recover/reclone); an empty source is valid.
    if (p.contains("source")) s.plan.source = get<std::string>(p, "source");
    auto policy = get<std::string>(p, "policy");
    if (policy != "Safe" && policy != "Fast")
      return caf::make_error(caf::sec::invalid_argument, "unknown gate policy " + policy);
    s.plan.policy = policy == "Fast" ? gate_policy::fast : gate_policy::safe;
    s.plan.drain_timeout = std::chrono::milliseconds(get<int64_t>(p, "drainTimeoutMs"));
    s.plan.step_timeout = std::chrono::milliseconds(get<int64_t>(p, "stepTimeoutMs"));
    s.plan.gate_timeout = std::chrono::milliseconds(get<int64_t>(p, "gateTimeoutMs"));
    // Members added later (issue 18): older state files lack them; the defaults are what those
    // plans ran with.
    if (p.contains("maxLagWaitMs"))
      s.plan.max_lag_wait = std::chrono::milliseconds(get<int64_t>(p, "maxLagWaitMs"));
    if (p.contains("sessionDrainTimeoutMs"))
      s.plan.session_drain_timeout =
          std::chrono::milliseconds(get<int64_t>(p, "sessionDrainTimeoutMs"));
    if (p.contains("sourceGtid")) s.plan.source_gtid = get<std::string>(p, "sourceGtid");
    if (p.contains("losses")) s.plan.losses = losses_from_json(member(p, "losses"));
    if (p.contains("discardGtid")) s.plan.discard_gtid = get<std::string>(p, "discardGtid");
    // Added with issue 25 (semi-synchronous replication); older state files have none.
    if (p.contains("semiSync")) {
      const auto& ss = member(p, "semiSync");
      s.plan.semisync_k = get<uint32_t>(ss, "waitForReplicaCount");
      s.plan.semisync_confirmed = get<bool>(ss, "sourceConfirmed");
      s.plan.semisync_in_step = get<std::map<std::string, int64_t>>(ss, "inStep");
    }
    if (j.contains("lastFailoverLosses"))
      s.last_failover_losses = losses_from_json(member(j, "lastFailoverLosses"));
    // Added with issue 19; older state files have none.
    if (j.contains("bootstrap")) s.bootstrap = bootstrap_from_json(member(j, "bootstrap"));
    // Added with issue 20 (manual fence); older state files have none.
    if (j.contains("manuallyFenced"))
      for (const auto& site : get<std::vector<std::string>>(j, "manuallyFenced"))
        s.manually_fenced.insert(site);
    // Added with issue 20 (the planned failover record); older state files have none.
    if (j.contains("plannedFailover")) s.planned = planned_from_json(member(j, "plannedFailover"));
    if (j.contains("groupReplication")) {
      const auto& g = member(j, "groupReplication");
      s.gr.group_name = get<std::string>(g, "groupName");
      s.gr.bootstrapped = get<bool>(g, "bootstrapped");
      s.gr.observed_view_max = get<uint64_t>(g, "observedViewMax");
      s.gr.bootstrap_started = get<std::string>(g, "bootstrapStarted");
      if (g.contains("recovery")) {
        const auto& r = member(g, "recovery");
        s.gr.recovery_request = get<std::string>(r, "request");
        s.gr.recovery_kind = get<std::string>(r, "kind");
        s.gr.recovery_site = get<std::string>(r, "site");
        s.gr.recovery_open = get<bool>(r, "open");
      }
      if (g.contains("leaving")) {
        const auto& l = member(g, "leaving");
        if (!l.is_array()) throw bad_member("wrong type of member groupReplication.leaving");
        for (const auto& x : l)
          s.gr.leaving.push_back({get<std::string>(x, "site"), get<std::string>(x, "memberId"),
                                  get<std::string>(x, "phase")});
      }
    }
    if (j.contains("restoreFreeze")) {
      const auto& r = member(j, "restoreFreeze");
      s.restore_freeze.token = get<std::string>(r, "token");
      s.restore_freeze.frozen = get<bool>(r, "frozen");
      s.restore_freeze.site = get<std::string>(r, "site");
      if (r.contains("recloned")) s.restore_freeze.recloned = get<std::vector<std::string>>(r, "recloned");
      if (r.contains("pending")) s.restore_freeze.pending = get<std::vector<std::string>>(r, "pending");
    }
    if (j.contains("semiSyncUnackedSite"))
      s.semisync_unacked_site = get<std::string>(j, "semiSyncUnackedSite");
    const auto& rec = member(j, "recovery");
    if (!rec.is_object()) throw bad_member("wrong type of member recovery");
    for (auto it = rec.begin(); it != rec.end(); ++it) {
      site_recovery r;
      r.state = get<std::string>(it.value(), "state");
      r.divergent_gtid = get<std::string>(it.value(), "divergentGtid");
      r.divergent_count = get<uint64_t>(it.value(), "divergentCount");
      s.recovery[it.key()] = r;
    }
    return s;
  } catch (const bad_member& e) {
    return caf::make_error(caf::sec::invalid_argument, std::string("durable state: ") + e.what());
  }
}

}  // namespace br
