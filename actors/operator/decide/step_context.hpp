// Internal to the step function's files: the state being stepped, the effects collected so far,
// and the small verbs the rules share (log, Event, alert once, queue a durable change, fence).
#pragma once

#include <string>
#include <utility>

#include "actors/operator/decide/gr_quorum.hpp"
#include "actors/operator/decide/group_step.hpp"
#include "actors/operator/decide/overload.hpp"
#include "actors/operator/decide/restore_freeze.hpp"
#include "messages/group_status.hpp"

namespace br::step_detail {

/// The recorded last failover (cooldown), if any.
inline std::optional<wall_time> last_failover(const durable_state& d) {
  if (d.last_failover_ms == 0) return std::nullopt;
  return wall_time(std::chrono::duration_cast<wall_time::duration>(
      std::chrono::milliseconds(d.last_failover_ms)));
}

struct context {
  const group_rules& rules;
  group_state& st;
  const step_clock& clock;
  std::vector<group_effect>& out;
  std::optional<std::string>& answer;

  int64_t wall_ms() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(clock.wall.time_since_epoch())
        .count();
  }

  /// The site's role for every rule: a manually fenced or restore-pending site counts as read-only.
  site_role role_of(const std::string& site) const {
    if (st.durable.manually_fenced.count(site) || restore_pending(st.durable.restore_freeze, site))
      return site_role::read_only;
    auto it = rules.roles.find(site);
    return it == rules.roles.end() ? site_role::primary_candidate : it->second;
  }

  nlohmann::json fields(const std::string& site = "") const {
    nlohmann::json f = {{"group", rules.group}, {"epoch", st.view.epoch}};
    if (!site.empty()) f["site"] = site;
    return f;
  }

  void log(log_level level, std::string message, nlohmann::json f) {
    out.emplace_back(effect::log{level, std::move(message), std::move(f)});
  }

  void emit(const std::string& type, const std::string& reason, const std::string& message,
            const std::string& site = "") {
    group_event ev;
    ev.group = rules.group;
    ev.type = type;
    ev.reason = reason;
    ev.message = message;
    ev.site = site;
    ev.epoch = st.view.epoch;
    ev.time_ms = wall_ms();
    out.emplace_back(effect::emit{std::move(ev)});
  }

  /// Raises an Event once per situation (`key`); the keys are cleared when the group is healthy.
  void alert_once(const std::string& key, const std::string& type, const std::string& reason,
                  const std::string& message, const std::string& site = "") {
    if (!st.alerts.insert(key).second) return;
    auto f = fields(site);
    f["reason"] = reason;
    log(log_level::warn, message, f);
    emit(type, reason, message, site);
  }

  void metric(effect::metric m) { out.emplace_back(std::move(m)); }

  void metric(metric_kind kind, const std::string& site, double value = 0,
              std::string detail = "") {
    effect::metric m;
    m.kind = kind;
    m.site = site;
    m.value = value;
    m.detail = std::move(detail);
    out.emplace_back(std::move(m));
  }

  /// Fence `site` unless a fence is already in flight; `then_check_returning` makes the
  /// returning-primary check continue once it is fenced.
  void fence(const std::string& site, bool then_check_returning = false) {
    auto [it, fresh] = st.fencing.emplace(site, then_check_returning);
    if (!fresh) {
      it->second = it->second || then_check_returning;
      return;
    }
    out.emplace_back(effect::fence{site});
  }
};

/// One input stepped: `f(context&)` applies the topology's rules to `state` (step, gr_step).
template <class F>
step_result stepped(const group_rules& rules, group_state state, const step_clock& clock, F&& f) {
  step_result res;
  res.state = std::move(state);
  context c{rules, res.state, clock, res.effects, res.answer};
  f(c);
  return res;
}

// Durable state and the inputs every topology shares (group_step.cpp).
void persist(context& c, durable_change change);
void on_loaded(context& c, durable_state d);
void on_report(context& c, site_report r);
void on_persisted(context& c, const input::persisted& in);

// Group Replication (gr_step.cpp).
void gr_evaluate(context& c);
void gr_persisted(context& c, const change_gr& x, bool ok);
void on_gr_done(context& c, const input::gr_done& in);
/// A switchover request (the planned-failover annotation / admin request): the answer.
std::string on_gr_switchover(context& c, const std::string& request);
/// Every declared member as the quorum rules see it (decide/gr_quorum.hpp): state and role from
/// the agreed view when known, else the member's own word; fenced from the durable state.
std::vector<gr::quorum_member> gr_quorum_members(const context& c);
void status_changed(context& c, bool now);
/// gr_step.cpp's helpers for the other GR files: the site's latest snapshot (nullptr: none), a
/// member's own state, one command sent (one at a time), the settings a command carries.
const gr_snapshot* gr_snapshot_of(const context& c, const std::string& site);
gr::member_state gr_own_state(const gr_snapshot& s);
/// `reset_only`: gr_force_members without an address (only the reset to '').
void gr_send(context& c, const std::string& site, mysql_op op, bool reset_only = false);
gr_settings gr_settings_for(const context& c, const std::string& site);

// Group Replication scale-down (step_gr_scale_down.cpp; decide/gr_scale_down.hpp).
/// A Warning Event (once per run) when the declared member count is even.
void gr_warn_group_size(context& c);
/// One step of the scale-down: drops stale leave records, records a leave before its STOP, sends
/// STOP, hands the primary over, records Stopped. True when it acted (nothing else this round).
bool gr_scale_down(context& c);
void gr_leave_persisted(context& c, const change_gr& x, bool ok);
/// status.groupReplication.leaving: each leaving site, its record's phase (Waiting without one).
std::vector<config::gr_leaving_status> gr_leaving_status_of(const group_rules& rules,
                                                            const group_state& st);

// Group Replication quorum loss and guarded recovery (step_gr_recovery.cpp; decide/gr_quorum.hpp).
/// The quorum size members are counted against: the declared members or the largest agreed view.
std::size_t gr_declared(const context& c);
/// Sets st.gr.blocked (gr::quorum_block) and, while Blocked, the plan the operator would run.
void gr_check_quorum(context& c);
/// A person's request (force-quorum-recovery, value = its id): recomputes the plan now, records
/// the request before acting, sends force_members or the bootstrap; the answer.
std::string on_gr_recovery(context& c, const std::string& request);
/// A durable recovery record still open while no command runs (the operator restarted mid-way):
/// only group_replication_force_members is reset, then the record is closed. True when it acted
/// or waits (nothing else may run this round).
bool gr_recovery_interrupted(context& c);
/// The recovery's command ended (true) or the reply was another command's (false).
bool on_gr_recovery_done(context& c, const input::gr_done& in);
void gr_recovery_persisted(context& c, const change_gr& x, bool ok);

// Plans (step_plans.cpp).
/// `discard_gtid`: reclone only, the set the request confirmed may be thrown away. `planned`:
/// switchover only, the planned failover record stored with the plan's start.
// step_semisync.cpp: semi-synchronous replication's in-step judgement and plan facts.
/// Judges `r`'s site against the active primary's latest probe (or records the primary's).
void judge_semisync(context& c, const site_report& r);
/// A failover/switchover plan in semi-sync mode carries K, whether the old primary was last seen
/// running semi-sync as rule 4 assumes, and the sites judged in step against it; every plan
/// clears the judgement of the sites it repoints or resets (their relay logs go).
void semisync_plan(context& c, failover_plan& plan);

void start_plan(context& c, plan_kind kind, const std::string& candidate,
                const std::string& old_primary, bool old_reachable, bool bump,
                const std::string& discard_gtid = "",
                std::optional<planned_failover_record> planned = std::nullopt);
/// Starts (or resumes) the executor of the persisted plan.
void run_executor(context& c);
void plan_persisted(context& c, const durable_change& change, bool ok);
void on_phase(context& c, const input::phase& in);
void on_plan_done(context& c, const plan_result& res);
/// A plan result the store refused is written again (at most once per poll interval).
void record_refused_result(context& c);
void on_executor_down(context& c, const std::string& reason);
void on_annotate(context& c, const input::annotate& in);

// Evaluation and the rules it applies (step_evaluate.cpp).
void evaluate_and_act(context& c);

// Recovery of returning and split-brain sites, re-assert (step_recovery.cpp).
void handle_split_brain(context& c, const std::vector<site_observation>& obs);
void check_returning(context& c, const std::vector<site_observation>& obs);
void on_fenced(context& c, const input::fenced& in);
void on_gtid_read(context& c, const input::gtid_read& in);
void maybe_reassert(context& c, const std::vector<site_observation>& obs);
void on_reassert_done(context& c, const input::reassert_done& in);
/// Followers whose receiver stopped for good while their source is healthy: START REPLICA.
void maybe_restart_receivers(context& c);
void on_receiver_started(context& c, const input::receiver_started& in);
void recovery_persisted(context& c, const change_mark_blocked& change, bool ok);

// Manual fence of sites (step_fence.cpp; decide/manual_fence.hpp).
/// The roles every rule uses (declared roles, fenced sites read-only).
std::map<std::string, site_role> roles_now(const context& c);
/// Kubernetes: the fenced-sites annotation's value (the whole desired set).
void on_fence_annotation(context& c, const std::string& value);
/// Standalone: "on:<site>" | "off:<site>" through the signed admin API.
void on_fence_request(context& c, const std::string& value);
/// Applies a pending annotation value once nothing is being written (each evaluation).
void reconcile_fence(context& c);
void fence_persisted(context& c, const change_manual_fence& x, bool ok);

// spec.restoreInPlace's arming and freeze (step_restore_freeze.cpp; decide/restore_freeze.hpp).
/// "freeze:<token>" | "lift:<token>" from the restore controller.
void on_restore_freeze_request(context& c, const std::string& value);
void restore_freeze_persisted(context& c, const change_restore_freeze& x, bool ok);
/// While frozen: a writable site other than the restore's is fenced, and true is returned (no
/// plan, adoption, re-assert or receiver restart may follow).
bool freeze_holds(context& c, const group_evaluation& ev);

// Bootstrap and auto-clone (step_bootstrap.cpp).
/// A new group with no writable site: wait, refuse or start the bootstrap. True when it applied
/// (the ordinary no-primary/failover rules must not run for a group that never had a primary).
bool maybe_bootstrap(context& c);
/// A group that never had a primary while its restore from backup has not succeeded
/// (restore_holds): says so in status.bootstrap and returns true; nothing else may run then.
bool hold_for_restore(context& c);
/// After the seed is active: bring in the next site of a fresh-deploy bootstrap.
void continue_bootstrap(context& c);
/// An empty non-active site while the active site has data: clone it (source auto-clone).
void maybe_auto_clone(context& c);
void bootstrap_persisted(context& c, const change_bootstrap& x, bool ok);
/// Events and metrics of a bootstrap/auto-clone/reclone plan that ended (once persisted).
void bootstrap_plan_done(context& c, const change_plan_done& x);

// The active site's dead man's switch (step_heartbeat.cpp).
void maybe_heartbeat(context& c, const std::string& site, const site_report& r);
void on_heartbeat_done(context& c, const input::heartbeat_done& in);

}  // namespace br::step_detail
