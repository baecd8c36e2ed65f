// Who may say what: the signed statements that carry authority between the operator and the
// sidecars (docs/safety.md "Threat model"). Pure functions over io/crypto; no I/O.
//
//   view          signed by the operator's key; names its group; stored and relayed as is
//   operator      the operator's answer to a sidecar's GET /active-site?nonce=: the body (view,
//                 nonce) signed by the operator's key; the only thing that renews a lease
//   peer          a sidecar's answer to a peer's GET /peer/active-site?nonce=: the body (its
//                 signed view, its site, the nonce) signed by the answering site's own key
//   ack           a sidecar's answer to PUT /view: the body (ack, epoch, fenced, nonce, site)
//                 signed by its site's key; the nonce comes from the push
//   report        POST /sidecar/report: the body signed by the reporting site's key
// A signed body travels with the header X-Bloodraven-Signature: "<key id>:<hex signature>"; the
// signed bytes are a purpose tag, the group and the exact body, so no statement can be replayed
// as another kind or for another group.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/crypto/ed25519.hpp"
#include "messages/operator.hpp"

namespace br::auth {

inline constexpr const char* signature_header = "X-Bloodraven-Signature";

/// "<namespace>/<name>": the group a statement is about.
std::string group_key(const std::string& namespace_name, const std::string& group);

enum class purpose { operator_answer, peer_answer, ack, report, admin };
std::string_view to_string(purpose p);

/// Keys one process holds. The operator: `signer` is the operator key, `operator_keys` the
/// operator keys sidecars accept (its own public key, plus the previous one during a rollover),
/// `site_keys` every site's public keys. A sidecar: `signer` is its own site's key,
/// `operator_keys` the accepted operator keys, `site_keys` its peers' public keys.
struct key_ring {
  std::optional<crypto::signing_key> signer;
  std::vector<crypto::verify_key> operator_keys;
  std::map<std::string, std::vector<crypto::verify_key>> site_keys;

  const std::vector<crypto::verify_key>& keys_of_site(const std::string& site) const;
};

/// Same keys (both null, or the same signer and the same accepted keys by id).
bool same_keys(const std::shared_ptr<const key_ring>& a, const std::shared_ptr<const key_ring>& b);

/// The signed bytes of a view (epoch, activeSite, deposing; observedAt is informational).
std::string view_statement(const std::string& group, const topology_view& v);

/// `v` with `signature` set by `key`.
topology_view sign_view(const crypto::signing_key& key, const std::string& group, topology_view v);

/// True when `v.signature` is one of `keys`' signature of `v` for `group`.
bool view_verifies(const std::vector<crypto::verify_key>& keys, const std::string& group,
                   const topology_view& v);

/// The header value for `body`.
std::string sign_body(const crypto::signing_key& key, purpose p, const std::string& group,
                      std::string_view body);

/// True when `header` is one of `keys`' signature of `body` for (p, group).
bool body_verifies(const std::vector<crypto::verify_key>& keys, purpose p,
                   const std::string& group, std::string_view body, std::string_view header);

/// 16 random bytes as 32 hex digits.
std::string new_nonce();

/// A nonce as a request may carry it: 16..64 hex digits.
bool nonce_well_formed(std::string_view n);

}  // namespace br::auth
