// The throwaway server of backup verification (see ephemeral_mysqld.hpp).
#include "io/backup/ephemeral_mysqld.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "io/backup/job_common.hpp"
#include "io/crypto/ed25519.hpp"
#include "io/log/log.hpp"

namespace br::backup {
namespace {

using clock = std::chrono::steady_clock;

constexpr const char* verify_user = "bloodraven_verify";

/// A loopback port nothing listens on now (the kernel's choice); 0 when none could be had.
uint16_t free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  uint16_t port = 0;
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

std::string read_tail(const std::string& path, size_t keep) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return "";
  auto size = static_cast<size_t>(f.tellg());
  size_t from = size > keep ? size - keep : 0;
  f.seekg(static_cast<std::streamoff>(from));
  std::string s(size - from, '\0');
  f.read(s.data(), static_cast<std::streamsize>(s.size()));
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string ms_text(std::chrono::milliseconds d) { return std::to_string(d.count() / 1000) + " s"; }

}  // namespace

std::vector<std::string> ephemeral_init_args(const std::string& dir, const std::string& user,
                                             const ephemeral_options& o) {
  std::vector<std::string> a = {"--no-defaults", "--initialize-insecure"};
  if (!user.empty()) a.push_back("--user=" + user);
  a.insert(a.end(), {"--datadir=" + dir + "/data", "--tmpdir=" + dir + "/tmp", "--secure-file-priv=",
                     "--mysqlx=OFF", "--innodb-buffer-pool-size=" + o.buffer_pool_size,
                     "--init-file=" + dir + "/init.sql"});
  return a;
}

std::vector<std::string> ephemeral_run_args(const std::string& dir, const std::string& user, uint16_t port,
                                            const ephemeral_options& o) {
  std::vector<std::string> a = {"--no-defaults"};
  if (!user.empty()) a.push_back("--user=" + user);
  a.insert(a.end(),
           {"--datadir=" + dir + "/data", "--tmpdir=" + dir + "/tmp", "--socket=" + dir + "/mysqld.sock",
            "--pid-file=" + dir + "/mysqld.pid", "--log-error=" + dir + "/error.log",
            "--port=" + std::to_string(port), "--bind-address=127.0.0.1", "--skip-name-resolve",
            "--mysqlx=OFF", "--secure-file-priv=", "--server-id=1", "--gtid-mode=ON",
            "--enforce-gtid-consistency=ON", "--disable-log-bin", "--skip-replica-start",
            "--performance-schema=OFF", "--max-connections=32", "--max-allowed-packet=1G",
            "--innodb-buffer-pool-size=" + o.buffer_pool_size,
            // Thrown away afterwards: no durability needed, the restore goes faster without it.
            "--innodb-flush-log-at-trx-commit=2", "--innodb-doublewrite=OFF"});
  if (!o.tls_cert_file.empty())
    a.insert(a.end(), {"--ssl-ca=" + dir + "/tls-ca.pem", "--ssl-cert=" + dir + "/tls-cert.pem",
                       "--ssl-key=" + dir + "/tls-key.pem", "--require-secure-transport=ON"});
  return a;
}

std::string ephemeral_init_sql(const std::string& user, const std::string& password) {
  return "SET SESSION sql_log_bin = 0;\n"
         "CREATE USER '" + user + "'@'127.0.0.1' IDENTIFIED BY '" + password + "';\n"
         "GRANT ALL PRIVILEGES ON *.* TO '" + user + "'@'127.0.0.1' WITH GRANT OPTION;\n";
}

std::optional<std::pair<unsigned, unsigned>> passwd_ids(const std::string& passwd_text, const std::string& name) {
  std::istringstream in(passwd_text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ':');) f.push_back(x);
    if (f.size() < 4 || f[0] != name) continue;
    try {
      size_t u = 0, g = 0;
      auto uid = std::stoul(f[2], &u);
      auto gid = std::stoul(f[3], &g);
      if (u != f[2].size() || g != f[3].size()) return std::nullopt;
      return std::pair<unsigned, unsigned>{static_cast<unsigned>(uid), static_cast<unsigned>(gid)};
    } catch (...) {
      return std::nullopt;
    }
  }
  return std::nullopt;
}

ephemeral_mysqld::ephemeral_mysqld(ephemeral_options o) : o_(std::move(o)) {}

ephemeral_mysqld::~ephemeral_mysqld() { stop(); }

std::string ephemeral_mysqld::scratch() const { return dir_ ? dir_->host_path() : ""; }

void ephemeral_mysqld::keep_scratch() {
  if (dir_) dir_->keep();
}

std::string ephemeral_mysqld::error_log_tail() const {
  return dir_ ? read_tail(dir_->host_path("error.log"), 1500) : "";
}

std::string ephemeral_mysqld::start() {
  namespace fs = std::filesystem;
  std::string err;
  dir_ = std::make_unique<private_dir>(o_.tools, err);
  if (!err.empty()) return err;
  for (const char* sub : {"data", "tmp"}) {
    std::error_code ec;
    fs::create_directory(dir_->host_path(sub), ec);
    if (ec) return "cannot create " + dir_->host_path(sub) + ": " + ec.message();
  }
  // mysqld run by root switches to the mysql user (of the chroot when there is one): the scratch
  // directory must be that user's. Not root (a Job's container): it runs as we do.
  std::string user;
  std::optional<std::pair<unsigned, unsigned>> ids;
  if (::geteuid() == 0) {
    std::ifstream pw(o_.tools.chroot + "/etc/passwd");
    ids = passwd_ids(std::string((std::istreambuf_iterator<char>(pw)), {}), "mysql");
    user = ids ? "mysql" : "root";
  }
  auto give = [&](const std::string& p) -> std::string {
    if (!ids || ::chown(p.c_str(), ids->first, ids->second) == 0) return "";
    return "cannot give " + p + " to the mysql user: " + std::strerror(errno);
  };
  for (const std::string& p : {dir_->host_path(), dir_->host_path("data"), dir_->host_path("tmp")})
    if (auto e = give(p); !e.empty()) return e;
  const std::string password = crypto::to_hex(crypto::random_bytes(16));
  {
    auto path = dir_->host_path("init.sql");
    std::ofstream f(path, std::ios::trunc);
    f << ephemeral_init_sql(verify_user, password);
    f.close();
    if (!f) return "cannot write " + path;
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, ec);
    if (auto e = give(path); !e.empty()) return e;
  }
  if (!o_.tls_cert_file.empty()) {
    // The server's files, the mysql user's (mysqld reads them after switching to it).
    for (const auto& [from, name] : {std::pair{o_.tls_ca_file, "tls-ca.pem"}, std::pair{o_.tls_cert_file, "tls-cert.pem"},
                                     std::pair{o_.tls_key_file, "tls-key.pem"}}) {
      copy_into(*dir_, from, name, err);
      if (!err.empty()) return "the scratch server's TLS files (spec.tls): " + err;
      if (auto e = give(dir_->host_path(name)); !e.empty()) return e;
    }
  }
  const std::string inside = dir_->tool_path("");
  const std::string d = inside.substr(0, inside.size() - 1);  // tool_path("x") = <dir>/x
  auto env = tool_environment(*dir_);

  log::info("verify: initialising the scratch server", {{"dir", dir_->host_path()}});
  {
    std::vector<command> cmds = {tool_command(o_.tools, "mysqld", ephemeral_init_args(d, user, o_))};
    pipeline_options po;
    po.deadline = o_.init_timeout;
    po.env = env;
    auto pr = run_pipeline(cmds, po);
    std::error_code ec;
    fs::remove(dir_->host_path("init.sql"), ec);  // holds the password
    if (!pr.ok()) return "mysqld --initialize-insecure failed (deadline " + ms_text(o_.init_timeout) + "): " + pr.describe(cmds);
  }

  target_.host = "127.0.0.1";
  target_.tls_ca_file = o_.tls_ca_file;
  target_.user = verify_user;
  target_.password = password;
  const auto until = clock::now() + o_.start_timeout;
  for (int attempt = 1;; ++attempt) {
    target_.port = free_loopback_port();
    if (target_.port == 0) return "no free loopback port for the scratch server";
    auto cmd = tool_command(o_.tools, "mysqld", ephemeral_run_args(d, user, target_.port, o_));
    if (auto e = server_.start(cmd, env, dir_->host_path("mysqld.out")); !e.empty())
      return "cannot start mysqld: " + e;
    log::info("verify: scratch server starting", {{"port", target_.port}, {"pid", server_.pid()}});
    std::string last;
    while (true) {
      if (auto code = server_.poll_exit()) {
        auto tail = error_log_tail();
        server_.stop(std::chrono::seconds(1));
        // Lost the port to another process between choosing and binding it: once more.
        if (attempt < 3 && tail.find("already in use") != std::string::npos && clock::now() < until) break;
        return "the scratch mysqld exited with " + std::to_string(*code) + " while starting: " + tail;
      }
      auto c = open_session(target_);
      if (c) return "";
      last = c.error().to_string();
      if (clock::now() >= until) {
        auto r = server_.stop(o_.stop_timeout);
        killed_ = r.killed;
        return "the scratch mysqld did not accept the verify account within " + ms_text(o_.start_timeout) +
               " (last: " + last + "): " + error_log_tail();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
}

std::string ephemeral_mysqld::stop() {
  if (!server_.started()) return "";
  auto r = server_.stop(o_.stop_timeout);
  killed_ = killed_ || r.killed;
  log::info("verify: scratch server stopped",
            {{"tookMs", static_cast<int64_t>(r.took.count())}, {"killed", r.killed}});
  if (!r.reaped) return "the scratch mysqld survived SIGKILL for 10 s";
  if (r.killed)
    log::warn("verify: the scratch mysqld did not stop within its deadline and was killed",
              {{"deadline", ms_text(o_.stop_timeout)}});
  return "";
}

}  // namespace br::backup
