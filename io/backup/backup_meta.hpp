// A backup's metadata (`<name>/backup.json`, written last: a backup without it is incomplete)
// and the one-line results of `bloodraven backup run` / `bloodraven restore` (contract 4).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace br::backup {

inline constexpr const char* dump_object = "dump.sql.gz";  ///< the one data object of a backup
inline constexpr const char* meta_object = "backup.json";
inline constexpr const char* method_name = "mysqldump";

/// The source's place in its Group Replication group when the backup started (backup.json
/// `groupReplication`; absent for a server that is not a member of a running group).
struct gr_source_info {
  std::string group_name;    ///< @@group_replication_group_name: the UUID of its GTIDs
  std::string member_id;     ///< its server_uuid
  std::string member_role;   ///< PRIMARY | SECONDARY
  std::string member_state;  ///< ONLINE (a backup reads no other)
  bool operator==(const gr_source_info&) const = default;
};

struct backup_info {
  static constexpr int current_version = 1;
  int version = current_version;
  std::string name;
  std::string method = method_name;
  std::string format = "sql+gzip";
  std::string dump_key;          ///< "<name>/dump.sql.gz"
  uint64_t size_bytes = 0;       ///< stored (compressed) bytes
  uint64_t dump_bytes = 0;       ///< uncompressed SQL bytes
  std::string sha256;            ///< hex, of the stored object
  std::string gtid_executed;     ///< the dump's GTID_PURGED: the set the backup holds (compact)
  std::string binlog_file;
  uint64_t binlog_pos = 0;
  std::string source_host;       ///< host:port
  std::string server_version;
  std::vector<std::string> schemas;
  std::string start_time;        ///< RFC3339 UTC
  std::string snapshot_time;     ///< RFC3339 UTC: when the consistent point was taken (header seen)
  std::string completion_time;   ///< RFC3339 UTC
  std::optional<gr_source_info> group_replication;
};

nlohmann::json to_json(const backup_info& b);

struct backup_info_parse {
  std::optional<backup_info> value;
  std::string error;  ///< names the field
};
backup_info_parse parse_backup_info(const std::string& text);

/// A backup name: one key segment of [A-Za-z0-9._-], not "." or "..", at most 200 characters.
bool valid_backup_name(const std::string& name);

/// The JSON of a COMPLETE/FAILED line, at most `max_bytes` (4 KiB: a termination message):
/// `message` is shortened first, then `gtidExecuted` (marked with "gtidExecutedTruncated").
std::string bounded_result_json(nlohmann::json j, size_t max_bytes = 4096);

}  // namespace br::backup
