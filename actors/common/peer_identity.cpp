// Client certificate identities (see the header).
#include "actors/common/peer_identity.hpp"

namespace br::auth {

namespace {

constexpr std::string_view scheme = "bloodraven://";

std::string describe(const http::tls_peer& p) {
  std::string out;
  for (const auto& u : p.uris)
    if (u.compare(0, scheme.size(), scheme) == 0) out += (out.empty() ? "" : ", ") + u;
  return out;
}

}  // namespace

std::string site_identity_uri(std::string_view ns, std::string_view group, std::string_view site) {
  return std::string(scheme) + "site/" + std::string(ns) + "/" + std::string(group) + "/" +
         std::string(site);
}

std::string check_peer(const std::optional<http::tls_peer>& peer, bool certificates_on,
                       const peer_expectation& want) {
  if (!certificates_on) return {};
  if (!peer) return "a client certificate signed by the group's CA is required";
  const std::string group_prefix = site_identity_uri(want.ns, want.group, "");
  bool named = false;
  for (const auto& u : peer->uris) {
    if (u.compare(0, scheme.size(), scheme) != 0) continue;
    named = true;
    if (want.operator_ok && u == operator_identity_uri) return {};
    if (want.sites_ok && u.size() > group_prefix.size() && u.compare(0, group_prefix.size(), group_prefix) == 0 &&
        u.find('/', group_prefix.size()) == std::string::npos &&
        (want.site.empty() || u.compare(group_prefix.size(), std::string::npos, want.site) == 0))
      return {};
  }
  if (!named) return {};  // a group-wide certificate: the CA is the identity
  std::string allowed;
  if (want.operator_ok) allowed = std::string(operator_identity_uri);
  if (want.sites_ok)
    allowed += (allowed.empty() ? "" : " or ") +
               (want.site.empty() ? group_prefix + "<site>" : site_identity_uri(want.ns, want.group, want.site));
  return "the client certificate names " + describe(*peer) + ", not " + allowed;
}

}  // namespace br::auth
