// mysql_sandbox: fork/exec of tools/mysql-sandbox with captured stdout/stderr.
#include "tests/support/mysql_sandbox.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace br::test {
namespace {

std::string join(const std::vector<std::string>& args) {
  std::string out;
  for (const auto& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

void trim_newlines(std::string& s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
}

}  // namespace

mysql_sandbox::mysql_sandbox() {
  const char* src = std::getenv("BR_SOURCE_DIR");
  script_ = std::string(src != nullptr ? src : ".") + "/tools/mysql-sandbox";
}

mysql_sandbox::outcome mysql_sandbox::run(const std::vector<std::string>& args) const {
  outcome result;
  // Everything the child needs is built before fork(): the test process is multi-threaded (CAF
  // workers, in-process operators), so between fork and exec the child may only make
  // async-signal-safe calls. An allocation there can block forever on an allocator lock that
  // another thread held at the fork (seen with ASan: integration_kube_e2e hung in `port`).
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(script_.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int out_pipe[2];
  int err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return result;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return result;
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);  // dup2 clears close-on-exec on the copies
    dup2(err_pipe[1], STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  if (pid < 0) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    result.err = "fork failed";
    return result;
  }
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open_fds = 2;
  char buf[4096];
  const auto until = std::chrono::steady_clock::now() + command_deadline;
  bool killed = false;
  while (open_fds > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                    until - std::chrono::steady_clock::now())
                    .count();
    if (left <= 0) {
      if (killed) break;  // killed and its pipes still open (a grandchild holds them): give up
      ::kill(pid, SIGKILL);
      killed = true;
      result.err += "mysql-sandbox " + join(args) + ": no exit within " +
                    std::to_string(command_deadline.count()) + " s, killed\n";
      left = 0;
    }
    int n = poll(fds, 2, static_cast<int>(std::clamp<long long>(left, 1, 1000)));
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int k = 0; k < 2; ++k) {
      if (fds[k].fd < 0 || fds[k].revents == 0) continue;
      ssize_t r = read(fds[k].fd, buf, sizeof buf);
      if (r > 0) {
        sinks[k]->append(buf, static_cast<size_t>(r));
      } else if (r == 0 || errno != EINTR) {
        close(fds[k].fd);
        fds[k].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  trim_newlines(result.out);
  return result;
}

std::string mysql_sandbox::must(const std::vector<std::string>& args) const {
  auto r = run(args);
  if (r.exit_code != 0)
    throw std::runtime_error("mysql-sandbox " + join(args) + " failed (exit " +
                             std::to_string(r.exit_code) + "): " + r.err + r.out);
  return r.out;
}

uint16_t mysql_sandbox::port(int i) const {
  auto text = must({"port", std::to_string(i)});
  return static_cast<uint16_t>(std::stoul(text));
}

bool mysql_sandbox::running(int i) const {
  auto r = run({"status"});
  const std::string needle = "instance " + std::to_string(i) + " ";
  size_t pos = 0;
  while ((pos = r.out.find(needle, pos)) != std::string::npos) {
    if (pos == 0 || r.out[pos - 1] == '\n') {
      auto eol = r.out.find('\n', pos);
      auto line = r.out.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
      return line.find("state running") != std::string::npos;
    }
    pos += needle.size();
  }
  return false;
}

std::string mysql_sandbox::sql(int i, const std::string& statement) const {
  return must({"sql", std::to_string(i), statement});
}

mysql::connect_options mysql_sandbox::options(int i, const std::string& user) const {
  mysql::connect_options o;
  o.host = "127.0.0.1";
  o.port = port(i);
  o.user = user;
  o.password = user + "pw";  // the sandbox's convention: rootpw, replpw, bloodravenpw, apppw
  o.connect_timeout = std::chrono::seconds{3};
  o.read_timeout = std::chrono::seconds{10};
  o.write_timeout = std::chrono::seconds{10};
  return o;
}

std::string unescape_batch(std::string text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size()) {
      char c = text[++i];
      out.push_back(c == 'n' ? '\n' : c == 't' ? '\t' : c == '0' ? '\0' : c);
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

}  // namespace br::test
