// S3 backend over io/http's libcurl client: SigV4 by libcurl, Content-MD5 on every upload,
// multipart above the threshold (aborted on failure), bounded retries with jittered backoff.
#include "io/storage/s3_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <thread>

#include "io/codec/base64.hpp"
#include "io/http/client.hpp"
#include "io/log/log.hpp"
#include "io/storage/s3_request.hpp"

namespace br::storage {

namespace {

using ms = std::chrono::milliseconds;

struct digests {
  std::string md5_base64;  ///< Content-MD5
  std::string md5_hex;     ///< what S3 answers as the ETag of a single PUT / one part
  std::string sha256_hex;  ///< x-amz-content-sha256
};

std::string hex(const unsigned char* p, unsigned n) {
  static const char* h = "0123456789abcdef";
  std::string out;
  for (unsigned i = 0; i < n; ++i) {
    out += h[p[i] >> 4];
    out += h[p[i] & 15];
  }
  return out;
}

/// MD5 and SHA-256 of a memory range or of a file range (read once). nullopt on a read error.
class hasher {
 public:
  hasher() : md5_(EVP_MD_CTX_new()), sha_(EVP_MD_CTX_new()) {
    EVP_DigestInit_ex(md5_, EVP_md5(), nullptr);
    EVP_DigestInit_ex(sha_, EVP_sha256(), nullptr);
  }
  ~hasher() {
    EVP_MD_CTX_free(md5_);
    EVP_MD_CTX_free(sha_);
  }
  hasher(const hasher&) = delete;
  hasher& operator=(const hasher&) = delete;
  void update(const void* p, size_t n) {
    EVP_DigestUpdate(md5_, p, n);
    EVP_DigestUpdate(sha_, p, n);
  }
  digests finish() {
    unsigned char m[EVP_MAX_MD_SIZE], s[EVP_MAX_MD_SIZE];
    unsigned mn = 0, sn = 0;
    EVP_DigestFinal_ex(md5_, m, &mn);
    EVP_DigestFinal_ex(sha_, s, &sn);
    digests d;
    d.md5_base64 = base64_encode(std::string_view(reinterpret_cast<const char*>(m), mn));
    d.md5_hex = hex(m, mn);
    d.sha256_hex = hex(s, sn);
    return d;
  }

 private:
  EVP_MD_CTX* md5_;
  EVP_MD_CTX* sha_;
};

digests digest_of(std::string_view data) {
  hasher h;
  h.update(data.data(), data.size());
  return h.finish();
}

std::optional<digests> digest_of(int fd, uint64_t offset, uint64_t length) {
  hasher h;
  std::vector<char> buf(1 << 20);
  while (length > 0) {
    auto want = static_cast<size_t>(std::min<uint64_t>(buf.size(), length));
    auto n = ::pread(fd, buf.data(), want, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    h.update(buf.data(), static_cast<size_t>(n));
    offset += static_cast<uint64_t>(n);
    length -= static_cast<uint64_t>(n);
  }
  return h.finish();
}

const std::string empty_sha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string errno_text() { return std::strerror(errno); }

class fd_guard {
 public:
  explicit fd_guard(int fd) : fd_(fd) {}
  ~fd_guard() {
    if (fd_ >= 0) ::close(fd_);
  }
  fd_guard(const fd_guard&) = delete;
  fd_guard& operator=(const fd_guard&) = delete;
  int get() const { return fd_; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_;
};

}  // namespace

struct s3_store::impl {
  storage_config cfg;
  std::optional<s3::endpoint> ep;
  std::mutex mx;
  s3_credentials creds;  ///< guarded by mx; refreshed from the credentials dir per operation
  std::mt19937_64 rng{std::random_device{}()};

  s3_credentials current_credentials() {
    std::lock_guard<std::mutex> lk(mx);
    if (!cfg.s3_credentials_dir.empty()) {
      s3_credentials fresh;
      if (read_credentials(cfg.s3_credentials_dir, {}, fresh).empty()) creds = std::move(fresh);
    }
    return creds;
  }
  double jitter() {
    std::lock_guard<std::mutex> lk(mx);
    return std::uniform_real_distribution<double>(0.0, 1.0)(rng);
  }

  std::string full_key(const std::string& key) const { return cfg.s3_prefix + key; }

  struct call {
    std::string method = "GET";
    std::string key;  ///< full key ("" = the bucket)
    s3::query_params query;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    std::string payload_sha256 = empty_sha256;
    int body_fd = -1;
    uint64_t body_offset = 0, body_length = 0;
    int response_fd = -1;  ///< 2xx body to this file (truncated before each attempt)
    std::size_t max_response_bytes = 0;  ///< 0 = the tuning's cap
  };

  /// One S3 request with retries. The result is the last attempt's.
  http::client_result perform(const call& c, const s3_credentials& cr) {
    const auto& t = cfg.tuning;
    http::client_result res;
    for (int attempt = 1;; ++attempt) {
      http::client_request req;
      req.method = c.method;
      req.url = s3::object_url(*ep, cfg.s3_bucket, c.key, c.query);
      req.headers = c.headers;
      req.headers.emplace_back("x-amz-content-sha256", c.payload_sha256);
      if (!cr.session_token.empty()) req.headers.emplace_back("x-amz-security-token", cr.session_token);
      req.body = c.body;
      req.body_fd = c.body_fd;
      req.body_offset = c.body_offset;
      req.body_length = c.body_length;
      req.response_fd = c.response_fd;
      if (c.response_fd >= 0) {
        if (::ftruncate(c.response_fd, 0) != 0 || ::lseek(c.response_fd, 0, SEEK_SET) != 0) {
          res = {};
          res.error = http::client_error::other;
          res.message = "cannot truncate the download file: " + errno_text();
          return res;
        }
      }
      req.timeout = t.request_timeout;
      req.connect_timeout = t.connect_timeout;
      req.max_response_bytes = c.max_response_bytes ? c.max_response_bytes : t.max_response_bytes;
      req.aws_sigv4 = "aws:amz:" + cfg.s3_region + ":s3";
      req.username = cr.access_key_id;
      req.password = cr.secret_access_key;
      req.low_speed_bytes = t.low_speed_bytes;
      res = http::perform(req);
      bool again = !res.too_large && (res.error != http::client_error::none || s3::retryable_status(res.status));
      if (!again || attempt >= t.max_attempts) return res;
      auto d = s3::backoff_delay(attempt, t.backoff_base, t.backoff_max, jitter());
      log::debug("s3 request retried",
                 {{"method", c.method}, {"key", c.key}, {"status", res.status}, {"error", res.message},
                  {"attempt", attempt}, {"delay_ms", static_cast<int64_t>(d.count())}});
      std::this_thread::sleep_for(d);
    }
  }

  /// A store_error from a failed answer: "<what> <key>: HTTP 403 SignatureDoesNotMatch: ...".
  store_error error_of(const std::string& what, const std::string& key, const http::client_result& r) {
    store_error e;
    if (r.error != http::client_error::none) {
      e.message = what + " " + key + ": " + (r.too_large ? r.message : "transport: " + r.message);
      e.retryable = !r.too_large;
      return e;
    }
    auto summary = s3::error_summary(r.body);
    e.message = what + " " + key + ": HTTP " + std::to_string(r.status) + (summary.empty() ? "" : " " + summary);
    e.not_found = r.status == 404;
    e.retryable = s3::retryable_status(r.status);
    return e;
  }

  store_status put_single(const std::string& key, const s3_credentials& cr, std::string_view data, int fd,
                          uint64_t size) {
    call c;
    c.method = "PUT";
    c.key = full_key(key);
    digests d;
    if (fd >= 0) {
      auto got = digest_of(fd, 0, size);
      if (!got) return store_error{"put " + key + ": read: " + errno_text(), false, false};
      d = *got;
      c.body_fd = fd;
      c.body_length = size;
    } else {
      d = digest_of(data);
      c.body = std::string(data);
    }
    c.payload_sha256 = d.sha256_hex;
    c.headers = {{"Content-MD5", d.md5_base64}, {"Content-Type", "application/octet-stream"}};
    auto r = perform(c, cr);
    if (!r.ok()) return error_of("put", key, r);
    return done{};
  }

  store_status put_multipart(const std::string& key, const s3_credentials& cr, int fd, uint64_t size) {
    const auto part = std::max<uint64_t>(cfg.tuning.part_size, 1);
    if ((size + part - 1) / part > 10000)
      return store_error{"put " + key + ": " + std::to_string(size) + " bytes need more than 10000 parts of " +
                             std::to_string(part) + " bytes",
                         false, false};
    call init;
    init.method = "POST";
    init.key = full_key(key);
    init.query = {{"uploads", ""}};
    init.headers = {{"Content-Type", "application/octet-stream"}};
    auto r = perform(init, cr);
    if (!r.ok()) return error_of("put (initiate multipart)", key, r);
    auto upload_id = s3::xml_first(r.body, "UploadId");
    if (!upload_id || upload_id->empty())
      return store_error{"put " + key + ": the multipart initiation answered no UploadId", false, true};

    auto abort = [&](store_error e) -> store_status {
      call ab;
      ab.method = "DELETE";
      ab.key = full_key(key);
      ab.query = {{"uploadId", *upload_id}};
      auto ar = perform(ab, cr);
      if (!ar.ok() && ar.status != 404)
        log::warn("s3 multipart abort failed", {{"key", key}, {"error", error_of("abort", key, ar).message}});
      return e;
    };

    std::vector<std::string> etags;
    for (uint64_t off = 0, n = 1; off < size; off += part, ++n) {
      auto len = std::min(part, size - off);
      auto d = digest_of(fd, off, len);
      if (!d) return abort(store_error{"put " + key + ": read: " + errno_text(), false, false});
      call p;
      p.method = "PUT";
      p.key = full_key(key);
      p.query = {{"partNumber", std::to_string(n)}, {"uploadId", *upload_id}};
      p.headers = {{"Content-MD5", d->md5_base64}, {"Content-Type", "application/octet-stream"}};
      p.payload_sha256 = d->sha256_hex;
      p.body_fd = fd;
      p.body_offset = off;
      p.body_length = len;
      auto pr = perform(p, cr);
      if (!pr.ok()) return abort(error_of("put (part " + std::to_string(n) + ")", key, pr));
      auto etag = pr.header("etag");
      if (!etag || etag->empty())
        return abort(store_error{"put " + key + ": part " + std::to_string(n) + " answered no ETag", false, true});
      etags.push_back(*etag);
    }
    call done_call;
    done_call.method = "POST";
    done_call.key = full_key(key);
    done_call.query = {{"uploadId", *upload_id}};
    done_call.body = s3::complete_multipart_body(etags);
    done_call.payload_sha256 = digest_of(done_call.body).sha256_hex;
    done_call.headers = {{"Content-Type", "application/xml"}};
    auto cr2 = perform(done_call, cr);
    // CompleteMultipartUpload may answer 200 with an <Error> document.
    if (!cr2.ok() || !s3::error_summary(cr2.body).empty()) {
      auto e = error_of("put (complete multipart)", key, cr2);
      if (cr2.ok()) e.message = "put (complete multipart) " + key + ": " + s3::error_summary(cr2.body);
      return abort(e);
    }
    return done{};
  }
};

s3_store::s3_store(storage_config cfg) : impl_(std::make_unique<impl>()) {
  impl_->cfg = std::move(cfg);
  impl_->creds = impl_->cfg.credentials;
  impl_->ep = s3::resolve_endpoint(impl_->cfg.s3_endpoint, impl_->cfg.s3_region, impl_->cfg.s3_force_path_style);
}

s3_store::~s3_store() = default;

std::string s3_store::location() const { return impl_->cfg.describe(); }

namespace {
std::optional<store_error> check(const std::optional<s3::endpoint>& ep, const std::string& what, const std::string& key) {
  if (!ep) return store_error{what + " " + key + ": unusable S3 endpoint", false, false};
  if (!valid_key(key)) return store_error{what + ": invalid key \"" + key + "\"", false, false};
  return std::nullopt;
}
}  // namespace

store_status s3_store::put_file(const std::string& key, const std::filesystem::path& src) {
  if (auto e = check(impl_->ep, "put", key)) return *e;
  fd_guard fd(::open(src.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return store_error{"put " + key + ": open " + src.string() + ": " + errno_text(), false, false};
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    return store_error{"put " + key + ": " + src.string() + " is not a regular file", false, false};
  auto size = static_cast<uint64_t>(st.st_size);
  auto cr = impl_->current_credentials();
  if (size > impl_->cfg.tuning.multipart_threshold) return impl_->put_multipart(key, cr, fd.get(), size);
  return impl_->put_single(key, cr, {}, fd.get(), size);
}

store_status s3_store::put_bytes(const std::string& key, std::string_view data) {
  if (auto e = check(impl_->ep, "put", key)) return *e;
  return impl_->put_single(key, impl_->current_credentials(), data, -1, 0);
}

store_status s3_store::get_file(const std::string& key, const std::filesystem::path& dst) {
  if (auto e = check(impl_->ep, "get", key)) return *e;
  static std::atomic<uint64_t> counter{0};
  auto tmp = dst.string() + ".br-tmp-" + std::to_string(::getpid()) + "-" + std::to_string(++counter);
  fd_guard fd(::open(tmp.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0640));
  if (fd.get() < 0) return store_error{"get " + key + ": open " + tmp + ": " + errno_text(), false, false};
  auto fail = [&](store_error e) -> store_status {
    ::unlink(tmp.c_str());
    return e;
  };
  impl::call c;
  c.key = impl_->full_key(key);
  c.response_fd = fd.get();
  auto r = impl_->perform(c, impl_->current_credentials());
  if (!r.ok()) return fail(impl_->error_of("get", key, r));
  // The whole object arrived: as many bytes as the server announced.
  auto len = r.header("content-length");
  if (!len || len->empty() || len->find_first_not_of("0123456789") != std::string::npos || len->size() > 19)
    return fail(store_error{"get " + key + ": the answer has no Content-Length", false, true});
  if (std::stoull(*len) != r.body_bytes_to_fd)
    return fail(store_error{"get " + key + ": received " + std::to_string(r.body_bytes_to_fd) + " of " + *len +
                                " bytes",
                            false, true});
  if (::fsync(fd.get()) != 0) return fail(store_error{"get " + key + ": fsync " + tmp + ": " + errno_text(), false, false});
  ::close(fd.release());
  if (::rename(tmp.c_str(), dst.c_str()) != 0)
    return fail(store_error{"get " + key + ": rename " + tmp + ": " + errno_text(), false, false});
  return done{};
}

store_result<std::string> s3_store::get_bytes(const std::string& key, uint64_t max_bytes) {
  if (auto e = check(impl_->ep, "get", key)) return *e;
  impl::call c;
  c.key = impl_->full_key(key);
  // Room for an error document even when max_bytes is tiny; the size is checked below.
  c.max_response_bytes = static_cast<size_t>(std::max<uint64_t>(max_bytes, 64 * 1024));
  auto r = impl_->perform(c, impl_->current_credentials());
  if (r.too_large || (r.ok() && r.body.size() > max_bytes))
    return store_error{"get " + key + ": more than the " + std::to_string(max_bytes) + " bytes allowed", false, false};
  if (!r.ok()) return impl_->error_of("get", key, r);
  if (auto len = r.header("content-length"); len && *len != std::to_string(r.body.size()))
    return store_error{"get " + key + ": received " + std::to_string(r.body.size()) + " of " + *len + " bytes",
                       false, true};
  return std::move(r.body);
}

store_result<std::vector<object_info>> s3_store::list(const std::string& prefix) {
  if (!impl_->ep) return store_error{"list: unusable S3 endpoint", false, false};
  constexpr size_t max_pages = 100000;  // 10^8 keys: a server that never ends the listing is cut off
  std::vector<object_info> out;
  auto cr = impl_->current_credentials();
  const auto full_prefix = impl_->full_key(prefix);
  std::string token;
  for (size_t page_no = 0;; ++page_no) {
    if (page_no >= max_pages) return store_error{"list " + prefix + ": more than " + std::to_string(max_pages) + " pages", false, false};
    impl::call c;
    c.key = "";
    c.query = {{"list-type", "2"}, {"prefix", full_prefix}};
    if (!token.empty()) c.query.emplace_back("continuation-token", token);
    auto r = impl_->perform(c, cr);
    if (!r.ok()) return impl_->error_of("list", prefix.empty() ? "(all)" : prefix, r);
    auto page = s3::parse_list_page(r.body);
    if (!page.error.empty()) return store_error{"list " + prefix + ": " + page.error, false, true};
    for (auto& it : page.items) {
      if (it.key.rfind(impl_->cfg.s3_prefix, 0) != 0) continue;  // not under our root
      auto rel = it.key.substr(impl_->cfg.s3_prefix.size());
      if (rel.rfind(prefix, 0) != 0 || !valid_key(rel)) continue;
      out.push_back({std::move(rel), it.size});
    }
    if (!page.truncated) break;
    if (page.next_token == token) return store_error{"list " + prefix + ": the server repeated its continuation token", false, true};
    token = page.next_token;
  }
  std::sort(out.begin(), out.end(), [](const object_info& a, const object_info& b) { return a.key < b.key; });
  return out;
}

store_status s3_store::remove(const std::string& key) {
  if (auto e = check(impl_->ep, "delete", key)) return *e;
  impl::call c;
  c.method = "DELETE";
  c.key = impl_->full_key(key);
  auto r = impl_->perform(c, impl_->current_credentials());
  // A missing key is success; a missing bucket is not (the store is misconfigured).
  if (r.ok() || (r.error == http::client_error::none && r.status == 404 &&
                 r.body.find("NoSuchBucket") == std::string::npos))
    return done{};
  return impl_->error_of("delete", key, r);
}

}  // namespace br::storage
