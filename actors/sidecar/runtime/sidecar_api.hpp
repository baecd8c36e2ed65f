// sidecar_api: the sidecar's HTTP routes (/ready, /primary, /replica, PUT /view).
#pragma once

#include <caf/actor_system.hpp>

#include <memory>
#include <string>

#include "actors/sidecar/common/sidecar_handles.hpp"
#include "config/sidecar_config.hpp"
#include "io/http/router.hpp"
#include "messages/sidecar.hpp"

namespace br::sidecar {

struct api_options {
  std::string site;
  std::string token;  ///< "" = every PUT /view is refused
  /// Re-read on every push so a rotated token Secret takes effect without a restart; when it
  /// cannot be read (or is empty) `token` stays in force. "" = `token` only.
  std::string token_file;
  std::chrono::milliseconds push_timeout{30000};  ///< > FENCE_TIMEOUT + probe: a push may fence
  bool archiver_enabled = false;  ///< GET /archiver/status asks the archiver, else {enabled:false}
};

/// Constant-time check of "Authorization: Bearer <token>"; false when token is empty.
bool bearer_ok(const http::request& req, const std::string& token);

/// The token a push must present now: the token file's current content, else `o.token`.
std::string current_token(const api_options& o, const config::file_reader& read);

/// The /status body (plus self_fenced and epoch).
nlohmann::json status_json(const mysql_outcome& probe, const sidecar_status& st);

/// The PUT /view answer for an acknowledgement (or a refusal).
http::response push_response(const push_ack& a);

/// Installs GET /health /ready /status /peer/ping /peer/active-site /primary /replica
/// /archiver/status and PUT /view.
/// Handlers never block: each asks the actors through short-lived event-based actors.
void install_sidecar_routes(http::router& r, caf::actor_system& sys, api_options opts,
                            std::shared_ptr<sidecar_handles> handles);

}  // namespace br::sidecar
