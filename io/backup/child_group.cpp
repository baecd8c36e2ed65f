// A child process group with a bounded stop (see child_group.hpp).
#include "io/backup/child_group.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>

namespace br::backup {
namespace {

using clock = std::chrono::steady_clock;

// Process groups the termination handler kills; a fixed table (async-signal-safe).
constexpr int max_groups = 8;
std::atomic<pid_t> groups[max_groups];
std::atomic<int> received_signal{0};

void remember(pid_t pgid) {
  for (auto& g : groups) {
    pid_t none = 0;
    if (g.compare_exchange_strong(none, pgid)) return;
  }
}

void forget(pid_t pgid) {
  for (auto& g : groups) {
    pid_t want = pgid;
    g.compare_exchange_strong(want, 0);
  }
}

extern "C" void on_termination(int sig) {
  received_signal.store(sig);
  for (auto& g : groups) {
    pid_t p = g.load();
    if (p > 0) ::kill(-p, SIGKILL);
  }
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

child_group::~child_group() { stop(std::chrono::seconds(30)); }

std::string child_group::start(const command& cmd, const std::vector<std::string>& env,
                               const std::string& output_path) {
  if (pid_ > 0) return "already started";
  if (cmd.argv.empty()) return "empty command";
  auto path = resolve_executable(cmd.argv[0], "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  if (path.empty()) return "executable not found: " + cmd.argv[0];
  std::vector<char*> argv;
  for (const auto& a : cmd.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int out = output_path.empty() ? ::open("/dev/null", O_WRONLY | O_CLOEXEC)
                                : ::open(output_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (in < 0 || out < 0) {
    std::string e = std::string("cannot open ") + (out < 0 ? output_path : "/dev/null") + ": " + std::strerror(errno);
    if (in >= 0) ::close(in);
    if (out >= 0) ::close(out);
    return e;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setpgid(0, 0);
    ::signal(SIGPIPE, SIG_DFL);
    ::signal(SIGTERM, SIG_DFL);
    ::signal(SIGINT, SIG_DFL);
    ::dup2(in, 0);
    ::dup2(out, 1);
    ::dup2(out, 2);
    ::syscall(SYS_close_range, 3u, ~0u, 0u);
    ::execve(path.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(in);
  ::close(out);
  if (pid < 0) return std::string("fork: ") + std::strerror(errno);
  ::setpgid(pid, pid);  // also from here: no race with an early kill
  pid_ = pid;
  remember(pid);
  return "";
}

std::optional<int> child_group::poll_exit() {
  if (exit_code_ || pid_ <= 0) return exit_code_;
  int status = 0;
  pid_t w = ::waitpid(pid_, &status, WNOHANG);
  if (w == pid_) exit_code_ = exit_code_of(status);
  else if (w < 0 && errno == ECHILD) exit_code_ = -1;
  return exit_code_;
}

child_group::stop_report child_group::stop(std::chrono::milliseconds grace) {
  stop_report rep;
  if (pid_ <= 0) return rep;
  const auto t0 = clock::now();
  rep.was_running = !poll_exit().has_value();
  if (!rep.was_running) {  // exited and reaped already: its id may be reused, signal nothing
    forget(pid_);
    pid_ = -1;
    return rep;
  }
  // The group, not only the leader: whatever it started goes too.
  ::kill(-pid_, SIGTERM);
  auto wait_until = [&](clock::time_point until) {
    while (!poll_exit()) {
      if (clock::now() >= until) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  };
  if (!wait_until(t0 + grace)) {
    rep.killed = true;
    ::kill(-pid_, SIGKILL);
    rep.reaped = wait_until(clock::now() + std::chrono::seconds(10));
  }
  // Members of the group that outlived the leader (none expected) are killed as well.
  ::kill(-pid_, SIGKILL);
  forget(pid_);
  rep.took = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - t0);
  pid_ = -1;
  return rep;
}

void install_termination_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_termination;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGINT, &sa, nullptr);
}

int termination_signal() { return received_signal.load(); }

}  // namespace br::backup
