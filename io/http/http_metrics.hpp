// Prometheus request counter and latency histogram for one HTTP server (no-op without a registry).
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace prometheus {
class Registry;
}

namespace br::http {

class http_metrics {
 public:
  /// Registers (or merges into) bloodraven_http_requests_total and
  /// bloodraven_http_request_duration_seconds on `registry`; null disables metrics.
  http_metrics(std::shared_ptr<prometheus::Registry> registry, std::string server);
  ~http_metrics();
  http_metrics(const http_metrics&) = delete;
  http_metrics& operator=(const http_metrics&) = delete;

  /// `handler` must be a fixed route name; `method` is folded to a fixed set.
  void observe(std::string_view handler, std::string_view method, int status,
               std::chrono::steady_clock::duration elapsed);

  /// "2xx".."5xx" (anything else "other"); "GET".."OPTIONS" (anything else "OTHER").
  static std::string_view status_class(int status);
  static std::string_view method_label(std::string_view method);

 private:
  struct families;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<families> f_;
  std::string server_;
};

}  // namespace br::http
