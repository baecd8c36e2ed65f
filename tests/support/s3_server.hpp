// Test helper: a real S3 server on loopback: Ceph's S3 gateway (radosgw 20.x from the sandbox's
// Debian sid chroot, `tools/mysql-sandbox s3-install`) running standalone on its SQLite "dbstore"
// backend, with authentication on (one user and key pair created with radosgw-admin; SigV4
// signatures, Content-MD5 and x-amz-content-sha256 are verified by the server; anonymous requests
// are refused). Debian's rclone is built without `serve s3`, so it cannot be the server here.
//
// One server per instance id (helper S: 151-153, B: 161-165, K: 171-173): port 34000 + id on
// 127.0.0.1, state in <chroot>/tmp/br-s3-<id> (wiped at start and at the end). The server runs as
// a child of the test process (PR_SET_PDEATHSIG: it dies with the test); the destructor stops it
// (SIGTERM, then SIGKILL after 10 s). Every wait has a deadline; failures throw std::runtime_error.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

#include "io/storage/storage_config.hpp"

namespace br::test {

class s3_server {
 public:
  /// `also_listen_on`: an address of this host the server listens on as well (same port), e.g.
  /// the process kubelet's gateway 10.244.0.1, so pods reach it; "" = loopback only.
  explicit s3_server(int instance_id, std::chrono::seconds start_deadline = std::chrono::seconds(60),
                     const std::string& also_listen_on = "");
  ~s3_server();
  s3_server(const s3_server&) = delete;
  s3_server& operator=(const s3_server&) = delete;

  uint16_t port() const { return port_; }
  /// "http://127.0.0.1:<port>"
  std::string endpoint() const;
  const std::string& access_key() const { return access_key_; }
  const std::string& secret_key() const { return secret_key_; }

  /// Creates a bucket (signed PUT); throws unless the server answers 200 (or it already exists).
  void create_bucket(const std::string& name) const;
  /// Writes AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY into `dir` (created), as <P>_S3_CREDENTIALS_DIR wants.
  void write_credentials(const std::string& dir) const;
  /// An S3 storage_config for this server (path style through 127.0.0.1), credentials read from `creds_dir`
  /// (written by write_credentials first).
  storage::storage_config config(const std::string& bucket, const std::string& prefix,
                                 const std::string& creds_dir) const;

  /// Stops the server now (idempotent); the destructor calls it.
  void stop();
  bool running() const { return pid_ > 0; }
  /// The server's own log (for failure messages).
  std::string log_tail(size_t bytes = 4000) const;

 private:
  int id_;
  uint16_t port_;
  std::string root_;       ///< the chroot (host path)
  std::string dir_in_;     ///< state dir inside the chroot
  std::string access_key_, secret_key_;
  pid_t pid_ = -1;
};

}  // namespace br::test
