// Pure helpers of the coordinator: observations, old-primary choice, plan shape, group status.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "config/group_status.hpp"
#include "messages/planned_failover.hpp"
#include "messages/decisions.hpp"
#include "messages/operator.hpp"

namespace br {

/// The sites in declared order with their roles and debounced states (unknown when unreported).
std::vector<site_observation> build_observations(const std::vector<std::string>& sites,
                                                 const std::map<std::string, site_role>& roles,
                                                 const std::map<std::string, site_report>& reports);

/// Does `next` carry a fact the evaluation uses that `prev` did not (state, success, writability,
/// replication channel)? Unchanged reports need not be evaluated at once.
bool report_changes_facts(const site_report* prev, const site_report& next);

/// Whom a failover deposes: the published active site, else the site a failed plan was deposing,
/// else (no history at all) the first unreachable primary candidate; "" when none.
std::string choose_old_primary(const topology_view& view,
                               const std::vector<site_observation>& observations);

/// Sites to repoint after promoting `candidate`: every other site except the deposed one (which
/// must first pass the divergence check, S4), in declared order.
std::vector<std::string> plan_followers(const std::vector<std::string>& sites,
                                        const std::string& candidate,
                                        const std::string& old_primary);

/// The read-only candidates with what each can reach from their latest successful probes, in
/// declared order: @@gtid_executed united with the replica channel's RECEIVED_TRANSACTION_SET
/// (the relay log is applied by the drain before promotion, so a candidate that received more
/// must not lose to one that merely applied more). `missing` receives the candidates whose sets
/// are unknown or unparsable (they must not be left out silently: the caller refuses to rank).
std::vector<candidate_gtid> candidate_sets(const std::vector<std::string>& sites,
                                           const std::vector<std::string>& candidates,
                                           const std::map<std::string, site_probe>& probes,
                                           std::vector<std::string>& missing);

/// Everything the status is built from.
struct status_inputs {
  std::vector<std::string> sites;
  std::map<std::string, site_role> roles;
  std::map<std::string, site_report> reports;
  std::map<std::string, site_probe> good_probes;
  std::map<std::string, int64_t> last_seen_ms;  ///< last successful probe per site (unix ms)
  durable_state durable;
  topology_view view;
  group_evaluation evaluation;
  bool evaluated = false;
  /// A new group not bootstrapped yet: "waiting: ..." | "refused: ..." (group_state).
  std::string bootstrap_note;
  /// Why the fenced-sites annotation is not applied ("" when it is, or there is none).
  std::string fence_note;
  /// status.plannedFailover: the accepted request and the latest refused one (planned_shown).
  planned_failover_record planned;
  planned_failover_record planned_refused;
  /// Group Replication groups only (gr_status_of in decide/gr_step.hpp): the agreed view; the
  /// Ready/Degraded conditions then come from it.
  std::optional<config::group_replication_status> group_replication;
};

/// The group status (config/group_status.hpp shape). lastSeen is truncated to whole seconds so a
/// status that only differs by sub-second poll times is not rewritten on every poll.
config::group_status build_group_status(const status_inputs& in);

}  // namespace br
