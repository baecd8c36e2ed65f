// Helpers shared by the backup and restore jobs.
#pragma once

#include <chrono>
#include <cstdint>

#include "io/backup/jobs.hpp"
#include "io/mysql/connection.hpp"

namespace br::backup {

inline int64_t system_now() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// A short session for checks and settings (10 s connect, 60 s per statement).
mysql::result<mysql::connection> open_session(const mysql_target& t);

}  // namespace br::backup
