// The operator's validating admission webhook for MysqlFailoverGroup status writes (issue 23):
// POST /validate-status answers the API server's AdmissionReview v1 with the rules of
// decide/gr_status_admission.hpp. Served on its own HTTPS listener in Kubernetes mode
// (--webhook-listen, certificate and key from files: a mounted Secret).
#pragma once

#include <string>

#include "io/http/router.hpp"
#include "io/http/server.hpp"

namespace br {

inline constexpr const char* status_webhook_path = "/validate-status";

/// The webhook's routes: POST /validate-status (and GET /healthz: 200 "ok"). `operator_user` is
/// the identity allowed to change a Group Replication group's status. Denials are logged.
http::router status_webhook_routes(std::string operator_user);

/// The listener's options: TLS from `cert_file`/`key_file`, a body limit that fits an
/// AdmissionReview of two objects (4 MiB), the server's other limits and timeouts.
http::server_options status_webhook_options(std::string cert_file, std::string key_file);

}  // namespace br
