// The backup and restore engine behind `bloodraven backup run` and `bloodraven restore` (blocking;
// a process or a detached worker runs it). Method: a consistent logical dump with MySQL's
// mysqldump (docs/backup.md), gzip-compressed in process, stored as `<name>/dump.sql.gz` with
// `<name>/backup.json` written last. Restore loads it into a fresh server, then optionally replays
// the archived binlogs of every site up to a stop bound (mysqlbinlog | mysql --binary-mode).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/backup/backup_meta.hpp"
#include "io/backup/pitr_plan.hpp"
#include "io/backup/tool_env.hpp"
#include "io/storage/object_store.hpp"

namespace br::backup {

struct mysql_target {
  std::string host;
  uint16_t port = 3306;
  std::string user;
  std::string password;  ///< only ever written to the 0600 option file
  /// spec.tls (issue 26): the CA (PEM, a path on this host) the server's certificate must chain
  /// to; its name must be `host`. Sessions then use tls_mode::verify_identity and the tools
  /// --ssl-mode=VERIFY_IDENTITY with a copy of the CA; no RSA key is fetched. "" = TLS when the
  /// server offers it, unverified (no spec.tls).
  std::string tls_ca_file;
  std::string describe() const { return host + ":" + std::to_string(port); }
};

struct backup_request {
  std::string name;
  mysql_target source;
  tool_settings tools;
  storage::object_store* store = nullptr;
  std::function<int64_t()> now;  ///< unix seconds (empty: the system clock)
};

struct backup_outcome {
  bool ok = false;
  backup_info info;      ///< filled as far as the run got
  std::string location;  ///< the store's location + "<name>/"
  std::string message;   ///< on failure: what failed (tool stderr tails included, bounded)
};

backup_outcome run_backup(const backup_request& r);

struct restore_request {
  std::string name;
  mysql_target target;
  tool_settings tools;
  storage::object_store* backups = nullptr;
  storage::object_store* archive = nullptr;  ///< the PITR archive; required with a stop bound
  stop_bound stop;
  /// Replace the data of a live, fenced server (spec.restoreInPlace) instead of loading into a
  /// fresh one: refused unless replace_refusal() passes; after the dump is downloaded and
  /// checked, every schema of schemas_to_drop() is dropped and RESET BINARY LOGS AND GTIDS
  /// empties gtid_executed, then the load and replay run as for a fresh server.
  bool replace = false;
  std::function<int64_t()> now;
};

struct restore_outcome {
  bool ok = false;
  backup_info backup;
  std::vector<replay_file> replayed;
  std::string replay_covered;         ///< with a bound: the backup's set united with the replayed files' end sets
  int64_t last_replayed_event = 0;    ///< unix seconds of the newest replayed event (0: nothing replayed)
  std::string gtid_executed;  ///< the target's after the restore (compact)
  uint64_t loaded_bytes = 0;  ///< uncompressed SQL loaded
  std::vector<std::string> dropped;  ///< replace: the schemas dropped before the load
  std::string discarded_gtids;       ///< replace: executed before it, not restored: now in gtid_purged
  std::string account_statements_skipped;  ///< replace: account statements not replayed (accounts kept)
  std::string message;
};

restore_outcome run_restore(const restore_request& r);

/// Every backup in the store that has a backup.json, sorted by name; unreadable metadata is
/// listed with its error. Blocking.
struct listed_backup {
  std::string name;
  std::optional<backup_info> info;
  std::string error;
};
storage::store_result<std::vector<listed_backup>> list_backups(storage::object_store& store);

/// Deletes every object under `<name>/`, backup.json first (the backup stops being complete
/// before its data goes). A missing backup is success.
storage::store_status delete_backup(storage::object_store& store, const std::string& name);

}  // namespace br::backup
