// Old-primary recovery decisions (S4).
//
// classify_recovery(old, active): contained when every transaction of the returning site is in
// the active primary's set (rejoin as a replica with auto-position); divergent otherwise, with
// divergent = old \ active, its compact text (status.sites[].divergentGtid) and exact count
// (divergentTransactionCount). Transactions the active primary has and the old one lacks are
// not divergence: the old site catches up by replicating.
//
// detect_returning_primary(facts): true when the site is the signature of a former primary left
// by RESET REPLICA ALL: debounced state read-only, no replication channel configured, a prior
// failover happened (lastFailoverTarget known), and the site is not the active site. A writable
// returning primary is a split brain first (fenced by resolve_split_brain); recovery starts on a
// later poll once it reads read-only. A site the operator fenced as a split-brain loser is marked
// recovery-pending (durably): it may have taken writes whatever its replication channel says (an
// admin may have stopped, not reset, replication before making it writable), so it is checked
// once it reads read-only, with or without a channel, before it may replicate again (S4).
#pragma once

#include <string>

#include "messages/decisions.hpp"

namespace br {

/// durable_state.recovery[site].state of a split-brain loser awaiting classification (shown in
/// status as RecoveryInProgress).
inline const std::string recovery_state_pending = "RecoveryPending";

recovery_classification classify_recovery(const gtid_set& old_primary, const gtid_set& active);

struct returning_primary_facts {
  std::string site;
  site_state state = site_state::unknown;
  bool replication_configured = true;  ///< a replication channel (source) exists on the site
  bool prior_failover = false;         ///< lastFailoverTarget is known
  std::string active_site;
  bool recovery_pending = false;       ///< fenced as a split-brain loser, not yet classified
};

bool detect_returning_primary(const returning_primary_facts& facts);

}  // namespace br
