// The per-site binlog manifest of the PITR archive: one JSON document per site,
// files sorted by name, upserted by name. Parsing is strict: a manifest that cannot be read is
// never overwritten (the archive it describes would be lost).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace br::binlog {

struct manifest_entry {
  std::string name;         ///< binlog file name, e.g. "binlog.000003"
  std::string remote_path;  ///< where the archive holds it, relative to the storage root
  uint64_t size = 0;
  std::string first_event_time;  ///< RFC3339 UTC
  std::string last_event_time;   ///< RFC3339 UTC
  std::string previous_gtids;    ///< compact server text ("" = empty set)
  std::string end_gtids;         ///< previous_gtids plus the file's transactions
  std::string archived_at;       ///< RFC3339 UTC

  friend bool operator==(const manifest_entry&, const manifest_entry&) = default;
};

struct manifest {
  static constexpr int current_version = 1;
  int version = current_version;
  std::string site;
  std::vector<manifest_entry> files;  ///< sorted by name

  const manifest_entry* find(const std::string& name) const;
  /// Inserts or replaces the entry with this name, keeping the files sorted. Idempotent.
  void upsert(manifest_entry e);
};

nlohmann::json to_json(const manifest& m);

struct manifest_parse_result {
  std::optional<manifest> value;
  std::string error;  ///< names the JSON path of the first problem
};
manifest_parse_result parse_manifest(const std::string& text);

/// Unix seconds as RFC3339 UTC ("2026-11-24T10:03:06Z").
std::string rfc3339(int64_t unix_seconds);

}  // namespace br::binlog
