// Valkey test server from the sandbox chroot (see valkey_server.hpp).
#include "tests/support/valkey_server.hpp"

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

#include "tests/support/child_process.hpp"

namespace br::test {
namespace {

using namespace std::chrono_literals;

std::string chroot_root() {
  const char* src = std::getenv("BR_SOURCE_DIR");
  if (src == nullptr || *src == '\0') throw std::runtime_error("valkey_server: BR_SOURCE_DIR is not set");
  child_process install(std::string(src) + "/tools/mysql-sandbox", {"valkey-install"});
  auto code = install.wait_exit(900s);
  if (!code || *code != 0) throw std::runtime_error("valkey_server: mysql-sandbox valkey-install failed: " + install.output());
  std::string out = install.output();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  auto root = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  if (!std::filesystem::is_directory(root)) throw std::runtime_error("valkey_server: no chroot at '" + root + "'");
  return root;
}

}  // namespace

valkey_server::valkey_server(std::string password, uint16_t port)
    : root_(chroot_root()), password_(std::move(password)), port_(port ? port : free_port()) {
  start();
}

valkey_server::~valkey_server() = default;  // child_process SIGKILLs a running child

void valkey_server::start() {
  proc_.reset();
  // Its own directory, wiped at every start: a replica's full sync writes the master's RDB there,
  // which a restart would load (a Dragonfly pod restarts on an empty emptyDir).
  const std::string dir = "/tmp/br-valkey-" + std::to_string(port_);
  std::error_code ec;
  std::filesystem::remove_all(root_ + dir, ec);
  std::filesystem::create_directories(root_ + dir);
  std::vector<std::string> args = {root_, "/usr/bin/valkey-server", "--port", std::to_string(port_),
                                   "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                                   "--dir", dir, "--daemonize", "no", "--loglevel", "notice"};
  if (!password_.empty()) {
    args.push_back("--requirepass");
    args.push_back(password_);
    args.push_back("--masterauth");  // its replicas' and its own REPLICAOF use the same password
    args.push_back(password_);
  }
  proc_ = std::make_unique<child_process>("/usr/sbin/chroot", args);
  if (!proc_->wait_for_line("Ready to accept connections", 30s))
    throw std::runtime_error("valkey_server: not ready on port " + std::to_string(port_) + ": " + proc_->output());
}

void valkey_server::pause() { proc_->signal(SIGSTOP); }
void valkey_server::resume() { proc_->signal(SIGCONT); }

void valkey_server::kill9() {
  if (!proc_) return;
  proc_->signal(SIGCONT);
  proc_->signal(SIGKILL);
  proc_->wait_exit(10s);
  proc_.reset();
}

bool valkey_server::running() const { return proc_ != nullptr; }
std::string valkey_server::output() const { return proc_ ? proc_->output() : std::string(); }

}  // namespace br::test
