// Durable file replacement: temp file, fsync, rename, directory fsync.
#include "io/fs/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace br::fs {

namespace {

std::string failed(const std::string& what) { return what + ": " + std::strerror(errno); }

/// Writes all of [data, data + n) to fd. "" on success.
std::string write_all(int fd, const char* data, size_t n, const std::string& name) {
  size_t off = 0;
  while (off < n) {
    auto w = ::write(fd, data + off, n - off);
    if (w < 0) {
      if (errno == EINTR) continue;
      return failed("write " + name);
    }
    off += static_cast<size_t>(w);
  }
  return {};
}

/// fsync + close of the temp file, rename over `path`, fsync of the directory. "" on success.
std::string commit(int fd, const std::string& tmp, const std::string& path) {
  if (::fsync(fd) != 0) {
    auto err = failed("fsync " + tmp);
    ::close(fd);
    return err;
  }
  if (::close(fd) != 0) return failed("close " + tmp);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return failed("rename " + tmp);
  // The rename itself is durable only once the directory entry is synced.
  auto dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) return failed("open " + dir);
  int rc = ::fsync(dfd);
  ::close(dfd);
  if (rc != 0) return failed("fsync " + dir);
  return {};
}

}  // namespace

std::string write_file_atomic(const std::string& path, const std::string& content, mode_t mode) {
  auto tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (fd < 0) return failed("open " + tmp);
  if (auto err = write_all(fd, content.data(), content.size(), tmp); !err.empty()) {
    ::close(fd);
    return err;
  }
  return commit(fd, tmp, path);
}

std::string copy_file_atomic(const std::string& from, const std::string& to, uint64_t size,
                             std::chrono::steady_clock::time_point until, mode_t mode) {
  int in = ::open(from.c_str(), O_RDONLY | O_CLOEXEC);
  if (in < 0) return failed("open " + from);
  auto tmp = to + ".tmp";
  int out = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
  if (out < 0) {
    auto err = failed("open " + tmp);
    ::close(in);
    return err;
  }
  std::string err;
  std::vector<char> buf(1 << 20);
  uint64_t copied = 0;
  while (copied < size && err.empty()) {
    if (std::chrono::steady_clock::now() > until) {
      err = "deadline passed while copying " + from;
      break;
    }
    auto want = static_cast<size_t>(std::min<uint64_t>(buf.size(), size - copied));
    auto n = ::read(in, buf.data(), want);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) err = failed("read " + from);
    else if (n == 0) err = "read " + from + ": shorter than " + std::to_string(size) + " bytes";
    else err = write_all(out, buf.data(), static_cast<size_t>(n), tmp);
    if (n > 0) copied += static_cast<uint64_t>(n);
  }
  ::close(in);
  if (err.empty()) err = commit(out, tmp, to);
  else ::close(out);
  if (!err.empty()) ::unlink(tmp.c_str());
  return err;
}

}  // namespace br::fs
