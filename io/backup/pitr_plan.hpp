// Point-in-time recovery decisions (pure): whether a stop bound is acceptable for a backup, and
// which archived binlog files, from every site's manifest, a replay needs and in what order.
//
// The plan starts from the backup's GTID set and repeatedly takes the file (any site) that
// (a) holds transactions not yet covered, (b) whose previous GTIDs are all covered (nothing before
// it is missing) and (c) can hold transactions before the bound; earliest first event first. A
// file that ends at or after a stop datetime is the last one. What the dump already holds is
// skipped by the server (GTID auto-skip), so overlapping files from several sites are harmless.
// The plan refuses what it cannot do whole: a gap in the archive before the bound, a stop datetime
// later than the newest archived event (the unarchived binlog tail), a GTID bound the archive
// does not reach. A `latest` bound replays every archived transaction that follows the backup
// (verification's "to the newest archived event"); a gap or a history start refuses it (below).
//
// History starts (archive_lineage.hpp: a file with an empty Previous_gtids, from a reset by an
// in-place restore, a new or a recloned server): such a file fits after any set, so it is never
// taken from a backup whose consistent point is before it. From such a backup, `latest`, a stop
// datetime after the start's second or after the newest archived event of the files before it
// (any site; a reset there that was not archived yet is not seen), or a GTID bound those files
// do not reach is refused, naming the site, the file and its time (replaying across it could
// bring back writes a restore discarded, or mix two histories). A point within the history before
// the start, and any point from a backup taken after it, are planned as before. A start after a
// reclone (no reset) is refused too: a false refusal, never a wrong replay.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/binlog/manifest.hpp"
#include "messages/gtid_set.hpp"

namespace br::backup {

struct stop_bound {
  enum class kind { none, datetime, gtid, latest };
  kind what = kind::none;
  int64_t unix_seconds = 0;  ///< datetime: replay events strictly before this second
  gtid_set gtids;            ///< gtid: replay the transactions of this set (inclusive)
};

/// "" when the bound can be used with a backup whose consistent point is `snapshot_unix`
/// holding `backup_gtids`; else an error naming the flag (--stop-datetime / --stop-gtid).
/// A stop datetime must be after the second the snapshot was taken in (every transaction the
/// dump holds then has an earlier timestamp); a GTID bound must contain the backup's set.
std::string check_stop_bound(const stop_bound& stop, int64_t snapshot_unix, const gtid_set& backup_gtids);

struct replay_file {
  std::string site;
  std::string name;         ///< binlog file name
  std::string remote_path;  ///< key in the archive store
  uint64_t size = 0;
  friend bool operator==(const replay_file&, const replay_file&) = default;
};

struct replay_plan {
  std::vector<replay_file> files;  ///< in replay order
  gtid_set covered;                ///< the backup's set united with every chosen file's end set
  int64_t last_event_unix = 0;     ///< newest last event of the chosen files (0 = none chosen)
  std::string error;               ///< "" = the plan replays everything up to the bound
};

/// `snapshot_unix`: the backup's consistent point (backup.json snapshotTime), for the breaks.
replay_plan plan_replay(const gtid_set& backup_gtids, int64_t snapshot_unix, const stop_bound& stop,
                        const std::vector<binlog::manifest>& manifests);

/// "2026-11-26T14:03:00Z", "2026-11-26T14:03:00+01:00" or "2026-11-26 14:03:00" (UTC) to unix
/// seconds; fractions are refused (mysqlbinlog has second granularity).
std::optional<int64_t> parse_stop_datetime(const std::string& text);

}  // namespace br::backup
