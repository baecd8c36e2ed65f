// Chaos harness process helpers: fork/exec with captured output or a log file, reaping by PID.
#include "tests/chaos/chaos_proc.hpp"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace br::chaos {

namespace {

std::vector<char*> c_argv(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// Reaps `pid` if it exited; stores its code. True when it is gone.
bool try_reap(pid_t pid, int& code) {
  int st = 0;
  pid_t r = waitpid(pid, &st, WNOHANG);
  if (r == pid) {
    code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return true;
  }
  return r < 0 && errno == ECHILD;
}

}  // namespace

int64_t now_ms() {
  static const auto origin = std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                origin)
      .count();
}

run_result run(const std::vector<std::string>& argv_in, std::chrono::milliseconds deadline) {
  run_result res;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return res;
  auto argv = argv_in;
  auto cargv = c_argv(argv);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return res;
  }
  if (pid == 0) {
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    execv(cargv[0], cargv.data());
    _exit(127);
  }
  close(fds[1]);
  auto until = std::chrono::steady_clock::now() + deadline;
  bool killed = false;
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    until - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0 && !killed) {
      ::kill(pid, SIGKILL);
      killed = true;
      left = 2000;
    }
    pollfd p{fds[0], POLLIN, 0};
    int n = poll(&p, 1, static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(left, 200))));
    if (n > 0) {
      ssize_t r = read(fds[0], buf, sizeof buf);
      if (r > 0) {
        res.output.append(buf, static_cast<size_t>(r));
        continue;
      }
      break;  // EOF (or error): the child closed its end
    }
    if (killed && left <= 0) break;
  }
  close(fds[0]);
  int st = 0;
  waitpid(pid, &st, 0);
  res.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  return res;
}

void process::start(const std::vector<std::string>& argv_in,
                    const std::map<std::string, std::string>& env, const std::string& log_path) {
  kill_and_reap();
  int log = open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error("cannot open log " + log_path);
  auto argv = argv_in;
  auto cargv = c_argv(argv);
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    auto k = kv.substr(0, kv.find('='));
    if (!env.count(k)) envs.push_back(kv);
  }
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  auto cenv = c_argv(envs);
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    close(log);
    throw std::runtime_error("fork failed");
  }
  if (pid == 0) {
    // Dies with the runner even when the runner is SIGKILLed (ctest timeout, Ctrl-C in
    // tools/chaos.sh): the death signal survives exec (nsenter -> sidecar).
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the runner died before prctl
    setpgid(0, 0);
    dup2(log, 1);
    dup2(log, 2);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  close(log);
  pid_ = pid;
}

bool process::running() {
  if (pid_ <= 0) return false;
  int code = -1;
  if (try_reap(pid_, code)) {
    last_exit_ = code;
    pid_ = -1;
    return false;
  }
  return true;
}

std::optional<int> process::wait_exit_code(std::chrono::milliseconds deadline) {
  if (!wait_exit(deadline)) return std::nullopt;
  return last_exit_;
}

void process::signal(int sig) const {
  if (pid_ > 0) ::kill(pid_, sig);
}

bool process::wait_exit(std::chrono::milliseconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  while (running()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

void process::kill_and_reap() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int st = 0;
  waitpid(pid_, &st, 0);
  pid_ = -1;
}

void process::stop(std::chrono::milliseconds deadline) {
  if (!running()) return;
  signal(SIGTERM);
  if (!wait_exit(deadline)) kill_and_reap();
}

}  // namespace br::chaos
