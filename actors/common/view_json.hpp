// JSON forms of the topology view: /peer/active-site answers, operator answers, PUT /view, view.json.
#pragma once

#include <optional>
#include <string>

#include "messages/sidecar.hpp"

namespace br {

/// {"activeSite","deposing","epoch","observedAt"(RFC3339 UTC),"signature"}: what
/// /peer/active-site serves and what the state file holds (signature only when set).
std::string view_to_json(const topology_view& v);

/// Lenient parse of an /active-site (operator) or /peer/active-site (peer) answer: `activeSite`
/// (string) is required; `epoch` (unsigned, default 0 for old operators), `deposing` and
/// `observedAt` are optional. nullopt when the body is not such an object.
std::optional<topology_view> parse_view_answer(const std::string& body);

/// Strict parse of a pushed view (PUT /view): an object with `epoch` (unsigned integer),
/// `activeSite` and `deposing` (strings, may be empty), `observedAt` (RFC3339 string),
/// `signature` (the operator's, checked by the caller) and `nonce` (echoed in the signed ack).
struct pushed_view_parse {
  std::optional<topology_view> view;
  std::string nonce;
  std::string error;  ///< names the field: "missing field \"epoch\"", "field \"epoch\": ..."
};
pushed_view_parse parse_pushed_view(const std::string& body);

}  // namespace br
