// Child-process test helper: fork/exec with a pipe, poll-based line reading with deadlines.
#include "tests/support/child_process.hpp"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace br::test {

child_process::child_process(std::string path, std::vector<std::string> args,
                             std::map<std::string, std::string> env) {
  // argv and the environment are built before fork(): the test process is multi-threaded, so
  // the child may only make async-signal-safe calls until exec (an allocation can deadlock on a
  // lock another thread held at the fork).
  std::vector<char*> argv;
  argv.push_back(path.data());
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string kv = *e;
    if (env.count(kv.substr(0, kv.find('='))) == 0) env_strings.push_back(std::move(kv));
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& kv : env_strings) envp.push_back(kv.data());
  envp.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error("fork failed");
  }
  if (pid_ == 0) {
    dup2(fds[1], 1);  // dup2 clears close-on-exec on the copies
    dup2(fds[1], 2);
    execve(argv[0], argv.data(), envp.data());
    static const char msg[] = "exec failed\n";
    ssize_t ignored = write(2, msg, sizeof msg - 1);
    (void)ignored;
    _exit(127);
  }
  close(fds[1]);
  fd_ = fds[0];
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
}

child_process::~child_process() {
  if (!exit_code_ && pid_ > 0) {
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  if (fd_ >= 0) close(fd_);
}

void child_process::pump(std::chrono::milliseconds wait) {
  pollfd p{fd_, POLLIN, 0};
  if (poll(&p, 1, static_cast<int>(wait.count())) <= 0) return;
  char buf[4096];
  for (;;) {
    auto n = read(fd_, buf, sizeof buf);
    if (n <= 0) break;
    output_.append(buf, static_cast<size_t>(n));
  }
}

std::optional<std::string> child_process::wait_for_line(const std::string& needle,
                                                        std::chrono::milliseconds deadline) {
  auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    for (;;) {
      auto eol = output_.find('\n', scanned_);
      if (eol == std::string::npos) break;
      auto line = output_.substr(scanned_, eol - scanned_);
      scanned_ = eol + 1;
      if (line.find(needle) != std::string::npos) return line;
    }
    auto now = std::chrono::steady_clock::now();
    if (now >= until) return std::nullopt;
    pump(std::min(std::chrono::duration_cast<std::chrono::milliseconds>(until - now),
                  std::chrono::milliseconds(50)));
  }
}

std::optional<int> child_process::wait_exit(std::chrono::milliseconds deadline) {
  if (exit_code_) return exit_code_;
  auto until = std::chrono::steady_clock::now() + deadline;
  for (;;) {
    int status = 0;
    auto r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      pump(std::chrono::milliseconds(0));
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    if (std::chrono::steady_clock::now() >= until) return std::nullopt;
    pump(std::chrono::milliseconds(20));
  }
}

void child_process::signal(int sig) {
  if (!exit_code_ && pid_ > 0) ::kill(pid_, sig);
}

std::string binary_path(const std::string& name) {
  const char* dir = std::getenv("BR_BINARY_DIR");
  return std::string(dir ? dir : ".") + "/actors/" + name;
}

uint16_t free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) throw std::runtime_error("socket failed");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_ANY);
  a.sin_port = 0;
  socklen_t len = sizeof a;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(s);
    throw std::runtime_error("bind(0) failed");
  }
  ::close(s);
  return ntohs(a.sin_port);
}

int listening_port(const std::string& log_line) {
  auto j = nlohmann::json::parse(log_line, nullptr, false);
  if (j.is_discarded() || !j.contains("port")) return 0;
  return j["port"].get<int>();
}

}  // namespace br::test
