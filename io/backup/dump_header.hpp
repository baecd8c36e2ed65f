// What a mysqldump header says about its consistent point (pure): the GTID set from
// `SET @@GLOBAL.GTID_PURGED=... '<set>';` (--set-gtid-purged=ON) and the binlog coordinates from
// the `-- CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE='f', SOURCE_LOG_POS=n;` comment
// (--source-data=2). Both come before the first table in the dump.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace br::backup {

struct dump_header {
  std::optional<std::string> gtid_purged;  ///< compact server text ("" = the empty set)
  std::optional<std::string> binlog_file;
  std::optional<uint64_t> binlog_pos;
  /// Both found, or the dump's first table/database statement seen: nothing more will come.
  bool done = false;
};

/// Parses the text read so far (the dump's beginning). `done` also turns true when the first
/// "CREATE DATABASE"/"USE " line is seen. A malformed value leaves its field empty.
dump_header parse_dump_header(std::string_view text);

}  // namespace br::backup
