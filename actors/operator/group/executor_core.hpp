// Internal to the failover executor: its state and the helpers every step family shares.
// The executor runs one plan step by step (failover_executor.hpp); the steps live by family:
//   executor_fence_gate.cpp  fencing_old, killing_sessions, gating (pushes and the gate)
//   executor_promote.cpp     draining, recording_gtid, promoting, confirming
//   executor_steer.cpp       steering (router, DNS, taints)
//   executor_repair.cpp      repointing, cloning (and the repair of a returning site)
//   executor_bootstrap.cpp   verifying_accounts, auto_clone's cloning (clone_need), restarting
//   failover_executor.cpp    the driver: resume, start each step, deadlines, the behaviour
#pragma once

#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "actors/operator/group/executor_deps.hpp"
#include "messages/operator.hpp"

namespace br::executor {

/// Pause between confirmation probes (a promoted server answers at once; a repaired replica's IO
/// thread needs a moment to connect).
constexpr caf::timespan confirm_retry_interval = std::chrono::milliseconds(500);
/// Extra time a CAF request may take beyond its step's deadline, so the deadline (with its
/// named error) always fires before the request's own timeout.
constexpr caf::timespan request_slack = std::chrono::seconds(1);

struct executor_state {
  failover_plan plan;
  executor_deps deps;
  std::string path;
  std::vector<plan_phase> steps;
  size_t index = 0;
  plan_phase current = plan_phase::pending;
  /// Bumped whenever a step or its persistence starts: answers, timers and retries carry the
  /// value they were started under and are dropped when it no longer matches.
  uint64_t seq = 0;
  bool persisting = false;
  bool finished = false;
  mono_time deadline_at{};
  plan_result result;
  // Facts of this run.
  bool fenced_old = false;       ///< gate rule 1: super_read_only=ON acknowledged
  bool old_unreachable = false;  ///< the plan said so, or the fence failed at connection level
  mono_time gate_started{};
  // Gate rules 2-3: the deposing view pushed to the sidecars and their acknowledgements.
  bool old_acked = false;                       ///< rule 2
  std::map<std::string, mono_time> peer_acks;   ///< rule 3: site -> when its ack arrived
  /// Shared with the exit hook that stops them (also when the executor is killed mid-plan).
  std::shared_ptr<std::map<std::string, http_worker_actor>> push_workers =
      std::make_shared<std::map<std::string, http_worker_actor>>();
  std::set<std::string> push_inflight;
  bool gate_opened = false;  ///< open, waiting for outstanding pushes before promoting
  std::string last_note;     ///< detail of the latest retry (appended to a deadline error)
  std::string primary_gtid;  ///< new primary's gtid_executed read at repointing
  size_t follower = 0;       ///< repointing: index into plan.followers
  size_t taint_index = 0;    ///< steering: index into deps.sites
  bool promotion_done = false;  ///< resumed after `promoting` was persisted
  mono_time step_started{};     ///< when the current step started (session drain window)
  size_t verify_index = 0;      ///< verifying_accounts: index into deps.sites
  // Semi-synchronous replication (executor_semisync.cpp, docs/safety.md gate rule 4).
  std::map<std::string, site_probe> ss_stopped;  ///< site -> the probe taken after its stop
  std::set<std::string> ss_inflight;             ///< stops on their way
  /// Rule 4 opened with the plan's candidate as the no-loss candidate: its drain must reach
  /// `ss_drain_target` (its received set at the stop) or nothing is promoted.
  bool ss_no_loss = false;
  std::string ss_drain_target;
  std::string ss_reason;  ///< the latest semisync_gate() reason (logged when it changes)
  static inline const char* name = "failover_executor";
};

using exec_ptr = executor_actor::stateful_pointer<executor_state>;

// -- shared helpers (executor_core.cpp) ----------------------------------------------------------

bool is_connection_error(const std::string& kind);
/// "<kind> <code>: <text>" of a failed outcome, without saying the kind twice.
std::string describe(const mysql_outcome& o);
nlohmann::json fields(exec_ptr self, const std::string& site);
mono_time now_of(exec_ptr self);
/// Time left until the current step's deadline (at least 1 ms).
caf::timespan remaining(exec_ptr self);

/// Was the step (or persistence) that `seq` was taken under replaced, or the plan finished?
inline bool stale(exec_ptr self, uint64_t seq) {
  return self->state.finished || self->state.seq != seq;
}

/// The one guard for late replies and timers: wraps `f` so that it runs only while the step it
/// was started under is still the current one. `Ts` are the handler's parameter types (CAF reads
/// them from the wrapper's signature).
template <class... Ts, class F>
auto if_current(exec_ptr self, F f) {
  auto seq = self->state.seq;
  return [self, seq, f](Ts... xs) mutable {
    if (stale(self, seq)) return;
    f(std::forward<Ts>(xs)...);
  };
}

/// Has this plan reached `promoting` (in this run or a persisted earlier one)?
bool promotion_attempted(const executor_state& st);
/// Records (or replaces) what the plan could not carry over for loss.site and loss.kind; a
/// count of 0 removes the entry.
void record_loss(exec_ptr self, gtid_loss loss);

void finish(exec_ptr self);
/// Ends the plan with "<current step>: why".
void fail(exec_ptr self, const std::string& why);
void arm_deadline(exec_ptr self, caf::timespan d);
/// The current step finished: persist it through the coordinator, then start the next one.
void step_done(exec_ptr self);
/// The MySQL target of `site` (operator account), or nullptr after failing the plan.
const mysql_target* target_of(exec_ptr self, const std::string& site);
/// The replication source for CHANGE REPLICATION SOURCE / CLONE: host and port of `site`, the
/// replication account's credentials.
mysql_target source_of(exec_ptr self, const mysql_target& site_target);
/// Sends one command to site_io for the current step; `k` sees the outcome unless the step is
/// over by then. A CAF-level failure (site_io gone) fails the plan. A connection-level failure is
/// retried once at once on a fresh session (not for CLONE).
void run_sql(exec_ptr self, mysql_op op, const std::string& site,
             std::function<void(mysql_outcome&)> k, caf::timespan timeout = caf::timespan{0},
             std::function<void(mysql_command&)> adjust = nullptr, int attempt = 1);
/// Runs `op` on `site`; a failed outcome fails the plan, success continues with `next`.
void run_sql_must(exec_ptr self, mysql_op op, const std::string& site, std::function<void()> next,
                  std::function<void(mysql_command&)> adjust = nullptr);

// -- step families -------------------------------------------------------------------------------

void start_next(exec_ptr self);  // failover_executor.cpp

void run_fencing_old(exec_ptr self);       // executor_fence_gate.cpp
void run_killing_sessions(exec_ptr self);
/// Kills the old primary's application sessions (best effort: it is fenced), logs the count or
/// the error ("old primary sessions killed<when>"), then the step is done.
void kill_old_primary_sessions(exec_ptr self, const std::string& when);
void run_gating(exec_ptr self);
void evaluate_gate(exec_ptr self);
bool gating_now(exec_ptr self, uint64_t seq);
void push_deposing(exec_ptr self, const std::string& site);

// executor_semisync.cpp
/// Semi-sync failover: STOP REPLICA IO_THREAD on every other site (retried every push_retry
/// while gating for a site that did not answer); each answer re-evaluates the gate.
void semisync_stop_receivers(exec_ptr self);
/// Gate rule 4 from the stops' probes: true when the old primary cannot acknowledge and the
/// plan's candidate is the no-loss candidate (then ss_no_loss and ss_drain_target are set).
bool semisync_rule4(exec_ptr self);
/// A semi-sync failover from an old primary last seen running semi-sync as assumed: every gate
/// rule then needs the no-loss candidate (docs/safety.md).
bool semisync_needs_no_loss(exec_ptr self);
/// A failover that needed the no-loss candidate and fails before the candidate's channel is
/// touched (at `draining` or earlier): nothing was promoted and no site was shown to hold every
/// acknowledged commit, so the old primary, which does, stays the active primary (rolled back
/// like a switchover: the coordinator names it under a new epoch and re-asserts it).
bool semisync_failover_kept(const executor_state& st);
/// The semi-sync source side on (K) before the candidate is made writable; then `next`.
void semisync_source_before_promotion(exec_ptr self, std::function<void()> next);

void run_draining(exec_ptr self);          // executor_promote.cpp
void run_stopping_replica(exec_ptr self);
void run_recording_gtid(exec_ptr self);
void run_promoting(exec_ptr self);
void promote_through_switch(exec_ptr self);
void confirm_probe(exec_ptr self);

void run_steering(exec_ptr self);          // executor_steer.cpp

void run_repointing(exec_ptr self);        // executor_repair.cpp

void run_verifying_accounts(exec_ptr self);  // executor_bootstrap.cpp
void run_auto_cloning(exec_ptr self);
void run_restarting(exec_ptr self);

}  // namespace br::executor
