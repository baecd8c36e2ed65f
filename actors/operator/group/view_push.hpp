// Pushing a topology view to a site's sidecar (PUT /view, bearer token) and reading its answer.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "messages/operator.hpp"
#include "messages/sidecar.hpp"

namespace br {

/// What one sidecar answered to a pushed view. `acked` only for a 200 with {"ack": true} for an
/// epoch at least the pushed one: the sidecar fenced (or confirmed fenced, or found mysqld down)
/// before answering, or the view names its own site.
struct view_ack {
  std::string site;
  bool acked = false;
  bool stale = false;  ///< 409: the sidecar holds a newer view
  bool fenced = false;
  bool mysql_reachable = true;
  uint64_t epoch = 0;
  int status = 0;     ///< HTTP status, 0 = no response
  std::string error;  ///< why not acked (one line)
};

/// The request: PUT http://<address>/view with the view as JSON and the token.
http_call view_push_call(const std::string& address, const std::string& token,
                         const topology_view& view, std::chrono::milliseconds timeout);

/// Reads the answer to view_push_call for `pushed`.
view_ack parse_view_ack(const std::string& site, const topology_view& pushed, const http_reply& r);

}  // namespace br
