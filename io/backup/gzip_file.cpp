// zlib gzip streams and SHA-256 (see gzip_file.hpp).
#include "io/backup/gzip_file.hpp"

#include <openssl/evp.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace br::backup {
namespace {

std::string hex(const unsigned char* d, unsigned n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += digits[d[i] >> 4];
    out += digits[d[i] & 15];
  }
  return out;
}

struct sha256 {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  sha256() { EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr); }
  ~sha256() { EVP_MD_CTX_free(ctx); }
  void update(const void* d, size_t n) { EVP_DigestUpdate(ctx, d, n); }
  std::string final_hex() {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned n = 0;
    EVP_DigestFinal_ex(ctx, md, &n);
    return hex(md, n);
  }
};

}  // namespace

struct gzip_writer::state {
  FILE* f = nullptr;
  z_stream z{};
  bool z_ok = false;
  sha256 sha;
  std::vector<unsigned char> out = std::vector<unsigned char>(1 << 17);
};

gzip_writer::gzip_writer(const std::string& path, int level) : s_(std::make_unique<state>()) {
  s_->f = std::fopen(path.c_str(), "wbe");
  if (s_->f == nullptr) {
    error_ = "cannot create " + path + ": " + std::strerror(errno);
    return;
  }
  // windowBits 15 + 16: a gzip header and trailer (the file reads with zcat).
  s_->z_ok = deflateInit2(&s_->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK;
  if (!s_->z_ok) error_ = "zlib deflateInit2 failed";
}

gzip_writer::~gzip_writer() {
  if (s_->z_ok) deflateEnd(&s_->z);
  if (s_->f != nullptr) std::fclose(s_->f);
}

bool gzip_writer::deflate_some(int flush) {
  auto& z = s_->z;
  while (true) {
    z.next_out = s_->out.data();
    z.avail_out = static_cast<uInt>(s_->out.size());
    int rc = deflate(&z, flush);
    if (rc == Z_STREAM_ERROR) {
      error_ = "zlib deflate failed";
      return false;
    }
    size_t have = s_->out.size() - z.avail_out;
    if (have > 0) {
      if (std::fwrite(s_->out.data(), 1, have, s_->f) != have) {
        error_ = std::string("write failed: ") + std::strerror(errno);
        return false;
      }
      s_->sha.update(s_->out.data(), have);
      out_ += have;
    }
    if (flush == Z_FINISH) {
      if (rc == Z_STREAM_END) return true;
    } else if (z.avail_in == 0 && z.avail_out != 0) {
      return true;
    }
  }
}

bool gzip_writer::write(std::string_view data) {
  if (!error_.empty()) return false;
  s_->z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  s_->z.avail_in = static_cast<uInt>(data.size());
  in_ += data.size();
  return deflate_some(Z_NO_FLUSH);
}

bool gzip_writer::finish() {
  if (!error_.empty()) return false;
  s_->z.next_in = nullptr;
  s_->z.avail_in = 0;
  if (!deflate_some(Z_FINISH)) return false;
  if (std::fflush(s_->f) != 0 || ::fsync(fileno(s_->f)) != 0) {
    error_ = std::string("flush failed: ") + std::strerror(errno);
    return false;
  }
  sha_ = s_->sha.final_hex();
  return true;
}

struct gzip_reader::state {
  FILE* f = nullptr;
  z_stream z{};
  bool z_ok = false;
  bool ended = false;
  std::vector<unsigned char> in = std::vector<unsigned char>(1 << 17);
};

gzip_reader::gzip_reader(const std::string& path) : s_(std::make_unique<state>()) {
  s_->f = std::fopen(path.c_str(), "rbe");
  if (s_->f == nullptr) {
    error_ = "cannot open " + path + ": " + std::strerror(errno);
    return;
  }
  s_->z_ok = inflateInit2(&s_->z, 15 + 16) == Z_OK;
  if (!s_->z_ok) error_ = "zlib inflateInit2 failed";
}

gzip_reader::~gzip_reader() {
  if (s_->z_ok) inflateEnd(&s_->z);
  if (s_->f != nullptr) std::fclose(s_->f);
}

long gzip_reader::read(char* buf, size_t cap) {
  if (!error_.empty()) return -1;
  if (s_->ended) return 0;
  auto& z = s_->z;
  z.next_out = reinterpret_cast<Bytef*>(buf);
  z.avail_out = static_cast<uInt>(cap);
  while (z.avail_out == cap) {
    if (z.avail_in == 0) {
      size_t got = std::fread(s_->in.data(), 1, s_->in.size(), s_->f);
      if (got == 0) {
        error_ = std::ferror(s_->f) ? std::string("read failed: ") + std::strerror(errno)
                                    : std::string("the compressed dump is truncated");
        return -1;
      }
      z.next_in = s_->in.data();
      z.avail_in = static_cast<uInt>(got);
    }
    int rc = inflate(&z, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      s_->ended = true;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      error_ = std::string("the compressed dump is corrupt (zlib: ") + (z.msg != nullptr ? z.msg : "?") + ")";
      return -1;
    }
  }
  long n = static_cast<long>(cap - z.avail_out);
  out_ += static_cast<uint64_t>(n);
  return n;
}

std::string sha256_file(const std::string& path, std::string& error) {
  FILE* f = std::fopen(path.c_str(), "rbe");
  if (f == nullptr) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return "";
  }
  sha256 sha;
  std::vector<unsigned char> buf(1 << 17);
  size_t got;
  while ((got = std::fread(buf.data(), 1, buf.size(), f)) > 0) sha.update(buf.data(), got);
  bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) {
    error = "cannot read " + path;
    return "";
  }
  return sha.final_hex();
}

}  // namespace br::backup
