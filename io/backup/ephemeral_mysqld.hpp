// A throwaway MySQL server for `bloodraven backup verify`: a scratch directory (the tools'
// private directory, so inside the chroot when the tools run there), `mysqld
// --initialize-insecure` with an init file that creates one account for 127.0.0.1 with a random
// password (sql_log_bin=0: no GTID of its own), then mysqld bound to 127.0.0.1 on a free port,
// GTID mode on, no binary log, no performance_schema, durability relaxed (the data is thrown
// away). Every step has a deadline; stop() is SIGTERM to the server's process group, SIGKILL at
// the deadline. The destructor stops the server and removes the scratch directory (unless
// keep_scratch() was called), so a failure or an exception leaves nothing running.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "io/backup/child_group.hpp"
#include "io/backup/jobs.hpp"
#include "io/backup/tool_env.hpp"

namespace br::backup {

struct ephemeral_options {
  tool_settings tools;  ///< chroot / bin_dir (mysqld is looked up like the client tools) / work_dir
  std::chrono::milliseconds init_timeout{std::chrono::minutes(5)};
  std::chrono::milliseconds start_timeout{std::chrono::minutes(2)};
  std::chrono::milliseconds stop_timeout{std::chrono::minutes(1)};
  std::string buffer_pool_size = "128M";
  /// spec.tls (issue 26), PEM files on this host, all three or none: the server serves
  /// tls_cert_file/tls_key_file (which must name 127.0.0.1) with require_secure_transport, and
  /// every session to it verifies the certificate against tls_ca_file (target().tls_ca_file).
  /// Copied into the scratch directory (the server reads them there, also inside a chroot).
  std::string tls_ca_file;
  std::string tls_cert_file;
  std::string tls_key_file;
};

/// The mysqld arguments (pure). `dir` is the scratch directory as mysqld sees it; `user` is
/// the --user value ("" = none: not running as root). With o.tls_cert_file the run arguments
/// name the copies <dir>/tls-ca.pem, tls-cert.pem, tls-key.pem and require secure transport.
std::vector<std::string> ephemeral_init_args(const std::string& dir, const std::string& user,
                                             const ephemeral_options& o);
std::vector<std::string> ephemeral_run_args(const std::string& dir, const std::string& user, uint16_t port,
                                            const ephemeral_options& o);
/// The init file's SQL for the verify account (pure; the password is hex, no quoting issue).
std::string ephemeral_init_sql(const std::string& user, const std::string& password);
/// uid and gid of `name` in an /etc/passwd text; nullopt when absent.
std::optional<std::pair<unsigned, unsigned>> passwd_ids(const std::string& passwd_text, const std::string& name);

class ephemeral_mysqld {
 public:
  explicit ephemeral_mysqld(ephemeral_options o);
  ~ephemeral_mysqld();
  ephemeral_mysqld(const ephemeral_mysqld&) = delete;
  ephemeral_mysqld& operator=(const ephemeral_mysqld&) = delete;

  /// Creates the scratch directory, initialises and starts the server, waits until the verify
  /// account can log in. "" or what failed (with the tail of mysqld's error log).
  std::string start();
  /// The server as a restore target (127.0.0.1, its port, the verify account).
  const mysql_target& target() const { return target_; }
  /// Stops the server (bounded, see above; killed_at_stop() tells whether SIGKILL was needed).
  /// "" or what went wrong (it survived SIGKILL). Idempotent.
  std::string stop();
  /// Keeps the scratch directory when this object goes (the server is stopped regardless).
  void keep_scratch();
  /// The scratch directory on this host ("" before start()).
  std::string scratch() const;
  bool killed_at_stop() const { return killed_; }
  /// The last bytes of mysqld's error log, newlines folded.
  std::string error_log_tail() const;

 private:
  ephemeral_options o_;
  std::unique_ptr<private_dir> dir_;
  child_group server_;
  mysql_target target_;
  bool killed_ = false;
};

}  // namespace br::backup
