// Where the PITR archive's history was reset (pure): `restore --replace` (the in-place restore)
// runs RESET BINARY LOGS AND GTIDS on the primary and loads a backup, discarding every transaction
// after the backup's (and the optional replay's) point. The first binlog the server writes after
// that starts with an empty Previous_gtids, while the site's earlier archived file ended with a
// non-empty set: that file is a lineage break, at its first event (its Format_description event,
// written by the reset). History on either side of a break is not one history: a replay from a
// backup taken before it must stop at or before it.
//
// Why an empty Previous_gtids marks it: MySQL writes into a new binlog's Previous_gtids the
// GTIDs its binary logs hold since the last reset (gtid_executed without the GTIDs only in the
// mysql.gtid_executed table: those set through gtid_purged, by a dump's load or a CLONE), so the
// file after a reset starts empty and, without a reset, a server with history never writes an
// empty one while it stays on the same binary logs. A CLONE also restarts a server's binary logs
// (a recipient's new binlog.000001 starts empty): if a recloned site later archives a file right
// after its old ones it reads as a break too, which only refuses (never replays) across it.
// Files are compared in the order the server wrote them (binlog_name_less), not by time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/binlog/manifest.hpp"

namespace br::backup {

struct lineage_break {
  std::string site;
  std::string file;           ///< the first archived file of the new history
  std::string previous_file;  ///< the site's archived file before it
  std::string previous_end;   ///< the set that earlier history ended with (compact)
  int64_t unix_seconds = 0;   ///< the new file's first event: when the reset happened
  friend bool operator==(const lineage_break&, const lineage_break&) = default;
};

/// Every break of every site's manifest, oldest first (by time, then site). An entry whose sets
/// or first event time cannot be read is an error (`error` names it; nothing is returned).
std::vector<lineage_break> find_lineage_breaks(const std::vector<binlog::manifest>& manifests, std::string& error);

/// The earliest break a backup whose consistent point is `snapshot_unix` predates (its time is at
/// or after that second: a reset in the snapshot's second is taken as after it, the safe side).
std::optional<lineage_break> first_break_after(const std::vector<lineage_break>& breaks, int64_t snapshot_unix);

}  // namespace br::backup
