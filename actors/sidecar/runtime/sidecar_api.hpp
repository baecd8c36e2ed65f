// sidecar_api: the sidecar's HTTP routes (/health, /ready, /status, /peer/*, /primary, /replica,
// /archiver/status, PUT /view).
#pragma once

#include <caf/actor_system.hpp>

#include <memory>
#include <string>

#include "actors/sidecar/common/sidecar_handles.hpp"
#include "actors/sidecar/fencing/signed_answers.hpp"
#include "config/sidecar_config.hpp"
#include "io/http/router.hpp"
#include "messages/sidecar.hpp"

namespace br::sidecar {

struct api_options {
  std::string site;
  /// Keys and identity: pushed views must carry the operator's signature, acks and
  /// /peer/active-site answers are signed with this site's own key (docs/safety.md).
  authority auth;
  std::chrono::milliseconds push_timeout{30000};  ///< > FENCE_TIMEOUT + probe: a push may fence
  bool archiver_enabled = false;  ///< GET /archiver/status asks the archiver, else {enabled:false}
  /// Group Replication: /ready is the member's own state (gr_health.hpp), /gr/* answer for the
  /// router, /status has no fencing part (no fencing monitor runs).
  bool group_replication = false;
  std::size_t gr_members = 0;   ///< GR_MEMBERS (gr_health.hpp's expectation)
  std::string gr_group_name;    ///< GR_GROUP_NAME
  /// The API is served over TLS with client certificates (issue 26): PUT /view then needs the
  /// operator's certificate and GET /peer/active-site one of the operator or a site of
  /// pod_namespace/group (actors/common/peer_identity.hpp); 403 otherwise.
  bool client_certificates = false;
  std::string pod_namespace, group;
};

/// The /status body (plus self_fenced and epoch).
nlohmann::json status_json(const mysql_outcome& probe, const sidecar_status& st);

/// The PUT /view answer for an acknowledgement (or a refusal): the body names this site and the
/// push's nonce and is signed with this site's key (X-Bloodraven-Signature).
http::response push_response(const authority& auth, const std::string& nonce, const push_ack& a);

/// PUT /view up to the monitor: "" and the view + nonce when the body is a well-formed push of a
/// view the operator signed for this group; else the response to send (400 with the field, or
/// 403 for a signature that does not verify). Exposed for the fuzz target and tests.
struct push_check {
  std::optional<http::response> refusal;
  topology_view view;
  std::string nonce;
};
push_check check_push(const authority& auth, const http::request& req);

/// Installs GET /health /ready /status /peer/ping /peer/active-site /primary /replica
/// /archiver/status and PUT /view.
/// Handlers never block: each asks the actors through short-lived event-based actors.
void install_sidecar_routes(http::router& r, caf::actor_system& sys, api_options opts,
                            std::shared_ptr<sidecar_handles> handles);

}  // namespace br::sidecar
