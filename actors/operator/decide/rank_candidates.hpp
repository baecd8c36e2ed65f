// Promotion-candidate ranking by GTID freshness.
//
// Input: the read-only primary candidates in declared (spec.sites) order with their
// @@gtid_executed, and spec.splitBrainPolicy.sitePriorities. Containment is a partial order:
//   - a candidate whose set strictly contains another's ranks above it;
//   - among equal sets (and, below the top, among incomparable ones) sitePriorities order wins,
//     then declared order.
// `order` is built greedily: repeatedly take, among the remaining candidates whose set is not
// strictly contained in another remaining candidate's, the one first by priority.
// Winner: the top of `order`, but only when its set contains every other candidate's set.
// Otherwise the best candidates are INCOMPARABLE (neither contains the other): `incomparable`
// is true, the first two such candidates by priority are reported with the transactions each
// has that the other lacks, `winner` is empty, and the caller must not pick one silently.
// `behind` lists the candidates that lack transactions the winner has (with the missing set and
// count): promoting one of those instead would lose them.
// The caller must pass every read-only candidate: one whose set could not be read must not be
// left out silently (it might be the freshest).
#pragma once

#include <string>
#include <vector>

#include "messages/decisions.hpp"

namespace br {

candidate_ranking rank_candidates(const std::vector<candidate_gtid>& candidates,
                                  const std::vector<std::string>& site_priorities);

}  // namespace br
