// S3 test server: radosgw (dbstore) from the sandbox chroot, one per instance id.
#include "tests/support/s3_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "io/http/client.hpp"

namespace br::test {

namespace {

namespace stdfs = std::filesystem;
using namespace std::chrono_literals;

std::string source_dir() {
  const char* s = std::getenv("BR_SOURCE_DIR");
  if (s == nullptr || *s == '\0') throw std::runtime_error("s3_server: BR_SOURCE_DIR is not set");
  return s;
}

/// Runs argv (no shell) with a deadline; returns exit code and the combined output.
std::pair<int, std::string> run(const std::vector<std::string>& args, std::chrono::seconds deadline) {
  std::vector<std::string> full = {"/usr/bin/timeout", "--kill-after=5", std::to_string(deadline.count())};
  full.insert(full.end(), args.begin(), args.end());
  std::string out_path = "/tmp/br-s3-run-" + std::to_string(::getpid()) + ".out";
  std::vector<char*> argv;
  for (auto& a : full) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("s3_server: fork failed");
  if (pid == 0) {
    int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  std::ifstream in(out_path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(out_path.c_str());
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return {code, text};
}

bool port_free(uint16_t port) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return false;
  int one = 1;
  ::setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  bool ok = ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(s);
  return ok;
}

http::client_result signed_request(const s3_server& srv, const std::string& method, const std::string& path) {
  http::client_request req;
  req.method = method;
  req.url = srv.endpoint() + path;
  req.headers = {{"x-amz-content-sha256", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}};
  req.aws_sigv4 = "aws:amz:us-east-1:s3";
  req.username = srv.access_key();
  req.password = srv.secret_key();
  req.timeout = 10s;
  req.connect_timeout = 2s;
  return http::perform(req);
}

}  // namespace

s3_server::s3_server(int instance_id, std::chrono::seconds start_deadline, const std::string& also_listen_on)
    : id_(instance_id), port_(static_cast<uint16_t>(34000 + instance_id)) {
  if (instance_id < 1 || instance_id > 999) throw std::runtime_error("s3_server: instance id 1..999");
  access_key_ = "BRTEST" + std::to_string(instance_id) + "ACCESSKEY";
  secret_key_ = "br-test-secret-" + std::to_string(instance_id) + "-x7Qp2mZr";
  auto [code, out] = run({source_dir() + "/tools/mysql-sandbox", "s3-install"}, 900s);
  if (code != 0) throw std::runtime_error("s3_server: mysql-sandbox s3-install failed: " + out);
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  root_ = out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  if (!stdfs::is_directory(root_)) throw std::runtime_error("s3_server: no chroot at '" + root_ + "'");
  if (!port_free(port_))
    throw std::runtime_error("s3_server: port " + std::to_string(port_) + " (instance " + std::to_string(id_) +
                             ") is in use; is an earlier server of this instance still running?");

  dir_in_ = "/tmp/br-s3-" + std::to_string(id_);
  const auto dir = root_ + dir_in_;
  std::error_code ec;
  stdfs::remove_all(dir, ec);
  stdfs::create_directories(dir);
  {
    std::ofstream conf(dir + "/ceph.conf");
    conf << "[global]\n"
         << "fsid = 00000000-0000-0000-0000-0000000" << 10000 + id_ << "\n"
         << "auth_cluster_required = none\nauth_service_required = none\nauth_client_required = none\n"
         << "log_file = " << dir_in_ << "/rgw.log\n"
         << "admin_socket = " << dir_in_ << "/asok\n"
         << "run_dir = " << dir_in_ << "\n"
         << "[client]\n"
         << "rgw_backend_store = dbstore\nrgw_config_store = dbstore\n"
         << "dbstore_db_dir = " << dir_in_ << "\n"
         << "dbstore_config_uri = file:" << dir_in_ << "/config.db\n"
         << "rgw_data = " << dir_in_ << "\n"
         // Small parts, so a test can force several parts with a small file (S3 itself: 5 MiB).
         << "rgw_multipart_min_part_size = 1048576\n"
         << "rgw_thread_pool_size = 16\n"
         << "rgw_frontends = beast endpoint=127.0.0.1:" << port_
         << (also_listen_on.empty() ? "" : " endpoint=" + also_listen_on + ":" + std::to_string(port_)) << "\n";
    if (!conf) throw std::runtime_error("s3_server: cannot write " + dir + "/ceph.conf");
  }
  auto conf_in = dir_in_ + "/ceph.conf";
  auto [ucode, uout] = run({"/usr/sbin/chroot", root_, "radosgw-admin", "-c", conf_in, "--no-mon-config", "user",
                            "create", "--uid=brtest", "--display-name=brtest", "--access-key=" + access_key_,
                            "--secret=" + secret_key_},
                           60s);
  if (ucode != 0) throw std::runtime_error("s3_server: radosgw-admin user create failed: " + uout);

  // The server: a child of this process, killed with it.
  std::vector<std::string> args = {"/usr/sbin/chroot", root_, "radosgw", "-c", conf_in, "--no-mon-config", "-f"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  auto out_path = dir + "/stdout.log";
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("s3_server: fork failed");
  if (pid_ == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  // Ready when a signed request to the service answers 200.
  const auto until = std::chrono::steady_clock::now() + start_deadline;
  while (true) {
    int st = 0;
    if (::waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      throw std::runtime_error("s3_server: radosgw exited at start: " + log_tail());
    }
    auto r = signed_request(*this, "GET", "/");
    if (r.error == http::client_error::none && r.status == 200) break;
    if (std::chrono::steady_clock::now() > until) {
      stop();
      throw std::runtime_error("s3_server: radosgw did not answer within " + std::to_string(start_deadline.count()) +
                               " s: " + log_tail());
    }
    std::this_thread::sleep_for(100ms);
  }
}

s3_server::~s3_server() {
  stop();
  std::error_code ec;
  if (!root_.empty() && !dir_in_.empty() && std::getenv("BR_S3_KEEP") == nullptr) stdfs::remove_all(root_ + dir_in_, ec);
}

std::string s3_server::endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }

void s3_server::create_bucket(const std::string& name) const {
  auto r = signed_request(*this, "PUT", "/" + name);
  if (r.error != http::client_error::none || (r.status != 200 && r.body.find("BucketAlreadyOwnedByYou") == std::string::npos))
    throw std::runtime_error("s3_server: create bucket " + name + ": HTTP " + std::to_string(r.status) + " " +
                             r.message + " " + r.body.substr(0, 300));
}

void s3_server::write_credentials(const std::string& dir) const {
  stdfs::create_directories(dir);
  std::ofstream(dir + "/AWS_ACCESS_KEY_ID") << access_key_ << "\n";
  std::ofstream(dir + "/AWS_SECRET_ACCESS_KEY") << secret_key_ << "\n";
}

storage::storage_config s3_server::config(const std::string& bucket, const std::string& prefix,
                                          const std::string& creds_dir) const {
  storage::storage_config c;
  c.type = storage::storage_type::s3;
  c.s3_bucket = bucket;
  c.s3_prefix = prefix.empty() || prefix.back() == '/' ? prefix : prefix + "/";
  c.s3_endpoint = endpoint();
  c.s3_force_path_style = true;
  c.s3_credentials_dir = creds_dir;
  c.credentials.access_key_id = access_key_;
  c.credentials.secret_access_key = secret_key_;
  return c;
}

void s3_server::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  const auto until = std::chrono::steady_clock::now() + 10s;
  int st = 0;
  while (::waitpid(pid_, &st, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &st, 0);
      break;
    }
    std::this_thread::sleep_for(50ms);
  }
  pid_ = -1;
}

std::string s3_server::log_tail(size_t bytes) const {
  std::string out;
  for (const char* f : {"/stdout.log", "/rgw.log"}) {
    std::ifstream in(root_ + dir_in_ + f);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.size() > bytes) text = text.substr(text.size() - bytes);
    out += std::string(f) + ": " + text + "\n";
  }
  return out;
}

}  // namespace br::test
