// Where the MySQL client tools run and how they get credentials: on this host (PATH or a bin
// directory) or inside a chroot (the sandbox's Debian sid root, whose MySQL 9.7 client needs
// sid's libraries). Credentials reach the tools only through an option file written 0600 in a
// private 0700 directory that is removed afterwards; never through argv or the environment.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "io/backup/pipeline.hpp"

namespace br::backup {

struct tool_settings {
  std::string chroot;    ///< "" = run on this host; else run as `chroot DIR tool ...` (needs root)
  std::string bin_dir;   ///< "" = the tool's name looked up in PATH (inside the chroot when set)
  std::string work_dir;  ///< parent of the private directory ("" = $TMPDIR or /tmp); ignored with chroot
  std::chrono::milliseconds timeout{std::chrono::hours(6)};  ///< each tool run (dump, load, replay)
};

/// A private directory (0700) the tools can see, removed with everything in it on destruction.
/// With a chroot it is created under <chroot>/tmp, and tool_path() is the path inside it.
class private_dir {
 public:
  /// `error` is set (and the object unusable) when it cannot be created.
  private_dir(const tool_settings& t, std::string& error);
  ~private_dir();
  private_dir(const private_dir&) = delete;
  private_dir& operator=(const private_dir&) = delete;

  const std::string& host_path() const { return host_; }
  std::string host_path(const std::string& name) const { return host_ + "/" + name; }
  /// The same file as the tools see it.
  std::string tool_path(const std::string& name) const { return tool_ + "/" + name; }
  /// Leave the directory in place on destruction (kept for inspection after a failure).
  void keep() { keep_ = true; }

 private:
  std::string host_;
  std::string tool_;
  bool keep_ = false;
};

/// The option-file text for a [client] section (pure). Values with a newline or NUL are refused
/// (error set, "" returned); the password is quoted with '\\' and '"' escaped.
std::string client_option_text(const std::string& user, const std::string& password,
                               std::string& error);

/// Writes the [client] option file `name` into `dir` with mode 0600; returns its tool path, or ""
/// with `error` set.
std::string write_option_file(const private_dir& dir, const std::string& name, const std::string& user,
                              const std::string& password, std::string& error);

/// Copies `host_file` (not empty, at most 1 MiB) into `dir` as `name` (0600); its tool path, or
/// "" with `error` set.
std::string copy_into(const private_dir& dir, const std::string& host_file, const std::string& name,
                      std::string& error);

/// The client tools' TLS arguments for a CA file as the tools see it (pure): "" -> none (the
/// tools' default: TLS when the server offers it, unverified); else --ssl-mode=VERIFY_IDENTITY
/// (CA chain and host name) and --ssl-ca (spec.tls, issue 26).
std::vector<std::string> client_tls_args(const std::string& tool_ca_file);

/// The CA at `host_ca_file` on this host copied into `dir` as ca.pem (the tools see it there, also
/// inside a chroot); its tool path. "" -> "" (no spec.tls). `error` is set when the CA cannot be
/// read or copied (never a fallback to unverified TLS).
std::string stage_ca(const private_dir& dir, const std::string& host_ca_file, std::string& error);

/// The command that runs `tool` with `args` as the settings say.
command tool_command(const tool_settings& t, const std::string& tool, std::vector<std::string> args);

/// The children's whole environment: PATH, TZ=UTC (mysqlbinlog reads --stop-datetime in local
/// time), LC_ALL=C, HOME = the private directory (no ~/.my.cnf of ours is read).
std::vector<std::string> tool_environment(const private_dir& dir);

}  // namespace br::backup
