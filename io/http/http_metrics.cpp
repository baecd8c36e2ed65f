// Prometheus families for HTTP request counts and durations.
#include "io/http/http_metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>

namespace br::http {

struct http_metrics::families {
  prometheus::Family<prometheus::Counter>* requests = nullptr;
  prometheus::Family<prometheus::Histogram>* duration = nullptr;
};

http_metrics::http_metrics(std::shared_ptr<prometheus::Registry> registry, std::string server)
    : registry_(std::move(registry)), server_(std::move(server)) {
  if (!registry_) return;
  f_ = std::make_unique<families>();
  f_->requests = &prometheus::BuildCounter()
                      .Name("bloodraven_http_requests_total")
                      .Help("HTTP requests answered, by server, handler, method and status class")
                      .Register(*registry_);
  f_->duration = &prometheus::BuildHistogram()
                      .Name("bloodraven_http_request_duration_seconds")
                      .Help("Time from a fully read request to its response being queued")
                      .Register(*registry_);
}

http_metrics::~http_metrics() = default;

std::string_view http_metrics::status_class(int status) {
  switch (status / 100) {
    case 1:
      return "1xx";
    case 2:
      return "2xx";
    case 3:
      return "3xx";
    case 4:
      return "4xx";
    case 5:
      return "5xx";
    default:
      return "other";
  }
}

std::string_view http_metrics::method_label(std::string_view method) {
  static constexpr std::array<std::string_view, 7> known{"GET",    "POST", "PUT",    "PATCH",
                                                         "DELETE", "HEAD", "OPTIONS"};
  for (auto k : known)
    if (k == method) return k;
  return "OTHER";
}

void http_metrics::observe(std::string_view handler, std::string_view method, int status,
                           std::chrono::steady_clock::duration elapsed) {
  if (!f_) return;
  const std::string h{handler}, m{method_label(method)};
  f_->requests
      ->Add({{"server", server_},
             {"handler", h},
             {"method", m},
             {"status", std::string{status_class(status)}}})
      .Increment();
  static const prometheus::Histogram::BucketBoundaries buckets{0.001, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                               0.25,  0.5,   1,    2.5,   5,    10};
  f_->duration->Add({{"server", server_}, {"handler", h}, {"method", m}}, buckets)
      .Observe(std::chrono::duration<double>(elapsed).count());
}

}  // namespace br::http
