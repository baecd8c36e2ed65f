// Internal: shared libcurl easy-handle setup (TLS, auth, headers, deadline) and reply decoding.
#pragma once

#include <curl/curl.h>

#include <chrono>
#include <string>

#include "io/kube/client.hpp"

namespace br::kube::detail {

void global_init();

struct response_sink {
  std::string body;
  std::size_t limit = 64u << 20;
  char error[CURL_ERROR_SIZE] = {};
};

/// Applies URL, method, body, headers, TLS and auth, timeouts; returns the header list to free.
curl_slist* setup(CURL* h, const config& cfg, const client_options& opts, const std::string& method,
                  const std::string& url, const std::string& body, const std::string& content_type,
                  std::chrono::milliseconds timeout, response_sink& sink);
api_error transport_error(CURLcode rc, const char* detail);
/// 2xx -> the JSON body (null when empty); otherwise the Status object as an api_error.
result<json> decode(int status, const std::string& body);
api_error status_to_error(int status, const json& st);

}  // namespace br::kube::detail
