// Semi-synchronous replication in the promotion gate (docs/safety.md "Semi-synchronous
// replication: gate rule 4 and the no-loss candidate").
//
// With rpl_semi_sync_source_wait_for_replica_count = K (AFTER_SYNC, timeout effectively infinite,
// wait_no_replica ON) the primary acknowledges a commit only after K replicas received it. For a
// failover away from old primary O with N other sites:
//
//   rule 4 (O cannot acknowledge): at least N - K + 1 of the N other sites were probed, in this
//     evaluation, with no receiver running from O (the operator stopped it, or it replicates from
//     nobody / someone else). At most K - 1 sites can then receive from O, so O can acknowledge
//     nothing more, whatever its own state (hung, partitioned, writable).
//   no-loss candidate: every transaction O acknowledged was received by K sites. A site "in step"
//     still holds every transaction it ever received from O (its mysqld has not restarted since it
//     was last seen holding O's whole executed set, so no relay log was discarded). If at least
//     N - K + 1 in-step sites with stopped receivers were probed in this evaluation, one of them
//     received each acknowledged transaction before it stopped (its set is final), so a site
//     whose received set contains the union of theirs holds all of them; drained, it loses nothing
//     acknowledged. A site still receiving is never counted: a commit it gets after its probe can
//     collect K acknowledgements with a stopped site that is not in step.
//
// Rule 4 opens the gate only onto the no-loss candidate; when rule 1, 2 or 3 opens it first the
// failover runs as in asynchronous mode (docs/safety.md). Facts must come from probes of this
// evaluation: a stale answer may predate a restart that discarded relay logs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/gtid_set.hpp"
#include "messages/mysql.hpp"

namespace br {

struct semisync_site_fact {
  std::string site;
  /// A probe of this evaluation answered (all fields below come from it).
  bool reached = false;
  /// No receiver (IO thread) of this site runs from the old primary: stopped by the operator and
  /// confirmed, or its channel points elsewhere / does not exist.
  bool receiver_stopped = false;
  /// Holds every transaction it received from the old primary (see above).
  bool in_step = false;
  /// gtid_executed united with the channel's received set (Retrieved_Gtid_Set).
  std::optional<gtid_set> received;
};

struct semisync_gate_input {
  bool enabled = false;
  uint32_t wait_for_replica_count = 0;  ///< K
  /// The old primary was last seen with the semi-sync source on, AFTER_SYNC, wait_no_replica ON
  /// and a timeout the operator counts as infinite (it never fell back to asynchronous).
  bool old_primary_confirmed = false;
  /// Every site except the old primary (N = size), in the operator's order of preference.
  std::vector<semisync_site_fact> others;
  /// Sites allowed to become primary (candidate role, not fenced by hand, not pending a reclone).
  std::vector<std::string> eligible;
};

struct semisync_gate_result {
  /// Rule 4: the old primary can acknowledge nothing more.
  bool cannot_ack = false;
  /// The no-loss candidate (empty: none yet; promotion must wait).
  std::string candidate;
  /// Other sites not known to have stopped receiving from the old primary.
  std::vector<std::string> still_receiving;
  std::string reason;
};

/// Was the old primary, as last probed, running semi-synchronous replication the way rule 4 and
/// the no-loss candidate assume? Source side enabled and waiting (Rpl_semi_sync_source_status
/// ON), no commit answered without its acknowledgements since the server started
/// (Rpl_semi_sync_source_no_tx 0: a fallback to asynchronous and back between two polls shows
/// there), AFTER_SYNC, wait_no_replica ON, the maximum timeout (`timeout_max_ms`), K as
/// configured, and no more semi-sync receivers connected than the group's other sites (a
/// receiver outside the group could be acknowledging). `why` says what is missing.
bool semisync_source_confirmed(const site_semisync& s, uint32_t k, size_t other_sites,
                               uint64_t timeout_max_ms, std::string* why = nullptr);

/// Sites needed: N - K + 1 (0 when K is 0 or larger than N: the configuration is refused).
uint32_t semisync_quorum(size_t others, uint32_t k);

semisync_gate_result semisync_gate(const semisync_gate_input& in);

}  // namespace br
