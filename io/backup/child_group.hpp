// One long-running child process (the ephemeral mysqld of `bloodraven backup verify`) in a
// process group of its own, with its output appended to a file, and a bounded stop: SIGTERM to
// the whole group, then SIGKILL at the deadline, then reaped. The destructor stops it too, so no
// path (failure, timeout, exception) leaves it running. Termination signals of this process
// (SIGTERM/SIGINT, after install_termination_handler) SIGKILL every running group at once, so a
// cancelled command fails fast and still cleans up.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "io/backup/pipeline.hpp"

namespace br::backup {

class child_group {
 public:
  child_group() = default;
  ~child_group();
  child_group(const child_group&) = delete;
  child_group& operator=(const child_group&) = delete;

  /// Starts `cmd` (argv only, environment `env` whole) with stdin /dev/null and stdout/stderr
  /// appended to `output_path` ("" = /dev/null). "" or what failed.
  std::string start(const command& cmd, const std::vector<std::string>& env, const std::string& output_path);

  bool started() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  /// The exit code (128+signal when killed) once it has exited; nullopt while it runs. Reaps.
  std::optional<int> poll_exit();

  struct stop_report {
    bool was_running = false;  ///< it still ran when stop began
    bool killed = false;       ///< it ignored SIGTERM past the grace period and was SIGKILLed
    bool reaped = true;        ///< false: it survived SIGKILL for 10 s (not expected)
    std::chrono::milliseconds took{0};
  };
  /// SIGTERM to the group, waits up to `grace`, then SIGKILL and up to 10 s more. Idempotent.
  stop_report stop(std::chrono::milliseconds grace);

 private:
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

/// SIGTERM and SIGINT SIGKILL every started child_group (their process groups) and are then
/// remembered; the program goes on and fails its current step. Idempotent.
void install_termination_handler();
/// The signal received (0 = none).
int termination_signal();

}  // namespace br::backup
