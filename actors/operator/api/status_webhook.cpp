// The status admission webhook's HTTP edge (see the header).
#include "actors/operator/api/status_webhook.hpp"

#include "actors/operator/decide/gr_status_admission.hpp"
#include "io/codec/json_limits.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

/// An AdmissionReview carries the object twice (and its managedFields nest deeply); the body
/// limit of the listener bounds the bytes, this bounds the nesting before any parser sees it.
constexpr json_limits review_limits{4u << 20, 64};

}  // namespace

http::router status_webhook_routes(std::string operator_user) {
  http::router r;
  r.post(status_webhook_path, "validate_status",
         [operator_user](const http::request& req, http::responder reply) {
           if (auto shape = json_shape_problem(req.body, review_limits); !shape.empty()) {
             log::warn("status webhook: bad AdmissionReview", {{"error", shape}, {"client", req.remote_address}});
             return reply(http::response::json(400, nlohmann::json{{"error", shape}}));
           }
           auto a = gr::review_status_admission(req.body, operator_user);
           if (a.http_status != 200) {
             log::warn("status webhook: bad AdmissionReview",
                       {{"error", a.body.value("error", std::string{})}, {"client", req.remote_address}});
           } else if (!a.body["response"].value("allowed", false)) {
             log::info("status webhook denied a write",
                       {{"uid", a.body["response"].value("uid", std::string{})},
                        {"message", a.body["response"]["status"].value("message", std::string{})}});
           }
           reply(http::response::json(a.http_status, a.body));
         });
  r.get("/healthz", "healthz",
        [](const http::request&, http::responder reply) { reply(http::response::text(200, "ok")); });
  return r;
}

http::server_options status_webhook_options(std::string cert_file, std::string key_file) {
  http::server_options o;
  o.name = "webhook";
  o.tls_cert_file = std::move(cert_file);
  o.tls_key_file = std::move(key_file);
  o.max_body_bytes = review_limits.max_bytes;
  o.threads = 1;
  return o;
}

}  // namespace br
