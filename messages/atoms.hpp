// Atoms: the verbs of the typed messages (CAF 0.17 atoms, at most 10 characters).
#pragma once

#include <caf/atom.hpp>

namespace br {

using announce_atom = caf::atom_constant<caf::atom("announce")>;
using step_atom = caf::atom_constant<caf::atom("step")>;
using error_atom = caf::atom_constant<caf::atom("error")>;
using restarts_atom = caf::atom_constant<caf::atom("restarts")>;
using restart_atom = caf::atom_constant<caf::atom("restart")>;
using tree_atom = caf::atom_constant<caf::atom("tree")>;
using child_atom = caf::atom_constant<caf::atom("child")>;
using stop_atom = caf::atom_constant<caf::atom("stop")>;
using tick_atom = caf::atom_constant<caf::atom("tick")>;
using probe_atom = caf::atom_constant<caf::atom("probe")>;
using ping_atom = caf::atom_constant<caf::atom("ping")>;
/// The binlog archiver's retention sweep (from the operator's /pitr-cutoff).
using prune_atom = caf::atom_constant<caf::atom("prune")>;

// Operator
using observe_atom = caf::atom_constant<caf::atom("observe")>;    // site_poller -> coordinator
using view_atom = caf::atom_constant<caf::atom("view")>;          // read the topology view
using status_atom = caf::atom_constant<caf::atom("status")>;      // read/write group status
using phase_atom = caf::atom_constant<caf::atom("phase")>;        // executor progress
using plan_done_atom = caf::atom_constant<caf::atom("plan_done")>;
using annotate_atom = caf::atom_constant<caf::atom("annotate")>;  // admin annotation (reclone)
using route_atom = caf::atom_constant<caf::atom("route")>;
using dns_atom = caf::atom_constant<caf::atom("dns")>;
using taint_atom = caf::atom_constant<caf::atom("taint")>;
using event_atom = caf::atom_constant<caf::atom("event")>;
using persist_atom = caf::atom_constant<caf::atom("persist")>;
using load_atom = caf::atom_constant<caf::atom("load")>;
using spec_atom = caf::atom_constant<caf::atom("spec")>;          // group spec update
using report_atom = caf::atom_constant<caf::atom("report")>;      // sidecar report to operator
using ack_atom = caf::atom_constant<caf::atom("ack")>;            // sidecar acked a pushed view
using leading_atom = caf::atom_constant<caf::atom("leading")>;    // leader elector: lease acquired
using lost_atom = caf::atom_constant<caf::atom("lost")>;          // leader elector: lease lost
// Kubernetes mode (group source, status writer, state store)
using kube_event_atom = caf::atom_constant<caf::atom("kubeevent")>;  // watch event: type, JSON
using resolve_atom = caf::atom_constant<caf::atom("resolve")>;       // parse+validate+credentials
using write_atom = caf::atom_constant<caf::atom("write")>;           // one blocking API write
using retry_later_atom = caf::atom_constant<caf::atom("retrylater")>;  // retry a failed write later
using run_atom = caf::atom_constant<caf::atom("run")>;               // start a blocking loop
using switchover_atom = caf::atom_constant<caf::atom("switchover")>;  // request a planned handoff
using flush_atom = caf::atom_constant<caf::atom("flush")>;  // write what was coalesced
using reconcile_atom = caf::atom_constant<caf::atom("reconcile")>;    // one reconcile pass
using roll_atom = caf::atom_constant<caf::atom("roll")>;              // roll one site's workload
using finalize_atom = caf::atom_constant<caf::atom("finalize")>;      // group deleted: clean up
using poll_stats_atom = caf::atom_constant<caf::atom("pollstats")>;   // a poller's cadence record
using wake_atom = caf::atom_constant<caf::atom("wake")>;  // poll now (a sidecar's GR doorbell)
using leader_floor_atom = caf::atom_constant<caf::atom("leadfloor")>;  // site_io: leadership ended
using handover_atom = caf::atom_constant<caf::atom("handover")>;  // planned failover -> Dragonfly manager
// The failover executor's own timers and steps (sent to itself).
using begin_atom = caf::atom_constant<caf::atom("begin")>;        // start the plan
using deadline_atom = caf::atom_constant<caf::atom("deadline")>;  // a step's deadline passed
using gate_atom = caf::atom_constant<caf::atom("gate")>;          // evaluate the promotion gate
using retry_atom = caf::atom_constant<caf::atom("retry")>;        // probe again
using push_atom = caf::atom_constant<caf::atom("push")>;          // (re)push the deposing view

// Sidecar
using self_fence_atom = caf::atom_constant<caf::atom("selffence")>;  // fence local MySQL
using unfence_atom = caf::atom_constant<caf::atom("unfence")>;       // boot guard only
using http_call_atom = caf::atom_constant<caf::atom("httpcall")>;    // detached HTTP worker
using offer_atom = caf::atom_constant<caf::atom("offer")>;           // offer a view to the cache
using push_view_atom = caf::atom_constant<caf::atom("pushview")>;    // PUT /view
using boot_done_atom = caf::atom_constant<caf::atom("bootdone")>;    // boot guard finished
using heartbeat_atom = caf::atom_constant<caf::atom("heartbeat")>;  // dead man's switch heartbeat
using dragonfly_atom = caf::atom_constant<caf::atom("dragonfly")>;  // status.dragonfly from its manager

}  // namespace br
