// The group engine's one decision: step(rules, state, input, clock) -> {state, effects, answer}.
//
// Everything the coordinator decides for a group of async-replicated sites happens here, as a
// pure function of values: adopting the writable primary on first start, the failover guards
// (retry delay, cooldown, unknown GTID sets, incomparable candidates), split-brain tiers,
// returning-primary recovery (fence, read the set, classify), primary re-assert, the dead man's
// switch heartbeat, reclone and switchover requests, plan bookkeeping and the durable-state
// discipline (persist before publish, one write at a time, epochs never go back: S6).
//
// The coordinator actor (actors/operator/group/coordinator.cpp) only turns messages and replies into
// `group_input`s, calls `step`, and carries out the `group_effect`s it returns. No actor, no
// clock and no I/O is reachable from here; the caller passes the time in `step_clock`.
// docs/architecture.md walks one failure through these types; docs/safety.md names the rules.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "messages/decisions.hpp"
#include "messages/dragonfly_handover.hpp"
#include "messages/operator.hpp"
#include "messages/mysql.hpp"
#include "messages/planned_failover.hpp"
#include "actors/operator/decide/gr_types.hpp"
#include "actors/operator/decide/semisync_waiting.hpp"
#include "actors/operator/decide/semisync_in_step.hpp"

namespace br {

/// spec.dragonfly as the planned failover reads it (decide/planned_dragonfly.hpp).
struct dragonfly_rules {
  bool enabled = false;
  caf::timespan max_sync_wait{std::chrono::seconds(30)};  ///< plannedFailover.maxSyncWait
  bool fail_on_sync_timeout = false;                      ///< plannedFailover.onSyncTimeout=fail
};

/// The spec values the rules read (fixed for the life of a coordinator).
struct group_rules {
  std::string group;
  std::vector<std::string> sites;  ///< declared order
  std::map<std::string, site_role> roles;
  /// sitePriorities, or the legacy preferSite as its single entry.
  std::vector<std::string> site_priorities;
  caf::timespan poll_interval{std::chrono::seconds(2)};
  caf::timespan failover_cooldown{std::chrono::minutes(5)};
  /// After a failed plan, wait this long before starting another automatically.
  caf::timespan plan_retry_delay{std::chrono::seconds(30)};
  gate_policy policy = gate_policy::safe;
  caf::timespan drain_timeout{std::chrono::seconds(30)};
  caf::timespan step_timeout{std::chrono::seconds(10)};
  caf::timespan gate_timeout{std::chrono::minutes(2)};
  /// Switchover: spec.plannedFailover.maxLagWait and drainTimeout (see failover_plan).
  caf::timespan max_lag_wait{std::chrono::minutes(5)};
  caf::timespan session_drain_timeout{std::chrono::seconds(30)};
  /// spec.plannedFailover.onCooldown=defer: a planned failover asked for during the cooldown is
  /// Deferred until it ends instead of rejected.
  bool defer_on_cooldown = false;
  size_t max_executor_respawns = 5;
  /// How often the active site's dead man's switch is checked (installed and armed).
  caf::timespan switch_check_interval{std::chrono::minutes(1)};
  /// The bootstrap seed (config::effective_seed_site); empty = the first primary candidate.
  std::string seed_site;
  /// Group Replication (spec.replication.mode groupReplication; decide/gr_step.hpp).
  gr_rules gr;
  /// Bootstrap and auto-clone: off only for tests of the rules that came before them.
  bool bootstrap = true;
  /// Why the group waits for its restore from backup (config::restore_bootstrap_hold; "" =
  /// nothing held): a group that never had a primary does nothing but poll (restore_holds).
  std::string restore_hold;
  /// A planned failover's Dragonfly phases (spec.dragonfly; skipped when not enabled).
  dragonfly_rules dragonfly;
  /// spec.replication.semiSync: waitForReplicaCount when enabled, 0 when off.
  uint32_t semisync_k = 0;
};

// -- durable changes -----------------------------------------------------------------------------
// A change to the durable state, as data. Changes are applied one at a time, each to the state the
// previous one left, and a change's follow-up runs only once the store confirmed it.

/// First start: the single writable primary candidate becomes the active site (epoch + 1).
struct change_adopt {
  std::string site;
  int64_t at_ms = 0;
};
/// A plan (and, when `bump`, its deposing view) is recorded before its executor starts.
struct change_start_plan {
  failover_plan plan;
  bool bump = false;
  int64_t at_ms = 0;
  /// A planned failover's record (status.plannedFailover), stored with its plan's start.
  std::optional<planned_failover_record> planned{};
};
/// A plan ended; `result.ok` says how. `again`: offered again after the store refused it (what
/// the first refusal already said is not said twice).
struct change_plan_done {
  failover_plan plan;
  plan_result result;
  int64_t at_ms = 0;
  bool again = false;
  bool source_reachable = true;  ///< the plan's old primary answered its last poll
};
/// The executor completed a phase; `reply` names the answer owed to it.
struct change_phase {
  uint64_t plan_id = 0;
  plan_phase phase = plan_phase::pending;
  plan_facts facts;
  uint64_t reply = 0;
  int64_t at_ms = 0;
};
/// Split-brain losers: RecoveryPending, so they are classified before they may replicate.
struct change_mark_pending {
  std::vector<std::string> sites;
};
/// A returning site holds transactions the active primary lacks: RecoveryBlocked.
struct change_mark_blocked {
  std::string site;
  std::string divergent_gtid;
  uint64_t divergent_count = 0;
};

/// A bootstrap or auto-clone is decided: its record (status.bootstrap) replaces the previous one;
/// `blocked`: sites that hold transactions the seed lacks (RecoveryBlocked, never cloned).
/// A bootstrap record; once the store holds it, the plan it announces starts (never before: a
/// refused record starts nothing, and the next evaluation decides again).
struct change_bootstrap {
  bootstrap_record record;
  std::vector<change_mark_blocked> blocked;
  plan_kind start_kind = plan_kind::bootstrap;
  std::string start_site;  ///< empty: no plan follows
};

/// The manually fenced sites become `sites` (decide/manual_fence.hpp); `before` for the Events.
struct change_manual_fence {
  std::set<std::string> sites;
  std::set<std::string> before;
};

/// A planned failover's record changes without a plan write: Deferred, Cancelled, or a deferred
/// request refused when it is validated again.
struct change_planned {
  planned_failover_record record;
};

/// spec.restoreInPlace armed or lifted (decide/restore_freeze.hpp); `before` for the follow-up.
struct change_restore_freeze {
  restore_freeze_record record;
  restore_freeze_record before;
};

using durable_change =
    std::variant<change_adopt, change_start_plan, change_plan_done, change_phase,
                 change_mark_pending, change_mark_blocked, change_bootstrap, change_manual_fence,
                 change_planned, change_gr, change_restore_freeze>;

/// `d` with `c` applied (the epoch clamp of S6 is the caller's, see step).
durable_state apply_change(durable_state d, const durable_change& c);

// -- state ---------------------------------------------------------------------------------------

/// Everything the rules remember between inputs.
struct group_state {
  bool loaded = false;
  durable_state durable;  ///< as last persisted
  topology_view view;     ///< as last published (== durable.view once loaded)
  std::map<std::string, site_report> reports;    ///< latest report per site
  std::map<std::string, site_probe> good_probes;  ///< latest successful probe per site
  std::map<std::string, int64_t> last_seen_ms;    ///< wall time of that probe
  std::deque<durable_change> persist_queue;       ///< waiting to be written
  std::optional<durable_change> persisting;       ///< being written
  durable_state persisting_next;                  ///< what is being written
  bool executor_running = false;
  size_t respawns = 0;
  std::optional<mono_time> last_plan_failure;
  /// A plan result the store refused: the store still holds the plan as running (busy() holds and
  /// no executor runs), so it is offered again, at most once per poll interval, until recorded.
  std::optional<change_plan_done> unrecorded_result;
  std::optional<mono_time> unrecorded_at;  ///< when the store last refused it
  std::optional<mono_time> plan_started;  ///< failover duration metric
  std::optional<mono_time> last_evaluation;
  /// Fences in flight; true when a returning-primary check waits for that fence.
  std::map<std::string, bool> fencing;
  std::set<std::string> recovering;  ///< returning-primary check in flight
  /// Returning sites whose set was read after their fence, waiting for a read of the active
  /// primary's set made after theirs (a polled set can be older than a replica's: S4 compares
  /// both as of the same moment or later for the primary).
  std::map<std::string, std::string> returning_sets;
  std::set<std::string> active_read_covers;  ///< the sites the active read in flight was asked for
  std::string active_read_site;              ///< the active site that read went to ("" = none)
  std::set<std::string> alerts;      ///< Events already raised for the current situation
  std::optional<wall_time> last_reassert;
  group_evaluation evaluation;
  bool evaluated = false;
  std::set<std::string> heartbeat_inflight;        ///< rule 7 heartbeat / switch check
  std::map<std::string, mono_time> switch_checked;  ///< last switch check per site
  std::map<std::string, mono_time> receiver_restarts;  ///< last receiver restart per follower
  std::set<std::string> receiver_inflight;             ///< receiver restarts in flight
  /// A new group not bootstrapped yet: why ("waiting for ..." | "refused: ..."), for the status.
  std::string bootstrap_note;
  /// The latest accepted planned failover: durable.planned, ahead of the store while its write
  /// is under way (decide/step_planned.hpp).
  planned_failover_record planned;
  /// The latest request refused before it was accepted (memory only).
  planned_failover_record planned_refused;
  uint64_t planned_deferral_logged = 0;  ///< plan id whose deferral of automatic actions was logged
  /// The Dragonfly manager's sync report of the planned failover in WaitingForDragonflySync,
  /// kept until nothing else is being written or run (then the request is validated again).
  std::optional<dragonfly_handover_report> planned_sync_report;
  /// Kubernetes: the fenced-sites annotation's latest value (the desired set), applied when the
  /// rules allow; `fence_note`: why it is not applied (status and the FenceRejected Event).
  std::optional<std::string> fence_annotation;
  std::string fence_note;
  /// Group Replication groups only (decide/gr_step.hpp).
  gr_runtime gr;
  /// The active primary blocked waiting for semi-sync acknowledgements: one Event per episode
  /// (decide/semisync_waiting.hpp; memory only).
  semisync_waiting_episode semisync_waiting;
  /// Semi-synchronous replication (decide/semisync_in_step.hpp): the in-step judgement per
  /// replica, and the active primary's latest probe it is judged against (memory only: after an
  /// operator restart the first polls judge again; a failover before that cannot use rule 4).
  std::map<std::string, in_step_record> semisync_in_step;
  struct primary_read {
    std::string site;
    uint64_t epoch = 0;
    std::string gtid_executed;
    std::string server_uuid;
    mono_time sent{};
    mono_time done{};
  };
  std::optional<primary_read> semisync_primary;
  /// Rpl_semi_sync_source_no_tx of the active primary at its first probe of this epoch: a server
  /// that was demoted once counts the commits released then, so "never fell back" is judged on
  /// the change since it became the active primary (memory only: set again after a restart).
  struct no_tx_base {
    uint64_t epoch = 0;
    uint64_t no_tx = 0;
  };
  std::optional<no_tx_base> semisync_no_tx_base;
  std::optional<mono_time> semisync_switch_sent;  ///< last effect::semisync_source
};

/// A persist is queued or running, a plan runs, or the state is not loaded yet.
bool busy(const group_state& s);

// -- inputs --------------------------------------------------------------------------------------

namespace input {
/// The durable state, read once at start.
struct loaded {
  durable_state durable;
};
/// A site poller's debounced observation.
struct report {
  site_report report;
};
/// The store answered the write `step` asked for (false: refused, or failed with `error`).
struct persisted {
  bool ok = false;
  std::string error;
};
/// The executor completed a phase and asks for it to be recorded; `reply` is the caller's id of
/// the answer it owes (see effect::reply).
struct phase {
  uint64_t plan_id = 0;
  plan_phase phase = plan_phase::pending;
  plan_facts facts;
  uint64_t reply = 0;
};
struct plan_done {
  plan_result result;
};
/// The running executor died (`reason` rendered).
struct executor_down {
  std::string reason;
};
struct annotate {
  std::string key;
  std::string value;
};
/// A planned failover request; `target` is the annotation's value, `<site>[:maxLagWait=<dur>]`.
struct switchover {
  std::string target;
};
/// A fence effect finished (super_read_only=ON, then application sessions killed).
struct fenced {
  std::string site;
  bool ok = false;
};
/// Replies of MySQL commands; nullopt when the request itself failed (timeout, worker gone).
struct gtid_read {
  std::string site;
  std::optional<mysql_outcome> outcome;
};
struct heartbeat_done {
  std::string site;
  bool ensure = false;
  std::optional<mysql_outcome> outcome;
};
struct reassert_done {
  std::string site;
  std::optional<mysql_outcome> outcome;
};
struct receiver_started {
  std::string site;
  std::optional<mysql_outcome> outcome;
};
/// The Dragonfly manager answered an effect::dragonfly_handover (or, `report.ok` false with the
/// reason in `report.error`, did not within its deadline, or none runs).
struct dragonfly_report {
  dragonfly_handover_report report;
};
}  // namespace input

using group_input =
    std::variant<input::loaded, input::report, input::persisted, input::phase, input::plan_done,
                 input::executor_down, input::annotate, input::switchover, input::fenced,
                 input::gtid_read, input::heartbeat_done, input::reassert_done,
                 input::receiver_started, input::gr_done, input::dragonfly_report>;

/// The time an input is stepped at (the actor clock and the wall clock).
struct step_clock {
  mono_time now{};
  wall_time wall{};
};

// -- effects -------------------------------------------------------------------------------------

enum class log_level : uint8_t { debug, info, warn, error };

enum class metric_kind : uint8_t {
  state_transition,   ///< site, from, to
  site_state,         ///< site, role, to
  probe,              ///< site, role, active, probe
  failover,           ///< site (target), value = duration in seconds (< 0: unknown)
  failover_failure,   ///< site (target), detail = phase reached
  split_brain_resolved,  ///< site (winner)
  divergent,          ///< site, value = divergent transaction count
  reclone,            ///< site
  reassert,           ///< site
  transactions_lost,  ///< site, value = transaction count, detail = "discarded" | "stranded"
  bootstrap_phase,    ///< detail = phase that ended, value = its duration in seconds
  clone_operation,    ///< site (recipient), detail = source (fresh-deploy | auto-clone | reclone)
  planned_failover,   ///< site (target), detail = result, value = duration in seconds (< 0: none)
  planned_lag_wait,   ///< site (target), value = seconds the catch-up wait took
};

namespace effect {
/// Write `next` durably; answer with input::persisted.
struct persist {
  durable_state next;
};
/// A new view is the group's view: record it for the registry and push it to the sidecars.
struct publish {
  topology_view view;
};
/// The status changed: write it now, or coalesced.
struct status {
  bool now = false;
};
/// super_read_only=ON then kill application sessions; answer with input::fenced.
struct fence {
  std::string site;
};
/// Read @@gtid_executed; answer with input::gtid_read.
struct read_gtid {
  std::string site;
};
/// Rule 7 heartbeat (or, when `ensure`, install/check the switch); answer input::heartbeat_done.
struct heartbeat {
  std::string site;
  bool ensure = false;
};
/// Primary re-assert: clear the fence of the recorded failover target; answer reassert_done.
struct reassert {
  std::string site;
  /// Safe: unfence only a server whose dead man's switch is armed (as the executor promotes).
  bool require_armed = true;
  /// Semi-sync (spec.replication.semiSync): the source side ON with this K first (0 = off), as
  /// the executor does before a promotion: a restarted primary boots with it OFF.
  uint32_t semisync_k = 0;
};
/// START REPLICA on a follower whose receiver stopped for good; answer receiver_started.
struct start_receiver {
  std::string site;
};
/// STOP REPLICA on `site` (spec.restoreInPlace's freeze: the restore's target must serve no
/// replica; the answer changes nothing, the next polls show it).
struct stop_receiver {
  std::string site;
};
/// Semi-sync: the active primary's source side ON with K (a primary adopted writable, or whose
/// side was turned OFF by hand); no answer: the next polls show it.
struct semisync_source {
  std::string site;
  uint32_t k = 0;
};
/// Ask the Dragonfly manager for a planned failover's cache step; answer input::dragonfly_report
/// (within `deadline`, else a failed report saying so).
struct dragonfly_handover {
  dragonfly_handover_request request;
  caf::timespan deadline{};
};
/// Start (or resume) the executor for `plan`.
struct start_executor {
  failover_plan plan;
};
/// A Kubernetes-style Event (standalone: log line + GET /events).
struct emit {
  group_event event;
};
struct log {
  log_level level = log_level::info;
  std::string message;
  nlohmann::json fields;
};
struct metric {
  metric_kind kind = metric_kind::probe;
  std::string site;
  site_state from = site_state::unknown;
  site_state to = site_state::unknown;
  site_role role = site_role::primary_candidate;
  bool active = false;
  site_probe probe;
  double value = 0;
  std::string detail;
};
/// The answer owed to an input::phase.
struct reply {
  uint64_t id = 0;
  bool ok = false;
};
}  // namespace effect

using group_effect =
    std::variant<effect::persist, effect::publish, effect::status, effect::fence,
                 effect::read_gtid, effect::heartbeat, effect::reassert, effect::start_executor,
                 effect::emit, effect::log, effect::metric, effect::reply,
                 effect::start_receiver, effect::stop_receiver, effect::gr_command,
                 effect::dragonfly_handover, effect::semisync_source>;

struct step_result {
  group_state state;
  std::vector<group_effect> effects;
  /// The answer to input::annotate and input::switchover ("accepted: ..." | "rejected: ...").
  std::optional<std::string> answer;
};

/// The group's rules, applied to one input.
step_result step(const group_rules& rules, group_state state, const group_input& in,
                 const step_clock& clock);

/// The admin annotation the coordinator understands.
inline constexpr const char* reclone_annotation = "bloodraven.shipstream.io/reclone-site";

}  // namespace br
