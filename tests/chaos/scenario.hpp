// Chaos harness: runs one scenario (build group, start workload, fault, restore, converge) and
// judges it with the invariant checker; prints one result line.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tests/chaos/cluster.hpp"
#include "tests/chaos/workload.hpp"

namespace br::chaos {

struct expectations {
  bool failover = false;            ///< the active site must change (else: it must not)
  std::string final_active;         ///< required final active site ("" = any)
  std::vector<std::string> must_block;  ///< sites that must end reported divergent/blocked
  bool allow_blocked = false;       ///< a reported blocked site is an acceptable end state
  bool s1_exempt = false;           ///< report S1, do not fail on it (documented Fast window)
  std::string s1_exempt_why;
  bool strict_s3 = false;           ///< no loss at all, even reported
  bool epoch_may_change = false;    ///< with failover=false: a re-establishing epoch bump is fine
  int converge_seconds = 90;
  int64_t probe_period_ms = 0;  ///< the direct probers' period (0: the workload's default)
  /// GR: the scenario forced a membership (guarded quorum recovery): acked writes of the members
  /// left out (`forced_left_out`) that are missing are reported as lost to the forced quorum, not
  /// failed.
  bool forced_quorum = false;
  std::vector<std::string> forced_left_out;
};

struct scenario_context {
  cluster& c;
  workload& w;
  /// Waits until the operator names `site` active; false after `seconds`.
  bool wait_active(const std::string& site, int seconds);
  /// Waits until `pred` holds; false after `seconds`.
  bool wait_until(const std::function<bool()>& pred, int seconds);
  /// Waits until every running replica has applied the primary's gtid_executed.
  bool wait_replicas_caught_up(int primary, int seconds);
  /// How many of `source`'s executed transactions `replica` has not received yet (its channel's
  /// RECEIVED_TRANSACTION_SET); nullopt when either set cannot be read.
  std::optional<uint64_t> not_received(int source, int replica);
  void sleep_s(double s);
  std::vector<std::string> notes;     ///< printed with the result
  std::vector<std::string> failures;  ///< scenario-specific checks that failed
};

struct scenario_result {
  std::string line;
  bool pass = false;
  std::vector<std::string> failures;
  std::vector<std::string> notes;
};

/// What a scenario's own final check sees: the group's entry of the operator's last /status and
/// its /events (read before the processes stop) and what the invariant checker found.
struct final_report {
  nlohmann::json status;
  nlohmann::json events;
  int64_t acked = 0;
  int64_t lost_unreported = 0;  ///< acked writes missing on the final primary, not reported
  int64_t lost_reported = 0;    ///< acked writes missing, acked by a site reported blocked
};

struct scenario {
  std::string name;
  cluster_params params;
  expectations expect;
  std::function<void(scenario_context&)> fault;    ///< runs after the warm-up
  std::function<void(scenario_context&)> restore;  ///< heal / restart before convergence
  /// Runs last; whatever it appends to ctx.failures fails the scenario.
  std::function<void(scenario_context&, const final_report&)> verify;
};

/// Runs it end to end; never throws (a setup error is a FAIL line with the reason).
scenario_result run_scenario(const scenario& s);

}  // namespace br::chaos
