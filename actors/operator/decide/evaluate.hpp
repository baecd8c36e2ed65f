// Cross-site evaluation: one verdict for the whole group from the debounced site states.
//
// Pure function of (sites in declared order, sitePriorities); rules in this order
// (the two-site table is a special case):
//   1. A writable site whose role is not primary-candidate (dr-only, reader) -> fence(those
//      sites), reason Degraded; no promotion in the same cycle (a later poll must confirm it).
//   2. Every core (non-reader) site unreachable -> total_loss
//      "TOTAL LOSS: all sites are unreachable".
//   3. More than one writable site -> split_brain "SPLIT BRAIN: N sites are writable (a, b)".
//   4. No writable site:
//      a. a core site is still unknown (no conclusive poll yet) -> degraded, no action: it could
//         be a writable primary whose writable streak has not completed (our addition; safe);
//      b. at least one core site unreachable and a read-only primary-candidate exists ->
//         failover(candidates by sitePriorities then declared order; the caller ranks them by
//         GTID freshness with rank_candidates);
//      c. otherwise no_primary: "NO PRIMARY: both sites are read-only" (two core sites),
//         "NO PRIMARY: all N sites are read-only", or "NO PRIMARY: no writable site available".
//   5. One writable site: core sites unreachable -> degraded "X unreachable while Y is primary";
//      core sites unknown -> degraded "X state unknown while Y is primary"; otherwise healthy.
// Readers (role read-only) never count toward total loss, failover or health, but a writable
// reader is fenced (rule 1) even when it is the only writable site.
#pragma once

#include <string>
#include <vector>

#include "messages/decisions.hpp"

namespace br {

group_evaluation evaluate(const std::vector<site_observation>& sites,
                          const std::vector<std::string>& site_priorities);

}  // namespace br
