// Where the API server is and how to authenticate: in-cluster service account or a kubeconfig.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "io/kube/result.hpp"

namespace br::kube {

/// A bearer token that may live in a file rotated by the kubelet: the file is re-read whenever
/// its modification time or size changes (checked at most once per `recheck`).
class token_source {
 public:
  token_source() = default;
  static std::shared_ptr<token_source> fixed(std::string token);
  static std::shared_ptr<token_source> file(std::string path,
                                            std::chrono::milliseconds recheck = std::chrono::seconds{1});
  /// The current token ("" when none or the file is unreadable).
  std::string token();
  std::size_t reads() const;  // how often the file was read (for tests)

 private:
  std::mutex m_;
  std::string token_;
  std::string path_;
  std::chrono::milliseconds recheck_{1000};
  std::chrono::steady_clock::time_point checked_{};
  long long mtime_ns_ = -1;
  long long size_ = -1;
  std::size_t reads_ = 0;
};

struct config {
  std::string server;  // "https://10.0.0.1:443"
  std::string ca_file;
  std::string ca_data;  // PEM
  std::string client_cert_file, client_key_file;
  std::string client_cert_data, client_key_data;  // PEM
  bool insecure_skip_tls_verify = false;
  std::shared_ptr<token_source> token;  // null = no bearer token
  std::string ns = "default";           // namespace of the context / service account
};

/// Paths of the service-account mount (overridable for tests).
struct in_cluster_paths {
  std::string token = "/var/run/secrets/kubernetes.io/serviceaccount/token";
  std::string ca = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt";
  std::string ns = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";
};

/// From KUBERNETES_SERVICE_HOST/PORT and the service-account mount.
result<config> in_cluster_config(const in_cluster_paths& paths = {});
/// From a kubeconfig file: its current context (or `context` when given).
result<config> load_kubeconfig(const std::string& path, const std::string& context = {});
/// In-cluster when KUBERNETES_SERVICE_HOST is set, else $KUBECONFIG or ~/.kube/config.
result<config> default_config();

}  // namespace br::kube
