// Which binlog files a scan archives (pure): every sealed file of the index (all but the last,
// which the server is still writing) that the manifest does not hold yet. A file the manifest
// holds with another size is a conflict: it is reported, never overwritten.
#pragma once

#include <cstdint>
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

}  // namespace br::sidecar
