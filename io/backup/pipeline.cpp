// Pipeline of child processes with a deadline (see pipeline.hpp).
#include "io/backup/pipeline.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <thread>

namespace br::backup {
namespace {

using clock = std::chrono::steady_clock;

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void set_nonblocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

void keep_tail(std::string& s, std::string_view add, size_t keep) {
  s.append(add);
  if (s.size() > keep) s.erase(0, s.size() - keep);
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

std::string resolve_executable(const std::string& name, const std::string& path) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  std::stringstream ss(path);
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (dir.empty()) continue;
    std::string p = dir + "/" + name;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return "";
}

std::string pipeline_result::describe(const std::vector<command>& cmds) const {
  std::string out = error;
  for (size_t i = 0; i < cmds.size() && i < exit_codes.size(); ++i) {
    std::string tail = i < stderr_tails.size() ? stderr_tails[i] : "";
    for (auto& c : tail)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    while (!tail.empty() && tail.back() == ' ') tail.pop_back();
    if (exit_codes[i] == 0 && tail.empty()) continue;
    std::string name = cmds[i].argv.empty() ? "?" : cmds[i].argv[0];
    if (auto s = name.rfind('/'); s != std::string::npos) name = name.substr(s + 1);
    out += "; " + name + " exit " + std::to_string(exit_codes[i]);
    if (!tail.empty()) out += ": " + tail;
  }
  return out;
}

pipeline_result run_pipeline(const std::vector<command>& cmds, const pipeline_options& o) {
  pipeline_result r;
  const size_t n = cmds.size();
  r.exit_codes.assign(n, -1);
  r.stderr_tails.assign(n, {});
  if (n == 0) {
    r.error = "nothing to run";
    return r;
  }
  // A child that exits while we write its stdin must not kill us with SIGPIPE (EPIPE instead).
  ::signal(SIGPIPE, SIG_IGN);
  const auto until = clock::now() + o.deadline;

  // Everything the children need is built before fork (async-signal-safe calls only after it).
  std::vector<std::string> paths(n);
  std::vector<std::vector<char*>> argvs(n);
  for (size_t i = 0; i < n; ++i) {
    if (cmds[i].argv.empty()) {
      r.error = "empty command";
      return r;
    }
    paths[i] = resolve_executable(cmds[i].argv[0], "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
    if (paths[i].empty()) {
      r.error = "executable not found: " + cmds[i].argv[0];
      return r;
    }
    for (const auto& a : cmds[i].argv) argvs[i].push_back(const_cast<char*>(a.c_str()));
    argvs[i].push_back(nullptr);
  }
  std::vector<char*> envp;
  for (const auto& e : o.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  int devnull_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int devnull_out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  int in_w = -1, out_r = -1;
  std::vector<int> err_r(n, -1);
  std::vector<pid_t> pids(n, -1);
  pid_t pgid = 0;
  int prev_read = -1;  // stdin of the next child
  if (o.input) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) {
      r.error = std::string("pipe: ") + std::strerror(errno);
      return r;
    }
    prev_read = p[0];
    in_w = p[1];
  } else {
    prev_read = ::fcntl(devnull_in, F_DUPFD_CLOEXEC, 3);
  }
  for (size_t i = 0; i < n && r.error.empty(); ++i) {
    int out_w = -1, next_read = -1;
    int p[2];
    if (i + 1 < n || o.output) {
      if (::pipe2(p, O_CLOEXEC) != 0) {
        r.error = std::string("pipe: ") + std::strerror(errno);
        break;
      }
      next_read = p[0];
      out_w = p[1];
    } else {
      out_w = ::fcntl(devnull_out, F_DUPFD_CLOEXEC, 3);
    }
    int e[2];
    if (::pipe2(e, O_CLOEXEC) != 0) {
      r.error = std::string("pipe: ") + std::strerror(errno);
      close_fd(out_w);
      close_fd(next_read);
      break;
    }
    const pid_t pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, pgid);
      ::signal(SIGPIPE, SIG_DFL);
      ::dup2(prev_read, 0);
      ::dup2(out_w, 1);
      ::dup2(e[1], 2);
      ::syscall(SYS_close_range, 3u, ~0u, 0u);
      ::execve(paths[i].c_str(), argvs[i].data(), envp.data());
      ::_exit(127);
    }
    close_fd(prev_read);
    close_fd(out_w);
    ::close(e[1]);
    if (pid < 0) {
      r.error = std::string("fork: ") + std::strerror(errno);
      ::close(e[0]);
      close_fd(next_read);
      break;
    }
    if (pgid == 0) pgid = pid;
    ::setpgid(pid, pgid);  // also from here: no race with the first kill
    pids[i] = pid;
    err_r[i] = e[0];
    set_nonblocking(e[0]);
    prev_read = next_read;
  }
  close_fd(devnull_in);
  close_fd(devnull_out);
  if (o.output && prev_read >= 0) {
    out_r = prev_read;
    set_nonblocking(out_r);
  } else {
    close_fd(prev_read);
  }
  if (!r.error.empty()) close_fd(in_w);
  if (in_w >= 0) set_nonblocking(in_w);

  bool killed = false;
  auto kill_all = [&](const std::string& why) {
    if (r.error.empty()) r.error = why;
    if (!killed && pgid > 0) ::kill(-pgid, SIGKILL);
    killed = true;
    close_fd(in_w);
  };
  if (!r.error.empty()) kill_all(r.error);

  std::string pending;  // input read but not yet written
  size_t pending_off = 0;
  bool input_done = !o.input;
  std::vector<char> buf(1 << 16);
  while (true) {
    std::vector<pollfd> fds;
    std::vector<int*> which;
    if (in_w >= 0) {
      if (pending_off >= pending.size() && !input_done) {
        pending.resize(1 << 16);
        long got = o.input(pending.data(), pending.size());
        if (got < 0) {
          pending.clear();
          kill_all("input failed");
        } else {
          pending.resize(static_cast<size_t>(got));
          pending_off = 0;
          if (got == 0) input_done = true;
        }
      }
      if (in_w >= 0 && pending_off >= pending.size() && input_done) close_fd(in_w);
      if (in_w >= 0) {
        fds.push_back({in_w, POLLOUT, 0});
        which.push_back(&in_w);
      }
    }
    if (out_r >= 0) {
      fds.push_back({out_r, POLLIN, 0});
      which.push_back(&out_r);
    }
    for (auto& fd : err_r)
      if (fd >= 0) {
        fds.push_back({fd, POLLIN, 0});
        which.push_back(&fd);
      }
    if (fds.empty()) break;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - clock::now()).count();
    if (left <= 0) {
      if (!killed) {
        r.timed_out = true;
        kill_all("deadline of " + std::to_string(o.deadline.count() / 1000) + " s passed, killed");
      } else {
        // Killed and a pipe is still open (a grandchild outside the group holds it): give up.
        for (auto* fd : which) close_fd(*fd);
        break;
      }
      left = 2000;  // let the killed children's pipes close
    }
    int pr = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left, 1000)));
    if (pr < 0) {
      if (errno == EINTR) continue;
      kill_all(std::string("poll: ") + std::strerror(errno));
      for (auto* fd : which) close_fd(*fd);
      break;
    }
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      int* fd = which[k];
      if (fd == &in_w) {
        if (fds[k].revents & (POLLERR | POLLHUP)) {
          close_fd(in_w);  // the reader went away; its exit code tells why
          continue;
        }
        ssize_t w = ::write(in_w, pending.data() + pending_off, pending.size() - pending_off);
        if (w > 0) {
          pending_off += static_cast<size_t>(w);
        } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
          close_fd(in_w);
        }
        continue;
      }
      ssize_t got = ::read(*fd, buf.data(), buf.size());
      if (got > 0) {
        std::string_view chunk(buf.data(), static_cast<size_t>(got));
        if (fd == &out_r) {
          if (!killed && !o.output(chunk)) kill_all("output failed");
        } else {
          size_t idx = static_cast<size_t>(fd - err_r.data());
          keep_tail(r.stderr_tails[idx], chunk, o.stderr_keep);
        }
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        close_fd(*fd);
      }
    }
  }
  close_fd(in_w);
  // Reap; a child that outlives its closed pipes past the deadline is killed with the group.
  for (size_t i = 0; i < n; ++i) {
    if (pids[i] <= 0) continue;
    while (true) {
      int status = 0;
      pid_t w = ::waitpid(pids[i], &status, WNOHANG);
      if (w == pids[i]) {
        r.exit_codes[i] = exit_code_of(status);
        break;
      }
      if (w < 0 && errno != EINTR) break;
      if (clock::now() >= until && !killed) {
        r.timed_out = true;
        kill_all("deadline of " + std::to_string(o.deadline.count() / 1000) + " s passed, killed");
      }
      if (killed && clock::now() >= until + std::chrono::seconds(10)) break;  // unkillable: give up
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  if (r.error.empty()) {
    for (size_t i = 0; i < n; ++i)
      if (r.exit_codes[i] != 0) {
        r.error = "command failed";
        break;
      }
  }
  return r;
}

}  // namespace br::backup
