// Detached HTTP worker: http_call -> io/http perform -> http_reply (send time on the steady clock).
#include "actors/common/http_worker.hpp"

#include <caf/all.hpp>

#include "actors/common/authority.hpp"
#include "io/http/client.hpp"

namespace br {

namespace {

http_reply perform_call(const http_call& c, const config::api_tls_settings& tls) {
  http::client_request req;
  req.method = c.method;
  req.url = call_url(c.url, tls);
  if (tls.on()) {
    req.ca_file = tls.ca_file;
    req.cert_file = tls.cert_file;
    req.key_file = tls.key_file;
  }
  req.body = c.body;
  if (!c.body.empty()) req.headers.emplace_back("Content-Type", "application/json");
  if (!c.signature.empty()) req.headers.emplace_back(auth::signature_header, c.signature);
  req.timeout = std::chrono::milliseconds(c.timeout_ms);
  req.connect_timeout = std::min(req.timeout, std::chrono::milliseconds(2000));
  req.max_response_bytes = 1 << 20;
  auto r = http::perform(req);
  http_reply out;
  out.status = r.status;
  out.body = std::move(r.body);
  if (auto sig = r.header("x-bloodraven-signature")) out.signature = *sig;
  if (r.error != http::client_error::none)
    out.error = std::string(http::to_string(r.error)) + ": " + r.message;
  out.sent_at_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       r.sent_at.time_since_epoch())
                       .count();
  return out;
}

http_worker_actor::behavior_type worker(config::api_tls_settings tls) {
  return {[tls](http_call_atom, const http_call& c) { return perform_call(c, tls); }};
}

}  // namespace

std::string call_url(const std::string& url, const config::api_tls_settings& tls) {
  static constexpr std::string_view plain = "http://";
  if (!tls.on() || url.compare(0, plain.size(), plain) != 0) return url;
  return "https://" + url.substr(plain.size());
}

http_worker_actor spawn_http_worker(caf::actor_system& sys, const config::api_tls_settings& tls) {
  return sys.spawn<caf::detached>(worker, tls);
}

}  // namespace br
