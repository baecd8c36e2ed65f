// One storage interface for backups, restores and the binlog archiver (issue 21): a flat
// namespace of objects named by '/'-separated keys under a root (an S3 bucket + prefix, or a
// directory on a mounted volume). Every call blocks and is bounded by the store's own timeouts;
// call it from a detached worker or a process, never from a cooperative actor.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace br::storage {

struct store_error {
  std::string message;     ///< one line: what failed, the key, the cause (never a secret)
  bool not_found = false;  ///< the key (or bucket) does not exist
  bool retryable = false;  ///< transport failure, throttling, 5xx: worth trying again later
};

/// A value or a store_error.
template <class T>
class store_result {
 public:
  store_result(T v) : v_(std::move(v)) {}              // NOLINT: implicit on purpose
  store_result(store_error e) : v_(std::move(e)) {}    // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  const store_error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, store_error> v_;
};

struct done {};
using store_status = store_result<done>;

struct object_info {
  std::string key;  ///< relative to the store's root, no leading '/'
  uint64_t size = 0;
};

/// Keys: relative, '/'-separated, no "." or ".." segments, no empty segments, no leading '/'.
/// Implementations refuse anything else (a key can never reach outside the root).
class object_store {
 public:
  virtual ~object_store() = default;

  /// Where the root is, for status and logs: "s3://bucket/prefix/" or "/backups/sub/".
  virtual std::string location() const = 0;

  /// Uploads a local file as `key`. The object appears whole or not at all (S3: single PUT or
  /// multipart completed last; PVC: written to a temporary name, fsynced, renamed). The stored
  /// bytes are checked against the file (S3: Content-MD5 / part checksums; PVC: size + fsync).
  virtual store_status put_file(const std::string& key, const std::filesystem::path& src) = 0;
  virtual store_status put_bytes(const std::string& key, std::string_view data) = 0;

  /// Downloads `key` into `dst` (written to a temporary name beside it, then renamed).
  virtual store_status get_file(const std::string& key, const std::filesystem::path& dst) = 0;
  /// Reads a small object whole; refuses objects larger than `max_bytes`.
  virtual store_result<std::string> get_bytes(const std::string& key, uint64_t max_bytes) = 0;

  /// Every object whose key starts with `prefix` ("" = all), sorted by key.
  virtual store_result<std::vector<object_info>> list(const std::string& prefix) = 0;

  /// Deletes one object; a missing object counts as success.
  virtual store_status remove(const std::string& key) = 0;
};

/// True when `key` is a valid relative key (see object_store).
bool valid_key(std::string_view key);

}  // namespace br::storage
