// The catalogue of typed actor interfaces: who talks to whom, with which messages.
#pragma once

#include <caf/typed_actor.hpp>
#include <caf/replies_to.hpp>
#include <caf/actor.hpp>

#include <cstdint>
#include <string>

#include "messages/actor_info.hpp"
#include "messages/dragonfly_handover.hpp"
#include "messages/atoms.hpp"
#include "messages/group_status.hpp"
#include "messages/operator.hpp"
#include "messages/sidecar.hpp"
#include "messages/mysql.hpp"

namespace br {

/// Registry: the record of every live actor, for /debug/actors.
/// - (announce, entry): an actor (re)joins the tree; the registry monitors it.
/// - (announce, entry, handle): a supervisor announces a child it started; monitored likewise.
/// - (step, path, text): the actor's current step or state summary changed.
/// - (error, path, text): the actor's last error.
/// - (restarts, path, n): a supervisor restarted the actor at `path`; n = total restarts so far.
/// - (tree) -> JSON text of the whole supervision tree.
using registry_actor = caf::typed_actor<
    caf::reacts_to<announce_atom, actor_entry>,
    caf::reacts_to<announce_atom, actor_entry, caf::actor>,
    caf::reacts_to<step_atom, std::string, std::string>,
    caf::reacts_to<error_atom, std::string, std::string>,
    caf::reacts_to<restarts_atom, std::string, uint64_t>,
    caf::replies_to<tree_atom>::with<std::string>>;

/// Supervisor (dynamically typed `caf::actor`, because it traps exits of arbitrary children):
/// - (child, name) -> caf::actor: the current handle of a running child, or an error. Actors
///   find their siblings this way (actors/common/child_lookup.hpp), never through shared cells.
/// - (restarts, name) -> uint64_t: how often that child was restarted.
/// - (stop) -> bool: stops children in reverse start order, waits for each, then quits normally.

/// A supervision-tree member that only waits to be stopped (its exit runs a hook): (ping) is
/// answered with nothing and only keeps the behaviour non-empty.
using lifetime_hook_actor = caf::typed_actor<caf::reacts_to<ping_atom>>;

// -- operator -----------------------------------------------------------------------------------

/// MySQL I/O: one lane per site target (site, host:port), one command at a time, over an elastic
/// pool of detached workers running io/mysql calls with hard deadlines, so one hung server never
/// holds up another's commands (actors/operator/group/site_io.hpp).
/// - (command) -> outcome: every command carries its own timeout (callers use a CAF request
///   timeout a bit above it) and its deadline; one still waiting at its deadline is answered
///   "abandoned" and never runs.
/// - (leader_floor, g): leadership ended; refuse every command decided under a leadership
///   generation below g ("stale_generation"), queued ones too. The floor only rises.
/// - (tick): internal, sent to itself: grow the worker pool for a target that waited for one.
using site_io_actor = caf::typed_actor<caf::replies_to<mysql_command>::with<mysql_outcome>,
                                       caf::reacts_to<leader_floor_atom, uint64_t>,
                                       caf::reacts_to<tick_atom>>;
/// One site_io lane's detached worker: runs one command at a time on the lane's sessions.
using site_io_worker_actor =
    caf::typed_actor<caf::replies_to<mysql_command>::with<mysql_outcome>>;

/// Coordinator (one per group): owns the view, the epoch and the durable state; evaluates.
/// - (observe, report): a site_poller's debounced observation.
/// - (view) -> topology_view: the current authoritative view (/active-site).
/// - (status) -> config::group_status: the group status (JSON only at the HTTP/Kubernetes edges).
/// - (phase, plan_id, phase, facts) -> bool: executor progress (with what it has learnt so far:
///   promotion set, the switchover source's set, losses), true once persisted.
/// - (plan_done, result): an executor finished (ok or with a named error).
/// - (annotate, key, value) -> std::string: an admin annotation (e.g. the reclone token);
///   the answer says what happened ("accepted: ..." / "rejected: ...").
/// - (switchover, target) -> "accepted: ..." | "rejected: ...": a planned handoff. Accepted means
///   the switchover plan was persisted and started under a new epoch; the coordinator stays the
///   only owner of the view. Used by the reconciler's ordered update.
/// - (flush): internal, sent to itself: write the coalesced status now.
using coordinator_actor = caf::typed_actor<
    caf::reacts_to<observe_atom, site_report>,
    caf::replies_to<view_atom>::with<topology_view>,
    caf::replies_to<status_atom>::with<config::group_status>,
    caf::replies_to<phase_atom, uint64_t, plan_phase, plan_facts>::with<bool>,
    caf::reacts_to<plan_done_atom, plan_result>,
    caf::replies_to<annotate_atom, std::string, std::string>::with<std::string>,
    caf::replies_to<switchover_atom, std::string /*target*/>::with<std::string>,
    caf::reacts_to<flush_atom>>;

/// Platform effects, one interface each; a local (standalone) and a Kubernetes implementation
/// stand behind each, and tests use recording implementations.
/// Router: point the primary endpoint at `primary` and the replicas endpoint at `replicas`.
using router_actor = caf::typed_actor<
    caf::replies_to<route_atom, std::string /*group*/, std::string /*primary*/,
                    std::vector<std::string> /*replicas*/>::with<bool>>;
/// DNS: the group's A record now targets `target` (site's lbIP) for `site`.
using dns_actor = caf::typed_actor<
    caf::replies_to<dns_atom, std::string /*group*/, std::string /*site*/,
                    std::string /*target*/>::with<bool>>;
/// Node taints: taint (true) or untaint (false) the nodes of `site`.
using taint_actor = caf::typed_actor<
    caf::replies_to<taint_atom, std::string /*group*/, std::string /*site*/, bool>::with<bool>>;
/// Events (Kubernetes Events, or log lines + GET /events in standalone mode).
using event_actor = caf::typed_actor<caf::reacts_to<event_atom, group_event>>;
/// Durable state (S6/S7): persist returns true only once the state is durable (fsync / API ack).
using state_store_actor = caf::typed_actor<
    caf::replies_to<persist_atom, std::string /*group*/, durable_state>::with<bool>,
    caf::replies_to<load_atom, std::string /*group*/>::with<durable_state>>;
/// Status writer: the only writer of a group's status (skips equal writes, never blocks callers).
using status_writer_actor =
    caf::typed_actor<caf::reacts_to<status_atom, std::string /*group*/, config::group_status>>;
/// The status hub (a status writer that also feeds GET /ws/status and the lag metrics):
/// (tick) is internal, sent to itself every half interval.
using status_hub_actor = status_writer_actor::extend<caf::reacts_to<tick_atom>>;
/// Where the Dragonfly manager reports status.dragonfly (a JSON object; "null" removes it).
using dragonfly_status_actor = caf::typed_actor<caf::reacts_to<dragonfly_atom, std::string>>;
/// The Kubernetes status writer: besides the coordinator's status, the spec conditions
/// (spec, conditions JSON array; from the group source), the reconciler's part of the status
/// (reconcile, JSON object) and status.dragonfly (dragonfly, JSON). (retry_later) is internal: a
/// backoff expired.
using kube_status_writer_actor = status_writer_actor::extend<
    caf::reacts_to<spec_atom, std::string>, caf::reacts_to<reconcile_atom, std::string>,
    caf::reacts_to<dragonfly_atom, std::string>, caf::reacts_to<retry_later_atom>>;

/// A site poller (one per site): probes on its own drift-free ticks and reports to the
/// coordinator, which it finds by asking the group supervisor.
/// - (tick): internal, the next poll is due.
/// - (pollstats) -> poll_stats: the cadence record (tools/bench scale).
/// - (wake): poll now, rate-limited (decide/wake_gate.hpp): a sidecar's authenticated
///   gr-observed report rang the group's doorbell. (deadline): internal, a coalesced wake is due.
using site_poller_actor =
    caf::typed_actor<caf::reacts_to<tick_atom>, caf::replies_to<poll_stats_atom>::with<poll_stats>,
                     caf::reacts_to<wake_atom>, caf::reacts_to<deadline_atom>>;

/// The failover executor (one per running plan; the coordinator starts and monitors it). Every
/// message is its own: (begin) starts the plan; (deadline, seq), (gate, seq), (retry, seq) and
/// (push, site, seq) are timers and re-tries tagged with the step they belong to, dropped once
/// that step is over. Progress leaves it as (phase ...) and (plan_done ...) to the coordinator.
using executor_actor = caf::typed_actor<
    caf::reacts_to<begin_atom>, caf::reacts_to<deadline_atom, uint64_t>,
    caf::reacts_to<gate_atom, uint64_t>, caf::reacts_to<retry_atom, uint64_t>,
    caf::reacts_to<push_atom, std::string /*site*/, uint64_t>>;

/// An actor that only runs on its own ticks (a detached watcher looping on a blocking wait,
/// the sidecar's boot guard waiting for its requests): (tick) is internal.
using ticking_actor = caf::typed_actor<caf::reacts_to<tick_atom>>;

// -- operator, Kubernetes mode ------------------------------------------------------------------

/// Leader elector (detached; each lease call bounded): (tick) internal; (stop) releases the
/// lease when leading, then quits (the answer comes once the release is done).
using leader_elector_actor = caf::typed_actor<caf::reacts_to<tick_atom>, caf::reacts_to<stop_atom>>;
/// Whoever the elector reports to: (leading, identity) once the lease is held; (lost, identity)
/// when it could not be renewed in time (the guard is already cleared).
using leadership_actor = caf::typed_actor<caf::reacts_to<leading_atom, std::string>,
                                          caf::reacts_to<lost_atom, std::string>>;
/// The reconciler (one per group): (tick) runs one pass; it re-arms itself.
using reconciler_actor = caf::typed_actor<caf::reacts_to<tick_atom>>;
/// The reconciler's detached worker: (reconcile) -> the pass report as JSON text;
/// (roll, version, site) -> "" or what failed.
using reconcile_worker_actor =
    caf::typed_actor<caf::replies_to<reconcile_atom>::with<std::string>,
                     caf::replies_to<roll_atom, int, std::string>::with<std::string>>;
/// The Kubernetes status writer's detached worker: (write, desired JSON, owns_all) -> "" or the
/// problem (one bounded read-merge-write with conflict retries).
using status_api_worker_actor =
    caf::typed_actor<caf::replies_to<write_atom, std::string, bool>::with<std::string>>;
/// A one-shot detached worker: (finalize) -> "" or what failed (a deleted group's clean-up).
using finalize_worker_actor = caf::typed_actor<caf::replies_to<finalize_atom>::with<std::string>>;
/// The group source (watches MysqlFailoverGroups, runs one group supervisor per group):
/// - (kubeevent, type, object JSON): from its watchers;
/// - (retrylater, key), (finalize, key), (restart, key): its own timers;
/// - (annotate, key): its own timer: carry on with the group's pending admin annotation;
/// - (stop) -> bool: stop every group, then quit; (stop, supervisor id): a group did not stop in
///   time, kill it.
/// Its resolver (group_resolver.cpp) answers (resolve, type, JSON) -> group_desired, a value of
/// the Kubernetes layer (it holds a parsed spec), so that interface is declared beside it.
using group_source_actor = caf::typed_actor<
    caf::reacts_to<kube_event_atom, std::string, std::string>,
    caf::reacts_to<retry_later_atom, std::string>, caf::reacts_to<finalize_atom, std::string>,
    caf::reacts_to<restart_atom, std::string>, caf::reacts_to<annotate_atom, std::string>,
    caf::replies_to<stop_atom>::with<bool>, caf::reacts_to<stop_atom, caf::actor_id>,
    // spec.restoreInPlace's requests (namespace, group, key, value) -> the coordinator's answer
    caf::replies_to<annotate_atom, std::string, std::string, std::string, std::string>::with<std::string>>;

/// The platform a group runs against.
struct platform_handles {
  router_actor router;
  dns_actor dns;
  taint_actor taints;
  event_actor events;
  state_store_actor store;
  status_writer_actor status;
};

// -- sidecar ------------------------------------------------------------------------------------

/// The sidecar's local MySQL worker (detached; every call bounded by its configured deadlines).
/// - (probe) -> outcome with .probe (and .value = server uptime seconds when readable).
/// - (self_fence, reason) -> outcome: super_read_only=ON, kill application sessions, then a probe;
///   ok only when the probe confirmed super_read_only=ON (an ambiguous write is re-checked).
/// - (unfence) -> outcome: super_read_only=OFF, read_only=OFF (the boot guard only; through the
///   dead man's switch when it is enabled).
/// - (heartbeat, age_us) -> outcome: docs/safety.md rule 7 heartbeat dated age_us before the server's
///   now (value "refreshed" | "fenced"); installs/repairs the switch first when needed.
using local_mysql_actor = caf::typed_actor<
    caf::replies_to<probe_atom>::with<mysql_outcome>,
    caf::replies_to<self_fence_atom, std::string>::with<mysql_outcome>,
    caf::replies_to<unfence_atom>::with<mysql_outcome>,
    caf::replies_to<heartbeat_atom, int64_t>::with<mysql_outcome>>;

/// A detached HTTP worker: one blocking request at a time, with the call's own timeout.
using http_worker_actor = caf::typed_actor<caf::replies_to<http_call_atom, http_call>::with<http_reply>>;

/// The sidecar's view cache (owns the view and its file; epochs never go back).
/// - (view) -> the cached view.
/// - (offer, view_offer) -> the cached view after applying the adoption rule.
using view_cache_actor = caf::typed_actor<caf::replies_to<view_atom>::with<sidecar_view>,
                                          caf::replies_to<offer_atom, view_offer>::with<sidecar_view>>;

/// The sidecar's Group Replication watcher (REPLICATION_MODE=groupReplication): (tick) reads the
/// member's view of its group; (deadline) a coalesced report is due.
using gr_watcher_actor = caf::typed_actor<caf::reacts_to<tick_atom>, caf::reacts_to<deadline_atom>>;

/// The fencing monitor.
/// - (tick): one round (pull views, evaluate the rules, fence, report); re-arms itself.
/// - (push_view, view) -> push_ack: a pushed view; fences first when it does not name this site.
/// - (status) -> sidecar_status.
/// - (boot_done): the boot guard finished (for /ready).
using fencing_monitor_actor = caf::typed_actor<
    caf::reacts_to<tick_atom>,
    caf::replies_to<push_view_atom, topology_view>::with<push_ack>,
    caf::replies_to<status_atom>::with<sidecar_status>,
    caf::reacts_to<boot_done_atom>>;


/// The sidecar's binlog archiver (PITR).
/// - (tick): the periodic scan (probe, then the detached scan worker); re-arms itself.
/// - (run): a scan now (the index watcher saw a rotation); coalesced while one runs.
/// - (status) -> JSON text of GET /archiver/status.
using binlog_archiver_actor =
    caf::typed_actor<caf::reacts_to<tick_atom>, caf::reacts_to<run_atom>, caf::reacts_to<prune_atom>,
                     caf::replies_to<status_atom>::with<std::string>>;

/// The archiver's detached worker: (run, primary) -> JSON text of one scan report; (prune) ->
/// JSON text of one retention sweep (asks /pitr-cutoff, then prunes the manifest and objects).
using archive_worker_actor = caf::typed_actor<caf::replies_to<run_atom, bool>::with<std::string>,
                                              caf::replies_to<prune_atom>::with<std::string>>;

/// The Dragonfly manager (one per group with spec.dragonfly.enabled; actors/operator/dragonfly):
/// (tick) is internal (its poll); (handover, request) -> report: a planned failover's cache step
/// (the target's catch-up before MySQL is touched, the cache master's move after MySQL's
/// switchover), answered once done or failed; the coordinator waits with a deadline.
using dragonfly_manager_actor =
    caf::typed_actor<caf::reacts_to<tick_atom>,
                     caf::replies_to<handover_atom, dragonfly_handover_request>::with<
                         dragonfly_handover_report>>;

}  // namespace br
