// Loading in-cluster and kubeconfig settings (yaml-cpp); base64 "-data" fields are decoded.
#include "io/codec/base64.hpp"
#include "io/kube/config.hpp"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace br::kube {

namespace {

std::string read_file(const std::string& path, bool& ok) {
  std::ifstream f{path, std::ios::binary};
  ok = static_cast<bool>(f);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

/// kubeconfig *-data fields: base64, possibly wrapped; "" when it does not decode.
std::string decode_data(const std::string& in) {
  std::string compact;
  for (char c : in)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') compact += c;
  return br::base64_decode(compact).value_or(std::string());
}

api_error config_error(std::string message) {
  return api_error{0, "ConfigError", std::move(message)};
}

YAML::Node find_named(const YAML::Node& list, const std::string& name) {
  if (!list || !list.IsSequence()) return {};
  for (const auto& item : list)
    if (item["name"] && item["name"].as<std::string>() == name) return item;
  return {};
}

std::string str(const YAML::Node& n, const char* key) {
  return n && n[key] ? n[key].as<std::string>() : std::string{};
}

}  // namespace

std::shared_ptr<token_source> token_source::fixed(std::string token) {
  auto t = std::make_shared<token_source>();
  t->token_ = std::move(token);
  return t;
}

std::shared_ptr<token_source> token_source::file(std::string path, std::chrono::milliseconds recheck) {
  auto t = std::make_shared<token_source>();
  t->path_ = std::move(path);
  t->recheck_ = recheck;
  return t;
}

std::string token_source::token() {
  std::lock_guard lock{m_};
  if (path_.empty()) return token_;
  const auto now = std::chrono::steady_clock::now();
  if (reads_ > 0 && now - checked_ < recheck_) return token_;
  checked_ = now;
  struct stat st {};
  if (::stat(path_.c_str(), &st) != 0) return token_;  // keep the last good token
  const long long mtime = static_cast<long long>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
  if (mtime == mtime_ns_ && st.st_size == size_) return token_;
  bool ok = false;
  std::string t = trim(read_file(path_, ok));
  if (!ok) return token_;
  token_ = std::move(t);
  mtime_ns_ = mtime;
  size_ = st.st_size;
  ++reads_;
  return token_;
}

std::size_t token_source::reads() const {
  return reads_;
}

result<config> in_cluster_config(const in_cluster_paths& paths) {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  const char* port = std::getenv("KUBERNETES_SERVICE_PORT");
  if (!host || !*host || !port || !*port)
    return config_error("KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT not set: not in a cluster");
  config c;
  const std::string h = host;
  c.server = "https://" + (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + port;
  c.ca_file = paths.ca;
  c.token = token_source::file(paths.token);
  if (c.token->token().empty()) return config_error("cannot read service-account token " + paths.token);
  bool ok = false;
  auto ns = trim(read_file(paths.ns, ok));
  if (ok && !ns.empty()) c.ns = ns;
  return c;
}

result<config> load_kubeconfig(const std::string& path, const std::string& context) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const std::exception& e) {
    return config_error("cannot load kubeconfig " + path + ": " + e.what());
  }
  const std::string dir = path.find('/') == std::string::npos ? "." : path.substr(0, path.rfind('/'));
  auto resolve = [&](std::string p) { return p.empty() || p.front() == '/' ? p : dir + "/" + p; };
  try {
    const std::string ctx_name = context.empty() ? str(root, "current-context") : context;
    if (ctx_name.empty()) return config_error("kubeconfig " + path + " has no current-context");
    auto ctx = find_named(root["contexts"], ctx_name);
    if (!ctx) return config_error("context " + ctx_name + " not found in " + path);
    auto cluster = find_named(root["clusters"], str(ctx["context"], "cluster"));
    if (!cluster) return config_error("cluster of context " + ctx_name + " not found in " + path);
    config c;
    const auto cl = cluster["cluster"];
    c.server = str(cl, "server");
    if (c.server.empty()) return config_error("cluster of context " + ctx_name + " has no server");
    c.ca_file = resolve(str(cl, "certificate-authority"));
    c.ca_data = decode_data(str(cl, "certificate-authority-data"));
    c.insecure_skip_tls_verify = cl["insecure-skip-tls-verify"] && cl["insecure-skip-tls-verify"].as<bool>();
    if (auto ns = str(ctx["context"], "namespace"); !ns.empty()) c.ns = ns;
    const std::string user_name = str(ctx["context"], "user");
    if (!user_name.empty()) {
      auto user = find_named(root["users"], user_name);
      if (!user) return config_error("user " + user_name + " not found in " + path);
      const auto u = user["user"];
      c.client_cert_file = resolve(str(u, "client-certificate"));
      c.client_key_file = resolve(str(u, "client-key"));
      c.client_cert_data = decode_data(str(u, "client-certificate-data"));
      c.client_key_data = decode_data(str(u, "client-key-data"));
      if (auto t = str(u, "token"); !t.empty()) {
        c.token = token_source::fixed(t);
      } else if (auto tf = str(u, "tokenFile"); !tf.empty()) {
        c.token = token_source::file(resolve(tf));
      }
    }
    return c;
  } catch (const std::exception& e) {
    return config_error("malformed kubeconfig " + path + ": " + e.what());
  }
}

result<config> default_config() {
  if (const char* h = std::getenv("KUBERNETES_SERVICE_HOST"); h && *h) return in_cluster_config();
  if (const char* k = std::getenv("KUBECONFIG"); k && *k) {
    std::string first = k;
    first = first.substr(0, first.find(':'));
    return load_kubeconfig(first);
  }
  const char* home = std::getenv("HOME");
  return load_kubeconfig(std::string{home ? home : "."} + "/.kube/config");
}

}  // namespace br::kube
