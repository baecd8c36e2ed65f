// Process kubelet (tests): bounded commands and detached container processes.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <sys/types.h>

namespace br::test::kubelet {

struct command_result {
  int exit_code = -1;  ///< 128+signal when killed; -1 when it could not start
  bool timed_out = false;
  std::string output;  ///< stdout and stderr, interleaved
  bool ok() const { return exit_code == 0 && !timed_out; }
};

/// Runs argv (argv[0] looked up in PATH) with `input` on stdin; SIGKILLs its process group when
/// `timeout` passes. Never blocks longer than timeout + a little.
command_result run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                   const std::string& input = {});

/// Starts argv (argv[0] absolute) with exactly `env` ("K=V") in a new session (pgid = pid),
/// stdout/stderr appended to `log_path`, stdin /dev/null. Returns the pid, -1 on failure.
pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& log_path);

/// Non-blocking: the exit code (128+signal) when `pid` (our child) has exited, else -1.
int reap(pid_t pid);

/// Pids of the processes whose mount namespace is `mnt_ns` ("mnt:[...]" as readlink gives it).
std::vector<pid_t> pids_in_mount_namespace(const std::string& mnt_ns);
/// readlink /proc/<pid>/ns/mnt, "" when the process is gone.
std::string mount_namespace_of(pid_t pid);

}  // namespace br::test::kubelet
