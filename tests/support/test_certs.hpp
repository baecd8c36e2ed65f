// Test certificates: a fresh CA and a server certificate for given names, written as PEM files
// into a temporary directory (removed on destruction). Issued by io/crypto/x509_issue.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "io/crypto/x509_issue.hpp"

namespace br::test {

struct test_certs {
  std::filesystem::path dir;
  br::crypto::pem_pair ca;
  std::string cert_file, key_file;  // the server certificate and key
  std::string ca_file;              // the CA certificate (PEM), for clients and client CAs

  explicit test_certs(const std::vector<std::string>& names) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "br-certs-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    dir = tmpl;
    cert_file = (dir / "tls.crt").string();
    key_file = (dir / "tls.key").string();
    ca_file = (dir / "ca.crt").string();
    reissue(names);
  }
  ~test_certs() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  test_certs(const test_certs&) = delete;
  test_certs& operator=(const test_certs&) = delete;

  /// A new CA and a new server certificate for `names`, written over the files.
  void reissue(const std::vector<std::string>& names) {
    auto c = br::crypto::make_ca("bloodraven test CA", std::chrono::hours{24});
    if (!c) throw std::runtime_error("make_ca failed");
    ca = *c;
    auto s = br::crypto::issue_server_cert(ca, names, std::chrono::hours{24});
    if (!s) throw std::runtime_error("issue_server_cert failed");
    write(cert_file, s->cert_pem);
    write(key_file, s->key_pem);
    write(ca_file, ca.cert_pem);
  }

  /// A certificate for both ends of mutual TLS (serverAuth + clientAuth) for `names`, signed by
  /// the current CA, written as <stem>.crt / <stem>.key in the directory; returns the two paths.
  std::pair<std::string, std::string> issue_peer(const std::string& stem,
                                                 const std::vector<std::string>& names) {
    auto p = br::crypto::issue_peer_cert(ca, names, std::chrono::hours{24});
    if (!p) throw std::runtime_error("issue_peer_cert failed");
    std::pair<std::string, std::string> files{(dir / (stem + ".crt")).string(),
                                              (dir / (stem + ".key")).string()};
    write(files.first, p->cert_pem);
    write(files.second, p->key_pem);
    return files;
  }

  static void write(const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    {
      std::ofstream f{tmp, std::ios::binary | std::ios::trunc};
      f << text;
    }
    std::filesystem::rename(tmp, path);  // atomic, as a Secret volume's update
  }
};

}  // namespace br::test
