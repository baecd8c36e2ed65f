// Loading and writing keys directories (PEM files through io/crypto).
#include "actors/common/key_dir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace br::auth {

namespace {

namespace fsys = std::filesystem;

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream ss;
  ss << in.rdbuf();
  if (ss.str().size() > (64u << 10)) return std::nullopt;
  return ss.str();
}

std::string load_public(const std::string& path, std::vector<crypto::verify_key>& out) {
  auto text = read_text(path);
  if (!text) return path + ": cannot read";
  auto l = crypto::verify_keys_from_pem(*text);
  if (!l.error.empty()) return path + ": " + l.error;
  out = std::move(l.keys);
  return {};
}

std::string load_private(const std::string& path, std::optional<crypto::signing_key>& out) {
  auto text = read_text(path);
  if (!text) return path + ": cannot read";
  auto l = crypto::signing_key_from_pem(*text);
  if (!l.key) return path + ": " + l.error;
  out = std::move(l.key);
  return {};
}

std::string write_if_missing(const std::string& path, const std::string& text, mode_t mode) {
  if (fsys::exists(path)) return {};
  // Created with its final mode (a private key is never readable by others, not even briefly),
  // never through a symlink, never over an existing temporary file.
  auto tmp = path + ".tmp";
  ::unlink(tmp.c_str());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) return path + ": cannot write (" + std::strerror(errno) + ")";
  std::size_t done = 0;
  while (done < text.size()) {
    auto n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  bool ok = done == text.size() && ::fchmod(fd, mode) == 0 && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) {
    ::unlink(tmp.c_str());
    return path + ": cannot write";
  }
  std::error_code ec;
  fsys::rename(tmp, path, ec);
  return ec ? path + ": " + ec.message() : std::string();
}

}  // namespace

key_ring_load load_operator_keys(const std::string& dir, const std::vector<std::string>& sites) {
  key_ring_load out;
  key_ring ring;
  if (auto e = load_private(dir + "/operator.key", ring.signer); !e.empty()) {
    out.error = e;
    return out;
  }
  auto pub_path = dir + "/operator.pub";
  if (fsys::exists(pub_path)) {
    if (auto e = load_public(pub_path, ring.operator_keys); !e.empty()) {
      out.error = e;
      return out;
    }
    bool own = false;
    for (const auto& k : ring.operator_keys) own = own || k.id == ring.signer->pub.id;
    if (!own) {
      out.error = pub_path + ": does not contain the public half of operator.key (key id " +
                  ring.signer->pub.id + ")";
      return out;
    }
  } else {
    ring.operator_keys.push_back(ring.signer->pub);
  }
  for (const auto& s : sites) {
    auto& keys = ring.site_keys[s];
    if (auto e = load_public(dir + "/site-" + s + ".pub", keys); !e.empty()) {
      out.error = e;
      return out;
    }
  }
  out.ring = std::move(ring);
  return out;
}

key_ring_load load_sidecar_keys(const std::string& dir, const std::string& site) {
  key_ring_load out;
  key_ring ring;
  if (auto e = load_public(dir + "/operator.pub", ring.operator_keys); !e.empty()) {
    out.error = e;
    return out;
  }
  if (auto e = load_private(dir + "/site-" + site + ".key", ring.signer); !e.empty()) {
    out.error = e;
    return out;
  }
  std::error_code ec;
  for (const auto& entry : fsys::directory_iterator(dir, ec)) {
    auto name = entry.path().filename().string();
    if (name.size() <= 9 || name.rfind("site-", 0) != 0 || name.substr(name.size() - 4) != ".pub")
      continue;
    auto peer = name.substr(5, name.size() - 9);
    std::vector<crypto::verify_key> keys;
    if (auto e = load_public(entry.path().string(), keys); !e.empty()) {
      out.error = e;
      return out;
    }
    ring.site_keys[peer] = std::move(keys);
  }
  if (ec) {
    out.error = dir + ": " + ec.message();
    return out;
  }
  out.ring = std::move(ring);
  return out;
}

std::string write_key_dir(const std::string& dir, const std::vector<std::string>& sites) {
  std::error_code ec;
  fsys::create_directories(dir, ec);
  if (ec) return dir + ": " + ec.message();
  auto pair = [&](const std::string& base) -> std::string {
    if (fsys::exists(base + ".key")) {
      std::optional<crypto::signing_key> k;
      if (auto e = load_private(base + ".key", k); !e.empty()) return e;
      return write_if_missing(base + ".pub", crypto::public_pem(k->pub), 0644);
    }
    auto k = crypto::generate_key();
    if (!k) return base + ".key: key generation failed";
    if (auto e = write_if_missing(base + ".key", crypto::private_pem(*k), 0600); !e.empty()) return e;
    std::error_code rm;
    fsys::remove(base + ".pub", rm);  // a new key: its old public half is stale
    return write_if_missing(base + ".pub", crypto::public_pem(k->pub), 0644);
  };
  if (auto e = pair(dir + "/operator"); !e.empty()) return e;
  for (const auto& s : sites)
    if (auto e = pair(dir + "/site-" + s); !e.empty()) return e;
  return {};
}

}  // namespace br::auth
