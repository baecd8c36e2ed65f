// libcurl option plumbing for io/kube (kept apart so watch and plain calls share it).
#include "io/kube/curl_setup.hpp"

#include <mutex>

namespace br::kube::detail {

namespace {

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* s = static_cast<response_sink*>(user);
  const size_t bytes = size * n;
  if (s->body.size() + bytes > s->limit) return 0;
  s->body.append(data, bytes);
  return bytes;
}

}  // namespace

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

curl_slist* setup(CURL* h, const config& cfg, const client_options& opts, const std::string& method,
                  const std::string& url, const std::string& body, const std::string& content_type,
                  std::chrono::milliseconds timeout, response_sink& sink) {
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min(timeout, opts.connect_timeout).count()));
  curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, sink.error);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &sink);
  if (method == "GET") {
    curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  } else {
    curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  if (!body.empty()) {
    curl_easy_setopt(h, CURLOPT_POSTFIELDS, body.c_str());  // not copied: body outlives perform
    curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  }
  // TLS: CA bundle, client certificate, or (explicitly configured) no verification.
  if (!cfg.ca_data.empty()) {
    curl_blob blob{const_cast<char*>(cfg.ca_data.data()), cfg.ca_data.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
  } else if (!cfg.ca_file.empty()) {
    curl_easy_setopt(h, CURLOPT_CAINFO, cfg.ca_file.c_str());
  }
  if (!cfg.client_cert_data.empty()) {
    curl_blob cert{const_cast<char*>(cfg.client_cert_data.data()), cfg.client_cert_data.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &cert);
  } else if (!cfg.client_cert_file.empty()) {
    curl_easy_setopt(h, CURLOPT_SSLCERT, cfg.client_cert_file.c_str());
  }
  if (!cfg.client_key_data.empty()) {
    curl_blob key{const_cast<char*>(cfg.client_key_data.data()), cfg.client_key_data.size(), CURL_BLOB_COPY};
    curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &key);
  } else if (!cfg.client_key_file.empty()) {
    curl_easy_setopt(h, CURLOPT_SSLKEY, cfg.client_key_file.c_str());
  }
  if (cfg.insecure_skip_tls_verify) {
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/json");
  headers = curl_slist_append(headers, ("User-Agent: " + opts.user_agent).c_str());
  if (!content_type.empty()) headers = curl_slist_append(headers, ("Content-Type: " + content_type).c_str());
  if (!opts.identity.empty())
    headers = curl_slist_append(headers, (std::string{identity_header} + ": " + opts.identity).c_str());
  if (cfg.token) {
    if (auto t = cfg.token->token(); !t.empty())
      headers = curl_slist_append(headers, ("Authorization: Bearer " + t).c_str());
  }
  headers = curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  return headers;
}

api_error transport_error(CURLcode rc, const char* detail) {
  std::string msg = curl_easy_strerror(rc);
  if (detail && *detail) msg += std::string{": "} + detail;
  return api_error{0, rc == CURLE_OPERATION_TIMEDOUT ? "Timeout" : "Transport", msg};
}

api_error status_to_error(int status, const json& st) {
  api_error e;
  e.status = st.is_object() && st.value("code", 0) != 0 ? st.value("code", status) : status;
  if (st.is_object() && st.value("kind", std::string{}) == "Status") {
    e.reason = st.value("reason", std::string{});
    e.message = st.value("message", std::string{});
  }
  if (e.reason.empty()) e.reason = "HTTP" + std::to_string(status);
  return e;
}

result<json> decode(int status, const std::string& body) {
  json j = body.empty() ? json{} : json::parse(body, nullptr, false);
  if (status >= 200 && status < 300) {
    if (j.is_discarded()) return api_error{status, "BadResponse", "response is not JSON"};
    return j;
  }
  if (j.is_discarded()) {
    return api_error{status, "HTTP" + std::to_string(status), body.substr(0, 200)};
  }
  return status_to_error(status, j);
}

}  // namespace br::kube::detail

namespace br::kube {
std::string api_error::describe() const {
  return (status ? std::to_string(status) + " " : std::string{}) + reason + ": " + message;
}
}  // namespace br::kube
