// Chaos harness: run short commands (captured) and long-lived processes (logging to a file), by PID.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "tests/support/child_process.hpp"

namespace br::chaos {

struct run_result {
  int exit_code = -1;  ///< 128+signal when killed, -1 when it could not start
  std::string output;  ///< stdout and stderr interleaved
};

/// Runs argv[0] (a path) with argv, waits at most `deadline` (then SIGKILLs it), captures output.
run_result run(const std::vector<std::string>& argv, std::chrono::milliseconds deadline);

/// A long-lived child with stdout+stderr appended to a log file (never a pipe: nobody would drain
/// it during a scenario and the child would block on a full pipe). It runs in its own process
/// group; every signal goes to its PID only.
class process {
 public:
  process() = default;
  process(const process&) = delete;
  process& operator=(const process&) = delete;
  ~process() { kill_and_reap(); }

  /// Starts argv (argv[0] a path) with `env` added to this process's environment.
  void start(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
             const std::string& log_path);
  pid_t pid() const { return pid_; }
  bool running();
  void signal(int sig) const;
  /// Waits for exit up to `deadline`; true when it exited (and was reaped).
  bool wait_exit(std::chrono::milliseconds deadline);
  /// Like wait_exit, returning the exit code (128+signal) when it exited in time.
  std::optional<int> wait_exit_code(std::chrono::milliseconds deadline);
  /// SIGKILL (if running) and reap; idempotent.
  void kill_and_reap();
  /// SIGTERM, wait up to `deadline`, then SIGKILL.
  void stop(std::chrono::milliseconds deadline);

 private:
  pid_t pid_ = -1;
  int last_exit_ = -1;
};

/// A TCP port that was free on the host when asked (tests/support/child_process).
using br::test::free_port;

/// Milliseconds on the steady clock since an arbitrary process-wide origin.
int64_t now_ms();

}  // namespace br::chaos
