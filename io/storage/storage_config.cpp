// Storage settings: the <P>_* variables, credentials files, the store they describe.
#include "io/storage/storage_config.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "io/storage/pvc_store.hpp"
#include "io/storage/s3_store.hpp"

namespace br::storage {

namespace {

std::string trim_ws(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.pop_back();
  size_t b = 0;
  while (b < s.size() && (s[b] == ' ' || s[b] == '\t')) ++b;
  return s.substr(b);
}

bool printable(const std::string& s) {
  for (char c : s)
    if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f) return false;
  return true;
}

/// A bucket name S3 accepts (3-63 of [a-z0-9.-], starting and ending with a letter or digit).
bool valid_bucket(const std::string& b) {
  if (b.size() < 3 || b.size() > 63) return false;
  for (char c : b)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
  auto edge = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return edge(b.front()) && edge(b.back());
}

/// "http://host[:port][/]" or "https://..." without user info, query or fragment.
std::string check_endpoint(const std::string& url) {
  auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return "must be an http:// or https:// URL";
  auto scheme = url.substr(0, scheme_end);
  if (scheme != "http" && scheme != "https") return "must be an http:// or https:// URL";
  auto rest = url.substr(scheme_end + 3);
  while (!rest.empty() && rest.back() == '/') rest.pop_back();
  if (rest.empty()) return "has no host";
  if (rest.find_first_of("@?#/ \t") != std::string::npos)
    return "must be scheme://host[:port] (no user, path, query or fragment)";
  return {};
}

}  // namespace

std::string storage_config::describe() const {
  if (type == storage_type::s3) return "s3://" + s3_bucket + "/" + s3_prefix;
  auto p = pvc_mount_path;
  if (p.empty() || p.back() != '/') p += '/';
  return p;
}

env_lookup process_env() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string{v};
  };
}

std::optional<std::string> read_secret_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string out;
  char buf[4096];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    out.append(buf, static_cast<size_t>(in.gcount()));
    if (out.size() > 64 * 1024) return std::nullopt;
  }
  if (in.bad()) return std::nullopt;
  return out;
}

std::string read_credentials(const std::string& dir, const secret_reader& read, s3_credentials& out) {
  auto reader = read ? read : secret_reader{read_secret_file};
  auto one = [&](const char* name, bool required, std::string& into) -> std::string {
    auto v = reader(dir + "/" + name);
    if (!v) return required ? "cannot read " + dir + "/" + name : std::string{};
    into = trim_ws(*v);
    if (required && into.empty()) return dir + "/" + name + " is empty";
    if (!printable(into)) return dir + "/" + name + " holds spaces or control characters";
    return {};
  };
  s3_credentials c;
  if (auto e = one("AWS_ACCESS_KEY_ID", true, c.access_key_id); !e.empty()) return e;
  if (auto e = one("AWS_SECRET_ACCESS_KEY", true, c.secret_access_key); !e.empty()) return e;
  if (auto e = one("AWS_SESSION_TOKEN", false, c.session_token); !e.empty()) return e;
  out = std::move(c);
  return {};
}

storage_config_result parse_storage_config(const std::string& prefix, const env_lookup& env,
                                           const secret_reader& read) {
  storage_config_result out;
  storage_config c;
  auto var = [&](const char* suffix) { return prefix + "_" + suffix; };
  auto get = [&](const char* suffix) { return env(var(suffix)).value_or(""); };
  auto fail = [&](const char* suffix, const std::string& msg) {
    out.error = var(suffix) + ": " + msg;
    return out;
  };

  auto type = get("STORAGE_TYPE");
  if (type == "S3" || type == "s3") {
    c.type = storage_type::s3;
  } else if (type == "PVC" || type == "pvc") {
    c.type = storage_type::pvc;
  } else if (type.empty()) {
    return fail("STORAGE_TYPE", "must be set to S3 or PVC");
  } else {
    return fail("STORAGE_TYPE", "must be S3 or PVC, got \"" + type + "\"");
  }

  if (c.type == storage_type::pvc) {
    c.pvc_mount_path = get("PVC_MOUNT_PATH");
    if (c.pvc_mount_path.empty() || c.pvc_mount_path.front() != '/')
      return fail("PVC_MOUNT_PATH", "must be an absolute path when the storage is PVC");
    while (c.pvc_mount_path.size() > 1 && c.pvc_mount_path.back() == '/') c.pvc_mount_path.pop_back();
    out.config = std::move(c);
    return out;
  }

  c.s3_bucket = get("S3_BUCKET");
  if (c.s3_bucket.empty()) return fail("S3_BUCKET", "required when the storage is S3");
  if (!valid_bucket(c.s3_bucket))
    return fail("S3_BUCKET", "\"" + c.s3_bucket + "\" is not a bucket name (3-63 of a-z, 0-9, '.', '-')");

  auto p = get("S3_PREFIX");
  while (!p.empty() && p.front() == '/') p.erase(0, 1);
  while (!p.empty() && p.back() == '/') p.pop_back();
  if (!p.empty() && !valid_key(p))
    return fail("S3_PREFIX", "\"" + p + "\" is not a valid key prefix (no empty, '.' or '..' segments)");
  c.s3_prefix = p.empty() ? "" : p + "/";

  if (auto r = get("S3_REGION"); !r.empty()) c.s3_region = r;
  for (char ch : c.s3_region)
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-'))
      return fail("S3_REGION", "\"" + c.s3_region + "\" is not a region name (a-z, 0-9, '-')");

  c.s3_endpoint = get("S3_ENDPOINT");
  if (!c.s3_endpoint.empty()) {
    if (auto e = check_endpoint(c.s3_endpoint); !e.empty()) return fail("S3_ENDPOINT", e);
    while (c.s3_endpoint.back() == '/') c.s3_endpoint.pop_back();
  }

  auto ps = get("S3_FORCE_PATH_STYLE");
  if (ps == "true" || ps == "1") c.s3_force_path_style = true;
  else if (ps.empty() || ps == "false" || ps == "0") c.s3_force_path_style = false;
  else return fail("S3_FORCE_PATH_STYLE", "must be true or false, got \"" + ps + "\"");

  c.s3_credentials_dir = get("S3_CREDENTIALS_DIR");
  if (c.s3_credentials_dir.empty())
    return fail("S3_CREDENTIALS_DIR",
                "required when the storage is S3 (a directory with AWS_ACCESS_KEY_ID and "
                "AWS_SECRET_ACCESS_KEY files)");
  if (auto e = read_credentials(c.s3_credentials_dir, read, c.credentials); !e.empty())
    return fail("S3_CREDENTIALS_DIR", e);
  out.config = std::move(c);
  return out;
}

std::unique_ptr<object_store> make_store(const storage_config& cfg) {
  if (cfg.type == storage_type::s3) return std::make_unique<s3_store>(cfg);
  return std::make_unique<pvc_store>(cfg.pvc_mount_path);
}

}  // namespace br::storage
