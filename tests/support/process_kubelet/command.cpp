// Process kubelet (tests): bounded commands and detached container processes.
#include "tests/support/process_kubelet/command.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

namespace br::test::kubelet {
namespace {

std::vector<char*> c_strings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

void close_from(int first) {
  for (int fd = first; fd < 1024; ++fd) ::close(fd);
}

}  // namespace

command_result run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                   const std::string& input) {
  command_result r;
  if (argv.empty()) return r;
  int out[2], in[2];
  if (::pipe2(out, O_CLOEXEC) != 0) return r;
  if (::pipe2(in, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return r;
  }
  auto args = c_strings(argv);
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out[0], out[1], in[0], in[1]}) ::close(fd);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(out[1], 2);
    close_from(3);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out[1]);
  ::close(in[0]);
  if (!input.empty()) {
    // Small inputs only (rules, scripts): fits the pipe buffer.
    [[maybe_unused]] auto n = ::write(in[1], input.data(), input.size());
  }
  ::close(in[1]);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buf[4096];
  bool eof = false;
  int status = 0;
  bool exited = false;
  while (true) {
    if (!exited) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) exited = true;
    }
    if (exited && eof) break;
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      r.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);
      if (!exited) ::waitpid(pid, &status, 0);
      exited = true;
      break;
    }
    if (eof) {
      ::usleep(5000);
      continue;
    }
    pollfd p{out[0], POLLIN, 0};
    const int ms = static_cast<int>(
        std::min<long long>(50, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1));
    if (::poll(&p, 1, ms) > 0) {
      ssize_t n = ::read(out[0], buf, sizeof buf);
      if (n > 0) {
        r.output.append(buf, static_cast<size_t>(n));
      } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
        eof = true;
      }
    } else if (exited) {
      // The process is gone but a grandchild may keep the pipe open: do not wait for it.
      eof = true;
    }
  }
  ::close(out[0]);
  r.exit_code = r.timed_out ? -1 : exit_code_of(status);
  return r;
}

pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env,
            const std::string& log_path) {
  if (argv.empty()) return -1;
  auto args = c_strings(argv);
  auto envp = c_strings(env);
  const int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) return -1;
  const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setsid();
    ::dup2(null, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    close_from(3);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(args[0], args.data(), envp.data());
    ::_exit(127);
  }
  ::close(log);
  if (null >= 0) ::close(null);
  return pid;
}

int reap(pid_t pid) {
  int status = 0;
  pid_t w = ::waitpid(pid, &status, WNOHANG);
  if (w == pid) return exit_code_of(status);
  if (w < 0 && errno == ECHILD) return 255;  // not ours any more: treat as exited
  return -1;
}

std::string mount_namespace_of(pid_t pid) {
  char buf[128];
  const std::string path = "/proc/" + std::to_string(pid) + "/ns/mnt";
  ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return {};
  return std::string(buf, static_cast<size_t>(n));
}

std::vector<pid_t> pids_in_mount_namespace(const std::string& mnt_ns) {
  std::vector<pid_t> out;
  if (mnt_ns.empty()) return out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (dirent* e = ::readdir(d)) {
    char* end = nullptr;
    long v = std::strtol(e->d_name, &end, 10);
    if (v <= 0 || *end != '\0') continue;
    if (mount_namespace_of(static_cast<pid_t>(v)) == mnt_ns) out.push_back(static_cast<pid_t>(v));
  }
  ::closedir(d);
  return out;
}

}  // namespace br::test::kubelet
