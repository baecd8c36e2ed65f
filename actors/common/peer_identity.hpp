// Who a verified TLS client certificate stands for (issue 26), and the check the authority-
// carrying routes make with it (docs/safety.md "Client certificates"). Pure: no I/O.
//
// A certificate names its holder with URI subjectAltNames:
//   bloodraven://operator                          the operator (and `bloodraven switchover` etc.)
//   bloodraven://site/<namespace>/<group>/<site>   that site's sidecar
// A certificate with no bloodraven:// URI (one certificate shared by a whole group, as one
// cert-manager Certificate per group issues) is accepted wherever a certificate is required: the
// CA is then the only identity, and the signatures (operator key, per-site keys) still decide.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "io/http/message.hpp"

namespace br::auth {

inline constexpr std::string_view operator_identity_uri = "bloodraven://operator";
std::string site_identity_uri(std::string_view ns, std::string_view group, std::string_view site);

/// Who may make a request.
struct peer_expectation {
  bool operator_ok = false;  ///< the operator's certificate
  bool sites_ok = false;     ///< a site's certificate of group ns/group ...
  std::string ns, group;
  std::string site;  ///< ... this site only ("" = any site of the group)
};

/// "" when the request may proceed, else why not (the 403's text). `certificates_on`: this
/// process serves its API over TLS with client certificates; off, every request proceeds (plain
/// HTTP: the signatures are the only check). On: a request without a verified certificate is
/// refused (a plain listener beside the TLS one included); a certificate that names bloodraven://
/// identities must name one the expectation allows.
std::string check_peer(const std::optional<http::tls_peer>& peer, bool certificates_on,
                       const peer_expectation& want);

}  // namespace br::auth
