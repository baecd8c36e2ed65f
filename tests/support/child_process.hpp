// Test helper: run one of our binaries as a child process, read its JSON-lines log, signal it.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <cstdint>
#include <string>
#include <vector>

#include <sys/types.h>

namespace br::test {

class child_process {
 public:
  /// Starts `path args...` with `env` added to the current environment; stdout and stderr go
  /// to a pipe read by wait_for_line/output.
  child_process(std::string path, std::vector<std::string> args,
                std::map<std::string, std::string> env = {});
  ~child_process();  // SIGKILLs the child if it still runs

  pid_t pid() const { return pid_; }
  /// Reads output until a line contains `needle` or the deadline passes.
  std::optional<std::string> wait_for_line(const std::string& needle,
                                           std::chrono::milliseconds deadline);
  /// Waits for exit up to `deadline`; returns the exit code (128+signal when killed) or nullopt.
  std::optional<int> wait_exit(std::chrono::milliseconds deadline);
  void signal(int sig);
  /// Everything read so far.
  const std::string& output() const { return output_; }

 private:
  void pump(std::chrono::milliseconds wait);
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string output_;
  size_t scanned_ = 0;
  std::optional<int> exit_code_;
};

/// Absolute path of a built binary (BR_BINARY_DIR/actors/<name>).
std::string binary_path(const std::string& name);
/// Extracts the port of the first "http server listening" log line; 0 when absent.
int listening_port(const std::string& log_line);
/// A TCP port that was free on every address when asked (bound to port 0, then released), so a
/// child can listen on it on loopback or on a namespace address. Throws when no socket is bound.
uint16_t free_port();

}  // namespace br::test
