// What the API-over-mutual-TLS tests (issue 26) share on the client side: a certificate and key
// as files (an identity a call presents), one HTTPS request that verifies the server against a
// CA file and presents such an identity, an unsigned sidecar report body, PEM text to and from
// files, and one decoded item of a Secret. Used by api_tls_process_test.cpp, kube_api_tls_test.cpp, kube_kubelet_api_tls_test.cpp
// (and the items by kube_tls_test.cpp and kube_kubelet_tls_test.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "io/codec/base64.hpp"
#include "io/http/client.hpp"

namespace br::test {

/// A certificate and its key, as PEM files.
struct pem_files {
  std::string cert, key;
};

inline void write_text(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out{p, std::ios::binary | std::ios::trunc};
  out << text;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in{p, std::ios::binary};
  std::stringstream b;
  b << in.rdbuf();
  return b.str();
}

/// `cert` and `key` written as <dir>/<name>.crt and <dir>/<name>.key.
inline pem_files write_pem_files(const std::filesystem::path& dir, const std::string& name, const std::string& cert,
                                 const std::string& key) {
  pem_files f{(dir / (name + ".crt")).string(), (dir / (name + ".key")).string()};
  write_text(f.cert, cert);
  write_text(f.key, key);
  return f;
}

/// A sidecar report body for `site` of `ns`/`group` that passes every check before the
/// identity one (it is not signed).
inline std::string unsigned_report(const std::string& ns, const std::string& group, const std::string& site) {
  return nlohmann::json{{"site", site},     {"namespace", ns},        {"group", group},
                        {"epochSeen", 0},   {"fenced", false},        {"selfFenced", false},
                        {"mysqlReachable", false}, {"sentAtMs", 1}}
      .dump();
}

/// One HTTPS request (10 s timeout) verifying the server against `ca_file`, presenting `id`'s
/// certificate when given (none: no client certificate); a JSON body when `body` is set.
inline http::client_result mtls_call(const std::string& method, const std::string& url, const std::string& ca_file,
                                     const pem_files* id, const std::string& body = {}) {
  http::client_request req;
  req.method = method;
  req.url = url;
  req.body = body;
  if (!body.empty()) req.headers = {{"Content-Type", "application/json"}};
  req.ca_file = ca_file;
  if (id) {
    req.cert_file = id->cert;
    req.key_file = id->key;
  }
  req.timeout = std::chrono::seconds(10);
  return http::perform(req);
}

/// The decoded data item `key` of a Secret ("" when it is absent or not base64).
inline std::string secret_item(const nlohmann::json& secret, const char* key) {
  return base64_decode(secret["data"].value(key, std::string{})).value_or(std::string{});
}

}  // namespace br::test
