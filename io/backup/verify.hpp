// Backup verification (`bloodraven backup verify`): restore a backup into an ephemeral mysqld
// (ephemeral_mysqld.hpp) through the restore path (run_restore), optionally replaying the
// archived binlogs (to the newest archived event or to a stop datetime), then check the result:
// by default that the restored schemas hold tables and that gtid_executed is what the backup and
// the replay promise; optionally a sanity query with a minimum row count and a maximum duration.
// The server is stopped and the scratch directory removed afterwards, also on failure (kept with
// keep_on_failure). The checks are pure functions (table tests); run_verify blocks.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/backup/ephemeral_mysqld.hpp"
#include "io/backup/jobs.hpp"

namespace br::backup {

/// The newest backup with readable metadata (latest completionTime, then name); nullopt: none.
std::optional<std::string> newest_complete(const std::vector<listed_backup>& listed);

/// "" when the restored gtid_executed is what the backup and replay promise: without a bound
/// equal to the backup's set; replayed to the latest archived event equal to the plan's set;
/// to a stop datetime between the two. Else what differs.
std::string check_restored_gtids(stop_bound::kind bound, const gtid_set& backup, const gtid_set& covered,
                                 const gtid_set& restored);

struct sanity_result {
  uint64_t rows = 0;
  std::chrono::milliseconds took{0};
};
/// "" when the query returned at least `min_rows` rows within `max_duration` (0 = no limit).
std::string check_sanity(const sanity_result& r, uint64_t min_rows, std::chrono::milliseconds max_duration);

struct verify_request {
  std::string name;  ///< "" = the newest complete backup
  storage::object_store* backups = nullptr;
  storage::object_store* archive = nullptr;  ///< required with a bound
  stop_bound stop;                           ///< none, latest or datetime
  ephemeral_options server;
  std::string sanity_query;  ///< "" = the default checks only
  uint64_t expect_min_rows = 1;
  std::chrono::milliseconds max_duration{std::chrono::minutes(5)};  ///< of the sanity query
  bool keep_on_failure = false;
};

struct verify_outcome {
  bool ok = false;
  std::string step;  ///< the step reached: select, provision, restore, check, cleanup
  std::string name;
  restore_outcome restore;
  uint64_t tables = 0;  ///< tables in the backup's schemas after the restore
  std::optional<sanity_result> sanity;
  std::string scratch;       ///< the scratch directory on this host ("" = not created)
  std::string scratch_kept;  ///< the scratch directory left for inspection ("" = removed)
  bool server_killed = false;  ///< the server needed SIGKILL at the end
  std::string message;         ///< on failure: what failed
};

verify_outcome run_verify(const verify_request& r);

}  // namespace br::backup
