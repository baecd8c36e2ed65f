// Signed statements: length-prefixed fields, Ed25519 through io/crypto, "<kid>:<hex>" signatures.
#include "actors/common/authority.hpp"

namespace br::auth {

namespace {

/// Length-prefixed fields: no separator can be smuggled inside a name.
void field(std::string& out, std::string_view v) {
  out += std::to_string(v.size());
  out += ':';
  out += v;
  out += ';';
}

std::string body_statement(purpose p, const std::string& group, std::string_view body) {
  std::string s = "bloodraven/v1;";
  field(s, to_string(p));
  field(s, group);
  field(s, body);
  return s;
}

std::string make_signature(const crypto::signing_key& key, const std::string& statement) {
  auto sig = crypto::sign(key, statement);
  if (sig.empty()) return {};
  return key.pub.id + ":" + crypto::to_hex(sig);
}

bool check_signature(const std::vector<crypto::verify_key>& keys, const std::string& statement,
                     std::string_view signature) {
  auto colon = signature.find(':');
  if (colon == std::string_view::npos || signature.size() > 200) return false;
  auto id = signature.substr(0, colon);
  auto sig = crypto::from_hex(signature.substr(colon + 1));
  if (!sig || sig->size() != 64) return false;
  for (const auto& k : keys)
    if (k.id == id && crypto::verify(k, statement, *sig)) return true;
  return false;
}

}  // namespace

std::string group_key(const std::string& namespace_name, const std::string& group) {
  return namespace_name + "/" + group;
}

std::string_view to_string(purpose p) {
  switch (p) {
    case purpose::operator_answer: return "operator-answer";
    case purpose::peer_answer: return "peer-answer";
    case purpose::ack: return "ack";
    case purpose::report: return "report";
    case purpose::admin: return "admin-request";
  }
  return "unknown";
}

const std::vector<crypto::verify_key>& key_ring::keys_of_site(const std::string& site) const {
  static const std::vector<crypto::verify_key> none;
  auto it = site_keys.find(site);
  return it == site_keys.end() ? none : it->second;
}

bool same_keys(const std::shared_ptr<const key_ring>& a, const std::shared_ptr<const key_ring>& b) {
  if (!a || !b) return !a && !b;
  auto ids = [](const std::vector<crypto::verify_key>& v) {
    std::string out;
    for (const auto& k : v) out += k.id + ",";
    return out;
  };
  if (a->signer.has_value() != b->signer.has_value()) return false;
  if (a->signer && a->signer->seed != b->signer->seed) return false;
  if (ids(a->operator_keys) != ids(b->operator_keys) || a->site_keys.size() != b->site_keys.size())
    return false;
  for (const auto& [site, keys] : a->site_keys) {
    auto it = b->site_keys.find(site);
    if (it == b->site_keys.end() || ids(it->second) != ids(keys)) return false;
  }
  return true;
}

std::string view_statement(const std::string& group, const topology_view& v) {
  std::string s = "bloodraven/v1;";
  field(s, "view");
  field(s, group);
  field(s, std::to_string(v.epoch));
  field(s, v.active_site);
  field(s, v.deposing);
  return s;
}

topology_view sign_view(const crypto::signing_key& key, const std::string& group, topology_view v) {
  v.signature = make_signature(key, view_statement(group, v));
  return v;
}

bool view_verifies(const std::vector<crypto::verify_key>& keys, const std::string& group,
                   const topology_view& v) {
  return !v.signature.empty() && check_signature(keys, view_statement(group, v), v.signature);
}

std::string sign_body(const crypto::signing_key& key, purpose p, const std::string& group,
                      std::string_view body) {
  return make_signature(key, body_statement(p, group, body));
}

bool body_verifies(const std::vector<crypto::verify_key>& keys, purpose p,
                   const std::string& group, std::string_view body, std::string_view header) {
  return check_signature(keys, body_statement(p, group, body), header);
}

std::string new_nonce() { return crypto::to_hex(crypto::random_bytes(16)); }

bool nonce_well_formed(std::string_view n) {
  if (n.size() < 16 || n.size() > 64) return false;
  for (char c : n)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace br::auth
