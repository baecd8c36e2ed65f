// Where a history starts in the PITR archive (pure). A binlog file whose Previous_gtids is empty
// starts a history of its own: MySQL writes into a new binlog's Previous_gtids the GTIDs its
// binary logs hold since the last reset (not those set through gtid_purged, by a dump's load or a
// CLONE), so a server that keeps its binary logs never writes an empty one once they hold a
// transaction. An empty one comes from: the server's first binary log (a new server, a CLONE
// recipient: its new binlog.000001), or `RESET BINARY LOGS AND GTIDS` (`restore --replace`, the
// in-place restore, which discards every transaction after its backup's point). Such a file
// "fits" after any set, so the planner cannot chain it: a backup taken before it is not known to
// be an ancestor of what it holds.
//
// A start is listed at its first event (the Format_description, written when the file was
// created). A file with an empty Previous_gtids right after the site's previous archived file
// ended empty is no start (nothing was held before it: the same history). Files are compared in
// the order the server wrote them (binlog_name_less), not by time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/binlog/manifest.hpp"

namespace br::backup {

struct history_start {
  std::string site;
  std::string file;           ///< the first archived file of the history
  std::string previous_file;  ///< the site's archived file before it ("" = the site's first one)
  std::string previous_end;   ///< the set that earlier file ended with (compact; "" with none)
  int64_t unix_seconds = 0;   ///< the file's first event: when it was created (the reset, the clone's start)
  friend bool operator==(const history_start&, const history_start&) = default;
};

/// Every start of every site's manifest, oldest first (by time, then site, then file). An entry
/// whose sets or first event time cannot be read is an error (`error` names it; nothing is returned).
std::vector<history_start> find_history_starts(const std::vector<binlog::manifest>& manifests, std::string& error);

/// The earliest start after a backup whose consistent point is `snapshot_unix` (its time is at or
/// after that second: a start in the snapshot's second is taken as after it, the safe side).
std::optional<history_start> first_start_after(const std::vector<history_start>& starts, int64_t snapshot_unix);

}  // namespace br::backup
