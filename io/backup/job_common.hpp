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

/// The TLS of a session to `t`: verify_identity against t.tls_ca_file when set, else preferred.
void apply_tls(const mysql_target& t, mysql::connect_options& o);

/// A short session for checks and settings (10 s connect, 60 s per statement; TLS by apply_tls).
mysql::result<mysql::connection> open_session(const mysql_target& t);

}  // namespace br::backup
