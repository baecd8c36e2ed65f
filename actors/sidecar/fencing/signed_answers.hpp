// What a sidecar accepts from the network, and what it signs (docs/safety.md "Threat model").
// Pure functions: the fencing monitor, the boot guard and the HTTP routes call them.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "actors/common/authority.hpp"
#include "messages/sidecar.hpp"

namespace br::sidecar {

/// The sidecar's identity in signed statements and its keys.
struct authority {
  std::shared_ptr<const auth::key_ring> keys;  ///< null = nothing verifies, nothing is signed
  std::string group;                           ///< auth::group_key(namespace, group)
  std::string site;
};

/// The operator's answer to GET /active-site?...&nonce=<nonce>: adopted (and counted as operator
/// contact for the lease) only when the body is signed by an accepted operator key for this
/// group, carries this request's nonce, and its view's own signature verifies.
struct operator_answer {
  std::optional<topology_view> view;  ///< signed view, ready to be cached and relayed
  std::string error;                  ///< why not, for logs
};
operator_answer read_operator_answer(const authority& a, const std::string& nonce,
                                     const http_reply& r);

/// A peer's answer to GET /peer/active-site?nonce=<nonce>.
/// `view` is set when the inner view is signed by the operator for this group (adopting it is
/// safe: only the operator can have issued it). `fresh` only when, in addition, the whole answer
/// is signed by the key of the site it names and carries this request's nonce: only a fresh
/// answer may anchor the lease (a replayed view cannot keep a deposed primary writable).
struct peer_answer {
  std::optional<topology_view> view;
  bool fresh = false;
  std::string site;
  std::string error;
};
peer_answer read_peer_answer(const authority& a, const std::string& nonce, const http_reply& r);

/// The body of this sidecar's /peer/active-site answer for `nonce` (sign it with
/// auth::purpose::peer_answer).
std::string peer_answer_body(const authority& a, const std::string& nonce, const topology_view& v);

/// The body of the answer to PUT /view (an ack or a refusal) naming this site and the push's
/// nonce (sign it with auth::purpose::ack).
std::string ack_body(const authority& a, const std::string& nonce, const push_ack& ack);

/// The header value for `body` signed with this sidecar's own key; "" without a key.
std::string sign(const authority& a, auth::purpose p, const std::string& body);

}  // namespace br::sidecar
