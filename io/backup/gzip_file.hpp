// Streaming gzip (zlib, in process: no extra tool in the pipeline) to and from a local file, with
// the SHA-256 of the compressed bytes (stored in backup.json, checked before a load).
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

namespace br::backup {

class gzip_writer {
 public:
  /// Level 1: the dump is CPU-bound on 2 cores; level 1 keeps compression off the critical path.
  explicit gzip_writer(const std::string& path, int level = 1);
  ~gzip_writer();
  gzip_writer(const gzip_writer&) = delete;
  gzip_writer& operator=(const gzip_writer&) = delete;

  bool write(std::string_view data);
  /// Flushes the stream and fsyncs the file; false on any error.
  bool finish();
  const std::string& error() const { return error_; }
  uint64_t bytes_in() const { return in_; }
  uint64_t bytes_out() const { return out_; }
  std::string sha256_hex() const { return sha_; }

 private:
  bool deflate_some(int flush);
  struct state;
  std::unique_ptr<state> s_;
  std::string error_;
  uint64_t in_ = 0;
  uint64_t out_ = 0;
  std::string sha_;
};

class gzip_reader {
 public:
  explicit gzip_reader(const std::string& path);
  ~gzip_reader();
  gzip_reader(const gzip_reader&) = delete;
  gzip_reader& operator=(const gzip_reader&) = delete;

  /// Up to `cap` decompressed bytes; 0 at the end of the stream; -1 on error (see error()).
  long read(char* buf, size_t cap);
  const std::string& error() const { return error_; }
  uint64_t bytes_out() const { return out_; }

 private:
  struct state;
  std::unique_ptr<state> s_;
  std::string error_;
  uint64_t out_ = 0;
};

/// SHA-256 of a file, hex; "" with `error` set when it cannot be read.
std::string sha256_file(const std::string& path, std::string& error);

}  // namespace br::backup
