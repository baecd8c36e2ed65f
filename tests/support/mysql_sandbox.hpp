// Test helper: drives tools/mysql-sandbox (real MySQL 9.7 instances) and builds connect options.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "io/mysql/connection.hpp"

namespace br::test {

/// Thin wrapper over `$BR_SOURCE_DIR/tools/mysql-sandbox`. Every call runs the script with an
/// argv (no shell); failures throw std::runtime_error carrying the script's stderr, so a test
/// that cannot set up fails loudly instead of asserting against a wrong topology.
class mysql_sandbox {
 public:
  struct outcome {
    int exit_code = -1;
    std::string out;  ///< stdout, trailing newlines removed
    std::string err;  ///< stderr
  };

  mysql_sandbox();

  /// A sandbox command that has not exited by then is SIGKILLed (a `reset` takes ~10 s here; the
  /// slowest, `up` of a fresh chroot, well under this). Nothing in a test waits forever on it.
  static constexpr std::chrono::seconds command_deadline{600};

  /// Runs the script; never throws.
  outcome run(const std::vector<std::string>& args) const;
  /// Runs the script; throws unless it exits 0. Returns stdout.
  std::string must(const std::vector<std::string>& args) const;

  void up(int n) const { must({"up", std::to_string(n)}); }
  void start(int i) const { must({"start", std::to_string(i)}); }
  void stop(int i) const { must({"stop", std::to_string(i)}); }
  void reset(int i) const { must({"reset", std::to_string(i)}); }
  void kill9(int i) const { must({"kill9", std::to_string(i)}); }
  void pause(int i) const { must({"pause", std::to_string(i)}); }
  void resume(int i) const { must({"resume", std::to_string(i)}); }
  void replicate(int replica, int source) const {
    must({"replicate", std::to_string(replica), "FROM", std::to_string(source)});
  }
  uint16_t port(int i) const;
  /// Host path of instance i's datadir (binlog.NNNNNN and binlog.index live there).
  std::string datadir(int i) const { return must({"datadir", std::to_string(i)}); }
  /// True when `status` lists instance i as running.
  bool running(int i) const;
  /// SQL as root through the chroot's mysql client (-N -B): tab-separated rows; in batch mode
  /// the client prints a newline inside a value as the two characters "\n".
  std::string sql(int i, const std::string& statement) const;

  /// Options for instance i as one of the sandbox accounts: "root", "repl", "bloodraven", "app".
  mysql::connect_options options(int i, const std::string& user = "bloodraven") const;

  const std::string& script() const { return script_; }

 private:
  std::string script_;
};

/// "\\n" (as printed by the batch client) back to a real newline.
std::string unescape_batch(std::string text);

}  // namespace br::test
