// Value types exchanged by the operator's pure decision functions (actors/operator/*): inputs and
// verdicts.
#pragma once

#include <caf/meta/type_name.hpp>
#include <caf/optional.hpp>
#include <caf/timespan.hpp>
#include <caf/timestamp.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "messages/gtid_set.hpp"
#include "messages/topology.hpp"

namespace br {

/// Wall-clock instant (persisted records such as lastFailover; RFC3339 in status/annotations).
using wall_time = caf::timestamp;
/// Monotonic instant (deadlines, gate waits; the actor clock). Never compared across machines.
using mono_time = std::chrono::steady_clock::time_point;

// ---------------------------------------------------------------------------------------------
// debounce (actors/operator/decide/debounce.hpp)

/// Outcome of one probe of a site: the connection/query failed, or @@read_only was 1 or 0.
enum class poll_result : uint8_t { failed, read_only, writable };

inline std::string to_string(poll_result x) {
  switch (x) {
    case poll_result::failed:
      return "failed";
    case poll_result::read_only:
      return "read_only";
    case poll_result::writable:
      return "writable";
  }
  return "failed";
}

/// A site's debounced state plus the two streak counters that drive it.
struct debounce_state {
  site_state state = site_state::unknown;
  uint32_t consecutive_failures = 0;
  uint32_t consecutive_writable = 0;

  friend bool operator==(const debounce_state&, const debounce_state&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, debounce_state& x) {
  return f(caf::meta::type_name("debounce_state"), x.state, x.consecutive_failures,
           x.consecutive_writable);
}

/// Result of one debounce step. `transitioned` is true iff next.state != from.
struct debounce_step {
  debounce_state next;
  bool transitioned = false;
  site_state from = site_state::unknown;
  site_state to = site_state::unknown;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, debounce_step& x) {
  return f(caf::meta::type_name("debounce_step"), x.next, x.transitioned, x.from, x.to);
}

// ---------------------------------------------------------------------------------------------
// evaluate (actors/operator/decide/evaluate.hpp)

/// One site as the cross-site evaluation sees it.
struct site_observation {
  std::string name;
  site_role role = site_role::primary_candidate;
  site_state state = site_state::unknown;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, site_observation& x) {
  return f(caf::meta::type_name("site_observation"), x.name, x.role, x.state);
}

enum class group_verdict : uint8_t {
  healthy,      ///< exactly one writable candidate, every core site reachable
  failover,     ///< promote one of `candidates` (after GTID ranking and the gate)
  split_brain,  ///< more than one candidate writable: see resolve_split_brain
  no_primary,   ///< nothing writable and nothing to promote: alert only
  total_loss,   ///< every core site unreachable: alert only
  degraded,     ///< a primary serves but something is missing, or we must wait
  fence,        ///< writable non-candidate sites: fence them, no promotion this cycle
};

inline std::string to_string(group_verdict x) {
  switch (x) {
    case group_verdict::healthy:
      return "healthy";
    case group_verdict::failover:
      return "failover";
    case group_verdict::split_brain:
      return "split_brain";
    case group_verdict::no_primary:
      return "no_primary";
    case group_verdict::total_loss:
      return "total_loss";
    case group_verdict::degraded:
      return "degraded";
    case group_verdict::fence:
      return "fence";
  }
  return "degraded";
}

/// The cross-site verdict. Only the list that belongs to `verdict` is filled, except `writable`,
/// which always lists every writable site (any role) in declared order.
struct group_evaluation {
  group_verdict verdict = group_verdict::degraded;
  /// Degraded-condition reason: Healthy, Degraded, SplitBrain, NoPrimary, TotalLoss.
  std::string reason;
  /// Human text (stable: it appears in logs, events and conditions).
  std::string message;
  /// failover: read-only primary candidates, by sitePriorities then declared order (the caller
  /// refines this with rank_candidates; GTID freshness comes first).
  std::vector<std::string> candidates;
  /// fence: writable sites whose role is not primary-candidate.
  std::vector<std::string> fence;
  /// Every writable site (split_brain: the competing writers).
  std::vector<std::string> writable;
  /// Core (non-reader) sites that are unreachable.
  std::vector<std::string> unreachable;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, group_evaluation& x) {
  return f(caf::meta::type_name("group_evaluation"), x.verdict, x.reason, x.message, x.candidates,
           x.fence, x.writable, x.unreachable);
}

// ---------------------------------------------------------------------------------------------
// rank_candidates (actors/operator/decide/rank_candidates.hpp)

/// A promotion candidate with its @@gtid_executed, in declared (spec.sites) order.
struct candidate_gtid {
  std::string name;
  gtid_set executed;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_gtid& x) {
  return f(caf::meta::type_name("candidate_gtid"), x.name, x.executed);
}

/// A candidate that lacks transactions the winner has (it would lose them if it were promoted;
/// after the winner's promotion it simply catches up).
struct candidate_gap {
  std::string name;
  gtid_set missing;  ///< winner \ candidate
  uint64_t missing_count = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_gap& x) {
  return f(caf::meta::type_name("candidate_gap"), x.name, x.missing, x.missing_count);
}

struct candidate_ranking {
  /// Best first: a strict superset ranks above its subsets; then sitePriorities, declared order.
  std::vector<std::string> order;
  /// True when the best candidates hold incomparable sets: there is no winner and the caller must
  /// not pick one silently. `incomparable_a` ranks first by priority.
  bool incomparable = false;
  std::string incomparable_a;
  std::string incomparable_b;
  gtid_set a_only;  ///< a \ b
  gtid_set b_only;  ///< b \ a
  /// The winner (order[0]) when there is one, else "".
  std::string winner;
  /// Candidates lacking transactions the winner has, in `order` order.
  std::vector<candidate_gap> behind;
  std::string message;

  bool has_winner() const { return !winner.empty(); }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, candidate_ranking& x) {
  return f(caf::meta::type_name("candidate_ranking"), x.order, x.incomparable, x.incomparable_a,
           x.incomparable_b, x.a_only, x.b_only, x.winner, x.behind, x.message);
}

// ---------------------------------------------------------------------------------------------
// resolve_split_brain (actors/operator/decide/split_brain.hpp)

enum class split_brain_tier : uint8_t {
  history,   ///< tier 1: lastFailoverTarget is writable; fence every other writer
  priority,  ///< tier 2: no history; first writable candidate in sitePriorities wins
  alert,     ///< tier 3 (or no usable winner): alert only, no automatic action
};

inline std::string to_string(split_brain_tier x) {
  switch (x) {
    case split_brain_tier::history:
      return "history";
    case split_brain_tier::priority:
      return "priority";
    case split_brain_tier::alert:
      return "alert";
  }
  return "alert";
}

struct split_brain_resolution {
  split_brain_tier tier = split_brain_tier::alert;
  /// The site that keeps its writes ("" for alert).
  std::string winner;
  /// Writable sites to fence now (declared order).
  std::vector<std::string> fence;
  /// Tier 2: run the normal promotion path for `winner` (epoch, DNS, taints). False when the
  /// anti-flap cooldown defers it (`repromote_deferred` is then true).
  bool repromote = false;
  bool repromote_deferred = false;
  std::string message;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, split_brain_resolution& x) {
  return f(caf::meta::type_name("split_brain_resolution"), x.tier, x.winner, x.fence, x.repromote,
           x.repromote_deferred, x.message);
}

// ---------------------------------------------------------------------------------------------
// cooldown (actors/operator/decide/cooldown.hpp)

struct cooldown_status {
  bool allowed = true;
  /// Time until an automatic failover is allowed again (zero when allowed).
  caf::timespan remaining{0};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cooldown_status& x) {
  return f(caf::meta::type_name("cooldown_status"), x.allowed, x.remaining);
}

/// The durable anti-flap record (S7): status.lastFailover/lastFailoverTarget, mirrored in the
/// annotations bloodraven.shipstream.io/last-failover(-target).
struct failover_record {
  wall_time at{};
  std::string target;

  friend bool operator==(const failover_record&, const failover_record&) = default;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, failover_record& x) {
  return f(caf::meta::type_name("failover_record"), x.at, x.target);
}

enum class record_source : uint8_t { none, status, annotation };

inline std::string to_string(record_source x) {
  switch (x) {
    case record_source::none:
      return "none";
    case record_source::status:
      return "status";
    case record_source::annotation:
      return "annotation";
  }
  return "none";
}

struct merged_failover_record {
  /// The newer valid copy, if any.
  caf::optional<failover_record> record;
  record_source source = record_source::none;
  /// WARN lines for the log (future-stamped copies refused, copies that disagree, restored from
  /// annotations because the status copy is older or missing).
  std::vector<std::string> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, merged_failover_record& x) {
  return f(caf::meta::type_name("merged_failover_record"), x.record, x.source, x.warnings);
}

// ---------------------------------------------------------------------------------------------
// recovery (actors/operator/decide/recovery.hpp)

enum class recovery_kind : uint8_t {
  contained,  ///< old \subseteq active: rejoin as a replica (auto-position)
  divergent,  ///< old has transactions the active primary lacks: stay fenced, RecoveryBlocked (S4)
};

inline std::string to_string(recovery_kind x) {
  return x == recovery_kind::contained ? "contained" : "divergent";
}

struct recovery_classification {
  recovery_kind kind = recovery_kind::contained;
  gtid_set divergent;            ///< old \ active (empty when contained)
  std::string divergent_gtid;    ///< compact text, for status.sites[].divergentGtid
  uint64_t divergent_count = 0;  ///< status.sites[].divergentTransactionCount
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, recovery_classification& x) {
  return f(caf::meta::type_name("recovery_classification"), x.kind, x.divergent, x.divergent_gtid,
           x.divergent_count);
}

// ---------------------------------------------------------------------------------------------
// validate_reclone_token (actors/operator/decide/reclone_token.hpp)

enum class reclone_kind : uint8_t {
  divergent_prefix,  ///< `<site>:<8+ chars of the recorded divergentGtid>`
  cold_confirm,      ///< `<site>:confirm=<group>` (no divergence recorded)
  restore_token,     ///< `<site>:restore=<token>` (after the in-place restore of that token)
};

inline std::string to_string(reclone_kind x) {
  switch (x) {
    case reclone_kind::divergent_prefix: return "divergent_prefix";
    case reclone_kind::cold_confirm: return "cold_confirm";
    case reclone_kind::restore_token: return "restore_token";
  }
  return "cold_confirm";
}

struct reclone_validation {
  bool accepted = false;
  std::string site;
  reclone_kind kind = reclone_kind::cold_confirm;
  /// Rejected: the text of the RecloneRejected Warning event.
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reclone_validation& x) {
  return f(caf::meta::type_name("reclone_validation"), x.accepted, x.site, x.kind, x.reason);
}

// ---------------------------------------------------------------------------------------------
// decide_primary_reassert (actors/operator/decide/primary_reassert.hpp)

enum class reassert_verdict : uint8_t {
  not_applicable,  ///< preconditions do not hold (quiet)
  rate_limited,    ///< would re-assert, but one ran less than failoverCooldown ago
  refused,         ///< target known but unsafe: WARN with `reason`
  reassert,        ///< clear the fence on `site`
};

inline std::string to_string(reassert_verdict x) {
  switch (x) {
    case reassert_verdict::not_applicable:
      return "not_applicable";
    case reassert_verdict::rate_limited:
      return "rate_limited";
    case reassert_verdict::refused:
      return "refused";
    case reassert_verdict::reassert:
      return "reassert";
  }
  return "not_applicable";
}

struct reassert_decision {
  reassert_verdict verdict = reassert_verdict::not_applicable;
  std::string site;
  std::string reason;
  caf::timespan retry_in{0};  ///< rate_limited: time until allowed
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reassert_decision& x) {
  return f(caf::meta::type_name("reassert_decision"), x.verdict, x.site, x.reason, x.retry_in);
}

// ---------------------------------------------------------------------------------------------
// promotion_gate (actors/operator/decide/promotion_gate.hpp)

enum class gate_policy : uint8_t {
  safe,  ///< default: only the three rules open the gate
  fast,  ///< the reference behaviour: an unreachable old primary counts as isolated (dual-writable risk)
};

inline std::string to_string(gate_policy x) {
  return x == gate_policy::safe ? "Safe" : "Fast";
}

enum class gate_verdict : uint8_t { open, wait, timed_out };

inline std::string to_string(gate_verdict x) {
  switch (x) {
    case gate_verdict::open:
      return "open";
    case gate_verdict::wait:
      return "wait";
    case gate_verdict::timed_out:
      return "timed_out";
  }
  return "wait";
}

enum class gate_rule : uint8_t {
  none,
  operator_fenced,     ///< rule 1
  old_primary_acked,   ///< rule 2
  peers_acked_waited,  ///< rule 3
  fast_unreachable,    ///< policy Fast, old primary unreachable
  semisync_stopped,    ///< rule 4: too few sites receive from the old primary to acknowledge
};

inline std::string to_string(gate_rule x) {
  switch (x) {
    case gate_rule::none:
      return "none";
    case gate_rule::operator_fenced:
      return "rule1-operator-fenced";
    case gate_rule::old_primary_acked:
      return "rule2-old-primary-acked";
    case gate_rule::peers_acked_waited:
      return "rule3-peers-acked-lease-waited";
    case gate_rule::fast_unreachable:
      return "fast-policy-unreachable";
    case gate_rule::semisync_stopped:
      return "rule4-semisync-receivers-stopped";
  }
  return "none";
}

struct gate_decision {
  gate_verdict verdict = gate_verdict::wait;
  gate_rule rule = gate_rule::none;
  /// wait: evaluate again no later than this (rule-3 deadline or the gate timeout).
  mono_time until{};
  /// Other sites whose sidecar has not acknowledged the deposing view (declared order).
  std::vector<std::string> missing_acks;
  std::string reason;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gate_decision& x) {
  return f(caf::meta::type_name("gate_decision"), x.verdict, x.rule, x.until, x.missing_acks,
           x.reason);
}

}  // namespace br
