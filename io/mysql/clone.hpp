// clone_instance: CLONE INSTANCE FROM a donor, then reconnect through the recipient's restart.
#pragma once

#include <chrono>
#include <string>

#include "io/mysql/connection.hpp"
#include "io/mysql/dialect.hpp"

namespace br::mysql {

struct clone_request {
  clone_donor donor;
  std::chrono::steady_clock::time_point deadline;  ///< for the whole operation incl. restart
  /// CLONE is refused under super_read_only. When true (default) super_read_only is lifted first
  /// (read_only stays ON: fenced to applications; the recipient account needs CONNECTION_ADMIN,
  /// which the operator's has); its data is replaced and it restarts,
  /// coming back as its boot flags say (the sandbox and our pods boot fenced). If the CLONE
  /// statement itself fails (bad donor, credentials), the recipient is fenced again before the
  /// error is returned. When false, writability is the caller's precondition and a fenced
  /// recipient fails with server_error 1290.
  bool unfence_recipient = true;
  std::chrono::milliseconds reconnect_interval{std::chrono::milliseconds{250}};
};

struct clone_report {
  std::string state;  ///< performance_schema.clone_status STATE: "Completed" on success
  bool connection_dropped = false;  ///< the CLONE statement ended with the recipient's restart
  std::chrono::milliseconds elapsed{0};
  unsigned reconnect_attempts = 0;
};

/// Preconditions: the recipient is supervised (restarts itself after CLONE, exit code 16 loop),
/// `recipient` authenticates with CLONE_ADMIN + SYSTEM_VARIABLES_ADMIN, the donor user has
/// BACKUP_ADMIN. Steps: [unfence], SET GLOBAL clone_valid_donor_list, CLONE INSTANCE (a lost
/// connection or ERROR 3707 here is expected: the recipient restarts), then reconnect every
/// reconnect_interval until clone_status says Completed (ok), Failed (server_error with the
/// clone's ERROR_NO) or the deadline passes (timeout). Only a clone_status row that began after
/// the one present before the statement counts. The donor password never appears in errors.
result<clone_report> clone_instance(const connect_options& recipient, const dialect& d,
                                    const clone_request& req);

}  // namespace br::mysql
