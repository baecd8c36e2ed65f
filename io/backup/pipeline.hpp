// Runs external tools (mysqldump, mysql, mysqlbinlog) as one pipeline of child processes in their
// own process group, with a hard deadline: on it the whole group is SIGKILLed. stdin can be fed
// from a callback, stdout handed to a callback, and each child's stderr is kept, bounded (its
// last bytes), for the FAILED line. Nothing is run through a shell; argv only.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace br::backup {

struct command {
  std::vector<std::string> argv;  ///< argv[0]: an absolute path or a name looked up in PATH
};

struct pipeline_options {
  /// Feeds the first command's stdin: fills `buf` (up to `cap` bytes), returns the count; 0 = end
  /// of input; a negative value aborts the pipeline (error "input failed"). Empty: /dev/null.
  std::function<long(char* buf, size_t cap)> input;
  /// Receives the last command's stdout; false aborts the pipeline. Empty: discarded.
  std::function<bool(std::string_view)> output;
  /// The whole pipeline; on it every process of the group is SIGKILLed.
  std::chrono::milliseconds deadline{std::chrono::hours(6)};
  /// Environment of the children (whole, not added to ours): "NAME=value".
  std::vector<std::string> env;
  /// Bytes of each command's stderr kept (the last ones).
  size_t stderr_keep = 2048;
};

struct pipeline_result {
  std::vector<int> exit_codes;            ///< per command: exit code, 128+signal, -1 not started
  std::vector<std::string> stderr_tails;  ///< per command, bounded
  bool timed_out = false;
  std::string error;  ///< "" = every command ran and exited 0 and no callback aborted

  bool ok() const { return error.empty(); }
  /// One line: the error and each failing command's stderr tail (newlines folded).
  std::string describe(const std::vector<command>& cmds) const;
};

/// Runs `cmds` connected stdout -> stdin. Blocking; returns when every child has exited (after
/// the deadline or an abort they are killed first). Safe to call from a multi-threaded process:
/// the children only make async-signal-safe calls before exec.
pipeline_result run_pipeline(const std::vector<command>& cmds, const pipeline_options& o);

/// `name` looked up in `path` (':'-separated) when it has no '/'; "" when not found.
std::string resolve_executable(const std::string& name, const std::string& path);

}  // namespace br::backup
