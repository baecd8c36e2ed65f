// Which binlog files a scan archives (pure): every sealed file of the index (all but the last,
// which the server is still writing) that the manifest does not hold yet. A file the manifest
// holds with another size is a conflict: it is reported, never overwritten.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/binlog/manifest.hpp"

namespace br::sidecar {

struct index_entry {
  std::string name;  ///< "binlog.000003"
  std::string path;  ///< where to read it
};

/// The lines of a binlog index file ("./binlog.000001" or absolute paths), relative names
/// resolved against `binlog_dir`. Blank lines are skipped.
std::vector<index_entry> parse_binlog_index(const std::string& text, const std::string& binlog_dir);

struct archive_plan {
  std::vector<size_t> to_archive;      ///< indexes into the entries, oldest first
  std::vector<std::string> conflicts;  ///< "binlog.000003: archived with 1234 bytes, now 999"
};

/// `sizes[i]` is the current size of entries[i] (only sealed ones are looked at).
archive_plan plan_archive(const std::vector<index_entry>& entries, const std::vector<uint64_t>& sizes,
                          const binlog::manifest& m);

/// Retention (pure): which manifest entries the operator's cutoff allows to delete. An entry goes
/// when its lastEventTime is strictly before the cutoff; no cutoff (nullopt) deletes nothing; an
/// entry whose lastEventTime cannot be read is kept (never delete what cannot be dated).
struct retention_plan {
  binlog::manifest keep;                     ///< the manifest to write, without the dropped entries
  std::vector<binlog::manifest_entry> drop;  ///< their objects are deleted after `keep` is stored
  std::vector<std::string> undated;          ///< names kept because lastEventTime is unreadable
};
retention_plan plan_retention(const binlog::manifest& m, std::optional<int64_t> cutoff_unix_ms);

/// The cutoff in a /pitr-cutoff answer: status 200 with an RFC3339 cutoffTime -> unix ms;
/// anything else (503, no cutoffTime, garbage) -> nullopt, with `why` saying which.
std::optional<int64_t> cutoff_from_answer(int status, const std::string& body, std::string& why);

}  // namespace br::sidecar
