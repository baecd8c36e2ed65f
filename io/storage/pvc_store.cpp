// object_store on a directory: temp file + fsync + rename, sorted listing, bounded reads.
#include "io/storage/pvc_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <optional>

namespace br::storage {

namespace stdfs = std::filesystem;

namespace {

constexpr const char* temp_marker = ".br-tmp-";

std::string errno_text() { return std::strerror(errno); }

store_error fail(const std::string& what, bool not_found = false) {
  return store_error{what, not_found, false};
}

std::string temp_name_for(const stdfs::path& target) {
  static std::atomic<uint64_t> counter{0};
  return target.string() + temp_marker + std::to_string(::getpid()) + "-" + std::to_string(++counter);
}

/// Writes all of data to fd; "" on success.
std::string write_all(int fd, const char* data, size_t n, const std::string& name) {
  size_t off = 0;
  while (off < n) {
    auto w = ::write(fd, data + off, n - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      return "write " + name + ": " + errno_text();
    }
    off += static_cast<size_t>(w);
  }
  return {};
}

/// fsync + close fd, rename tmp over target, fsync the directory. "" on success; the temp file
/// is removed on failure.
std::string commit(int fd, const std::string& tmp, const stdfs::path& target) {
  std::string err;
  if (::fsync(fd) != 0) err = "fsync " + tmp + ": " + errno_text();
  if (::close(fd) != 0 && err.empty()) err = "close " + tmp + ": " + errno_text();
  if (err.empty() && ::rename(tmp.c_str(), target.c_str()) != 0)
    err = "rename " + tmp + ": " + errno_text();
  if (!err.empty()) {
    ::unlink(tmp.c_str());
    return err;
  }
  auto dir = target.parent_path().string();
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return "open " + dir + ": " + errno_text();
  int rc = ::fsync(dfd);
  ::close(dfd);
  if (rc != 0) return "fsync " + dir + ": " + errno_text();
  return {};
}

/// Copies the whole of `from` to `to` through a temp file; `expect_size` (when set) must match
/// what was copied. "" on success.
std::string copy_atomic(const stdfs::path& from, const stdfs::path& to, std::optional<uint64_t> expect_size,
                        std::chrono::steady_clock::time_point until) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return "open " + from.string() + ": " + errno_text();
  auto tmp = temp_name_for(to);
  int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
  if (out < 0) {
    auto err = "open " + tmp + ": " + errno_text();
    ::close(in);
    return err;
  }
  std::string err;
  std::vector<char> buf(1 << 20);
  uint64_t copied = 0;
  for (;;) {
    if (std::chrono::steady_clock::now() > until) {
      err = "deadline passed while copying " + from.string();
      break;
    }
    auto n = ::read(in, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      err = "read " + from.string() + ": " + errno_text();
      break;
    }
    if (n == 0) break;
    err = write_all(out, buf.data(), static_cast<size_t>(n), tmp);
    if (!err.empty()) break;
    copied += static_cast<uint64_t>(n);
  }
  ::close(in);
  if (err.empty() && expect_size && copied != *expect_size)
    err = "copied " + std::to_string(copied) + " bytes of " + from.string() + ", expected " +
          std::to_string(*expect_size) + " (changed while copying)";
  if (!err.empty()) {
    ::close(out);
    ::unlink(tmp.c_str());
    return err;
  }
  return commit(out, tmp, to);
}

}  // namespace

bool is_temp_name(const std::string& file_name) { return file_name.find(temp_marker) != std::string::npos; }

pvc_store::pvc_store(std::string root, std::chrono::milliseconds deadline)
    : root_(std::move(root)), deadline_(deadline) {}

std::string pvc_store::location() const {
  auto s = root_.string();
  if (s.empty() || s.back() != '/') s += '/';
  return s;
}

std::optional<store_error> pvc_store::check_key(const std::string& key) const {
  if (!valid_key(key)) return fail("invalid key \"" + key + "\" (relative, no '.', '..' or empty segments)");
  auto slash = key.find_last_of('/');
  if (is_temp_name(slash == std::string::npos ? key : key.substr(slash + 1)))
    return fail("invalid key \"" + key + "\" (reserved temporary name)");
  // A symlink inside the root must not lead outside it.
  std::error_code ec;
  auto root = stdfs::weakly_canonical(root_, ec);
  if (ec) return fail("root " + root_.string() + ": " + ec.message());
  auto full = stdfs::weakly_canonical(root_ / key, ec);
  if (ec) return fail(key + ": " + ec.message());
  auto rel = full.lexically_relative(root);
  if (rel.empty() || *rel.begin() == "..") return fail("key \"" + key + "\" resolves outside " + root_.string());
  return std::nullopt;
}

store_status pvc_store::put_file(const std::string& key, const stdfs::path& src) {
  if (auto e = check_key(key)) return *e;
  struct stat st{};
  if (::stat(src.c_str(), &st) != 0) return fail("put " + key + ": stat " + src.string() + ": " + errno_text());
  if (!S_ISREG(st.st_mode)) return fail("put " + key + ": " + src.string() + " is not a regular file");
  auto target = path_of(key);
  std::error_code ec;
  stdfs::create_directories(target.parent_path(), ec);
  if (ec) return fail("put " + key + ": create " + target.parent_path().string() + ": " + ec.message());
  auto err = copy_atomic(src, target, static_cast<uint64_t>(st.st_size),
                         std::chrono::steady_clock::now() + deadline_);
  if (!err.empty()) return fail("put " + key + ": " + err);
  return done{};
}

store_status pvc_store::put_bytes(const std::string& key, std::string_view data) {
  if (auto e = check_key(key)) return *e;
  auto target = path_of(key);
  std::error_code ec;
  stdfs::create_directories(target.parent_path(), ec);
  if (ec) return fail("put " + key + ": create " + target.parent_path().string() + ": " + ec.message());
  auto tmp = temp_name_for(target);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
  if (fd < 0) return fail("put " + key + ": open " + tmp + ": " + errno_text());
  if (auto err = write_all(fd, data.data(), data.size(), tmp); !err.empty()) {
    ::close(fd);
    ::unlink(tmp.c_str());
    return fail("put " + key + ": " + err);
  }
  if (auto err = commit(fd, tmp, target); !err.empty()) return fail("put " + key + ": " + err);
  return done{};
}

store_status pvc_store::get_file(const std::string& key, const stdfs::path& dst) {
  if (auto e = check_key(key)) return *e;
  auto src = path_of(key);
  struct stat st{};
  if (::stat(src.c_str(), &st) != 0) {
    bool missing = errno == ENOENT || errno == ENOTDIR;
    return fail("get " + key + ": " + (missing ? std::string{"no such object"} : errno_text()), missing);
  }
  if (!S_ISREG(st.st_mode)) return fail("get " + key + ": no such object", true);
  auto err = copy_atomic(src, dst, static_cast<uint64_t>(st.st_size), std::chrono::steady_clock::now() + deadline_);
  if (!err.empty()) return fail("get " + key + ": " + err);
  return done{};
}

store_result<std::string> pvc_store::get_bytes(const std::string& key, uint64_t max_bytes) {
  if (auto e = check_key(key)) return *e;
  auto src = path_of(key);
  int fd = ::open(src.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    bool missing = errno == ENOENT || errno == ENOTDIR;
    return fail("get " + key + ": " + (missing ? std::string{"no such object"} : errno_text()), missing);
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("get " + key + ": no such object", true);
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return fail("get " + key + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                std::to_string(max_bytes) + " allowed");
  }
  std::string out;
  out.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    auto n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      auto e = fail("get " + key + ": read: " + errno_text());
      ::close(fd);
      return e;
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      return fail("get " + key + ": grew beyond the " + std::to_string(max_bytes) + " bytes allowed");
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

store_result<std::vector<object_info>> pvc_store::list(const std::string& prefix) {
  std::vector<object_info> out;
  std::error_code ec;
  if (!stdfs::exists(root_, ec)) return out;  // nothing written yet
  // Only walk the directory the prefix names (all of it when the prefix has no '/').
  auto slash = prefix.find_last_of('/');
  stdfs::path start = root_;
  if (slash != std::string::npos) {
    auto dir = prefix.substr(0, slash);
    if (!valid_key(dir)) return fail("list: invalid prefix \"" + prefix + "\"");
    start = root_ / dir;
    if (!stdfs::is_directory(start, ec)) return out;
  }
  stdfs::recursive_directory_iterator it(start, stdfs::directory_options::none, ec), end;
  if (ec) return fail("list " + start.string() + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) return fail("list " + start.string() + ": " + ec.message());
    const auto& e = *it;
    if (!e.is_regular_file(ec) || e.is_symlink(ec)) continue;
    if (is_temp_name(e.path().filename().string())) continue;
    auto key = e.path().lexically_relative(root_).generic_string();
    if (key.rfind(prefix, 0) != 0 || !valid_key(key)) continue;
    auto size = e.file_size(ec);
    if (ec) continue;  // removed while listing
    out.push_back({key, size});
  }
  std::sort(out.begin(), out.end(), [](const object_info& a, const object_info& b) { return a.key < b.key; });
  return out;
}

store_status pvc_store::remove(const std::string& key) {
  if (auto e = check_key(key)) return *e;
  auto p = path_of(key);
  if (::unlink(p.c_str()) != 0 && errno != ENOENT && errno != ENOTDIR)
    return fail("delete " + key + ": " + errno_text());
  return done{};
}

}  // namespace br::storage
