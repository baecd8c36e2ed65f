// libcurl easy-handle client: timeouts, header capture, error classification, send time.
#include "io/http/client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <mutex>

#include <unistd.h>
#include <cstring>
#include <strings.h>

namespace br::http {

namespace {

void global_init_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct sink_state {
  client_result* out;
  std::size_t limit;
  bool too_large = false;
  CURL* handle = nullptr;
  int response_fd = -1;
  bool write_error = false;
  int write_errno = 0;
};

struct source_state {
  int fd;
  uint64_t offset, left;
};

size_t on_read(char* buf, size_t size, size_t n, void* user) {
  auto* src = static_cast<source_state*>(user);
  size_t want = static_cast<size_t>(std::min<uint64_t>(size * n, src->left));
  if (want == 0) return 0;
  ssize_t got;
  do {
    got = ::pread(src->fd, buf, want, static_cast<off_t>(src->offset));
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return CURL_READFUNC_ABORT;  // the file shrank or failed: never send short
  src->offset += static_cast<uint64_t>(got);
  src->left -= static_cast<uint64_t>(got);
  return static_cast<size_t>(got);
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<sink_state*>(user);
  const size_t bytes = size * n;
  if (st->response_fd >= 0) {
    long status = 0;
    curl_easy_getinfo(st->handle, CURLINFO_RESPONSE_CODE, &status);
    if (status >= 200 && status < 300) {
      size_t off = 0;
      while (off < bytes) {
        auto w = ::write(st->response_fd, data + off, bytes - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
          st->write_error = true;
          st->write_errno = w < 0 ? errno : ENOSPC;
          return 0;
        }
        off += static_cast<size_t>(w);
      }
      st->out->body_bytes_to_fd += bytes;
      return bytes;
    }
  }
  if (st->out->body.size() + bytes > st->limit) {
    st->too_large = true;
    return 0;  // aborts the transfer with CURLE_WRITE_ERROR
  }
  st->out->body.append(data, bytes);
  return bytes;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string{s};
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<sink_state*>(user);
  const size_t bytes = size * n;
  std::string_view line{data, bytes};
  if (line.rfind("HTTP/", 0) == 0) {
    st->out->headers.clear();  // a new response (e.g. after 100 Continue)
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    std::string name = trim(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    st->out->headers.emplace_back(std::move(name), trim(line.substr(colon + 1)));
  }
  return bytes;
}

client_error classify(CURLcode rc, long os_errno) {
  switch (rc) {
    case CURLE_OK:
      return client_error::none;
    case CURLE_OPERATION_TIMEDOUT:
      return client_error::timeout;
    case CURLE_COULDNT_CONNECT:
      return os_errno == 0 || os_errno == ECONNREFUSED ? client_error::refused
             : os_errno == ETIMEDOUT                   ? client_error::timeout
                                                       : client_error::other;
    default:
      return client_error::other;
  }
}

}  // namespace

std::string_view to_string(client_error e) {
  switch (e) {
    case client_error::none:
      return "none";
    case client_error::refused:
      return "refused";
    case client_error::timeout:
      return "timeout";
    case client_error::other:
      return "other";
  }
  return "other";
}

std::optional<std::string> client_result::header(std::string_view lower_name) const {
  for (const auto& [k, v] : headers)
    if (k == lower_name) return v;
  return std::nullopt;
}

client_result perform(const client_request& req) noexcept {
  client_result out;
  try {
    global_init_once();
    CURL* h = curl_easy_init();
    if (!h) {
      out.error = client_error::other;
      out.message = "curl_easy_init failed";
      return out;
    }
    sink_state st{&out, req.max_response_bytes};
    st.handle = h;
    st.response_fd = req.response_fd;
    source_state src{req.body_fd, req.body_offset, req.body_length};
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_slist* headers = nullptr;
    for (const auto& [k, v] : req.headers)
      headers = curl_slist_append(headers, (k + ": " + v).c_str());
    // No 100-continue round trip. Not with SigV4: libcurl 7.88 signs this removal header as if it
    // were sent ("expect:" in SignedHeaders) and the server's signature then differs.
    if (req.aws_sigv4.empty()) headers = curl_slist_append(headers, "Expect:");
    // Nor does it sign the form Content-Type it adds to a POSTFIELDS body, which S3 servers
    // refuse ("content-type supplied but not in CanonicalHeaders"): give one it signs.
    if (!req.aws_sigv4.empty() && req.body_fd < 0 && req.method != "GET" && req.method != "HEAD" &&
        std::none_of(req.headers.begin(), req.headers.end(), [](const auto& kv) {
          return kv.first.size() == 12 && strncasecmp(kv.first.c_str(), "content-type", 12) == 0;
        }))
      headers = curl_slist_append(headers, "Content-Type: application/octet-stream");

    curl_easy_setopt(h, CURLOPT_URL, req.url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(req.timeout.count()));
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(req.connect_timeout.count()));
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &st);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    if (!req.aws_sigv4.empty()) {
      curl_easy_setopt(h, CURLOPT_AWS_SIGV4, req.aws_sigv4.c_str());
      curl_easy_setopt(h, CURLOPT_USERNAME, req.username.c_str());
      curl_easy_setopt(h, CURLOPT_PASSWORD, req.password.c_str());
    }
    curl_blob ca{};
    if (!req.ca_pem.empty()) {
      ca.data = const_cast<char*>(req.ca_pem.data());
      ca.len = req.ca_pem.size();
      ca.flags = CURL_BLOB_COPY;
      curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &ca);
    } else if (!req.ca_file.empty()) {
      curl_easy_setopt(h, CURLOPT_CAINFO, req.ca_file.c_str());
      curl_easy_setopt(h, CURLOPT_CAPATH, nullptr);  // only this bundle, not the system's too
    }
    if (!req.cert_file.empty()) {
      curl_easy_setopt(h, CURLOPT_SSLCERT, req.cert_file.c_str());
      curl_easy_setopt(h, CURLOPT_SSLKEY, req.key_file.c_str());
    }
    curl_slist* connect_to = nullptr;
    for (const auto& c : req.connect_to) connect_to = curl_slist_append(connect_to, c.c_str());
    if (connect_to) curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_to);
    if (req.low_speed_bytes > 0) {
      curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, req.low_speed_bytes);
      curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(req.low_speed_time.count()));
    }
    if (req.body_fd >= 0) {
      curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);  // PUT unless the method says otherwise
      if (req.method != "PUT") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
      curl_easy_setopt(h, CURLOPT_READFUNCTION, &on_read);
      curl_easy_setopt(h, CURLOPT_READDATA, &src);
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(req.body_length));
    } else if (req.method == "GET") {
      curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
    } else if (req.method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else {
      if (req.method != "POST") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, req.method.c_str());
      if (req.method == "POST" || req.method == "PUT" || !req.body.empty()) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.data());
      }
    }

    out.sent_at = std::chrono::steady_clock::now();
    const CURLcode rc = curl_easy_perform(h);
    out.elapsed = std::chrono::steady_clock::now() - out.sent_at;
    long status = 0, os_errno = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
    out.status = static_cast<int>(status);
    out.error = classify(rc, os_errno);
    if (rc != CURLE_OK) {
      out.too_large = st.too_large;
      out.message =
          st.too_large     ? "response larger than " + std::to_string(req.max_response_bytes) + " bytes"
          : st.write_error ? "writing the response body failed: " + std::string{std::strerror(st.write_errno)}
          : errbuf[0]      ? std::string{errbuf}
                           : std::string{curl_easy_strerror(rc)};
      if (out.error != client_error::none) out.status = 0;
    }
    curl_easy_cleanup(h);
    curl_slist_free_all(headers);
    curl_slist_free_all(connect_to);
  } catch (const std::exception& e) {
    out.error = client_error::other;
    out.message = e.what();
  } catch (...) {
    out.error = client_error::other;
    out.message = "unknown exception";
  }
  return out;
}

client_result client::call(std::string method, const std::string& url, std::string body,
                           std::string content_type) const noexcept {
  try {
    client_request req;
    req.method = std::move(method);
    req.url = url;
    req.body = std::move(body);
    req.timeout = opts_.timeout;
    req.connect_timeout = opts_.connect_timeout;
    req.headers = opts_.headers;
    if (!content_type.empty() && !req.body.empty())
      req.headers.emplace_back("Content-Type", content_type);
    return perform(req);
  } catch (...) {
    client_result out;
    out.error = client_error::other;
    out.message = "out of memory";
    return out;
  }
}

}  // namespace br::http
