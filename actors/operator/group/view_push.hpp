// Pushing a signed topology view to a site's sidecar (PUT /view) and reading its signed answer.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actors/common/authority.hpp"
#include "messages/operator.hpp"
#include "messages/sidecar.hpp"

namespace br {

/// What one sidecar answered to a pushed view. `acked` only for a 200 with {"ack": true} for an
/// epoch at least the pushed one, signed by the site's own key over the push's nonce: the
/// sidecar fenced (or confirmed fenced, or found mysqld provably down) before answering, or the
/// view names its own site.
struct view_ack {
  std::string site;
  bool acked = false;
  bool stale = false;  ///< 409: the sidecar holds a newer view (signed like an ack)
  bool fenced = false;
  bool mysql_reachable = true;
  uint64_t epoch = 0;
  int status = 0;     ///< HTTP status, 0 = no response
  std::string error;  ///< why not acked (one line)
};

/// The request: PUT http://<address>/view with the signed view and a fresh nonce as JSON. It
/// carries no secret: the view's signature is what the sidecar checks, and the view is public.
http_call view_push_call(const std::string& address, const topology_view& signed_view,
                         const std::string& nonce, std::chrono::milliseconds timeout);

/// Reads the answer to view_push_call for `pushed` (nonce `nonce`) from `site`: only an answer
/// whose X-Bloodraven-Signature verifies with `site_keys` for (ack, group) and that names the
/// site and the nonce counts. An impostor behind the site's address cannot produce one.
view_ack parse_view_ack(const std::string& site, const topology_view& pushed,
                        const std::string& nonce, const std::vector<crypto::verify_key>& site_keys,
                        const std::string& group, const http_reply& r);

/// GET http://<address>/peer/active-site?nonce=<nonce>: what a sidecar holds (epoch recovery).
http_call held_view_call(const std::string& address, const std::string& nonce,
                         std::chrono::milliseconds timeout);

/// What a sidecar's answer to held_view_call proves about the epochs already issued.
struct held_view {
  bool answered = false;  ///< 200 with a view, or 204 (no view): the sidecar is there
  std::optional<topology_view> view;  ///< set only when an accepted operator key signed it
  std::string error;
};
/// Reads the answer: the inner view counts only when its signature verifies with
/// `operator_keys` for `group` (only this operator can have issued it; the answer itself need
/// not be fresh: a replayed view only shows an epoch that was issued).
held_view parse_held_view(const http_reply& r, const std::vector<crypto::verify_key>& operator_keys,
                          const std::string& group);

}  // namespace br
