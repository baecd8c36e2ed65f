// Verification of operator and peer answers; bodies the sidecar signs.
#include "actors/sidecar/fencing/signed_answers.hpp"

#include "actors/common/view_json.hpp"
#include "io/codec/json_limits.hpp"

namespace br::sidecar {

namespace {

using json = nlohmann::json;

std::string str(const json& j, const char* k) {
  auto it = j.find(k);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

operator_answer read_operator_answer(const authority& a, const std::string& nonce,
                                     const http_reply& r) {
  operator_answer out;
  if (r.status != 200) {
    out.error = r.status == 0 ? "no answer: " + r.error : "HTTP " + std::to_string(r.status);
    return out;
  }
  if (auto shape = json_shape_problem(r.body, answer_limits); !shape.empty()) {
    out.error = "answer refused: " + shape;
    return out;
  }
  if (!a.keys || !auth::body_verifies(a.keys->operator_keys, auth::purpose::operator_answer,
                                      a.group, r.body, r.signature)) {
    out.error = "answer not signed by an accepted operator key";
    return out;
  }
  auto j = json::parse(r.body, nullptr, false);
  if (!j.is_object() || str(j, "nonce") != nonce) {
    out.error = "answer does not carry this request's nonce";
    return out;
  }
  auto v = parse_view_answer(r.body);
  if (!v || !auth::view_verifies(a.keys->operator_keys, a.group, *v)) {
    out.error = "view signature does not verify for group " + a.group;
    return out;
  }
  out.view = std::move(v);
  return out;
}

peer_answer read_peer_answer(const authority& a, const std::string& nonce, const http_reply& r) {
  peer_answer out;
  if (r.status != 200) {
    out.error = "HTTP " + std::to_string(r.status);
    return out;
  }
  if (auto shape = json_shape_problem(r.body, answer_limits); !shape.empty()) {
    out.error = "answer refused: " + shape;
    return out;
  }
  auto j = json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("view") || !j["view"].is_object()) {
    out.error = "not a peer answer";
    return out;
  }
  auto v = parse_view_answer(j["view"].dump());
  if (!a.keys || !v || !auth::view_verifies(a.keys->operator_keys, a.group, *v)) {
    out.error = "view not signed by an accepted operator key for group " + a.group;
    return out;
  }
  out.view = std::move(v);
  out.site = str(j, "site");
  if (out.site.empty() || out.site == a.site || str(j, "nonce") != nonce || str(j, "group") != a.group) {
    out.error = "answer not for this request";
    return out;
  }
  out.fresh = auth::body_verifies(a.keys->keys_of_site(out.site), auth::purpose::peer_answer,
                                  a.group, r.body, r.signature);
  if (!out.fresh) out.error = "answer not signed by site " + out.site + "'s key";
  return out;
}

std::string peer_answer_body(const authority& a, const std::string& nonce, const topology_view& v) {
  json j = {{"site", a.site}, {"group", a.group}, {"nonce", nonce},
            {"view", json::parse(view_to_json(v))}};
  return j.dump();
}

std::string ack_body(const authority& a, const std::string& nonce, const push_ack& ack) {
  json j = {{"ack", ack.ok}, {"epoch", ack.epoch}, {"site", a.site}, {"nonce", nonce}};
  if (ack.ok) {
    j["fenced"] = ack.fenced;
    j["mysqlReachable"] = ack.mysql_reachable;
  } else {
    j["error"] = ack.error;
  }
  return j.dump();
}

std::string sign(const authority& a, auth::purpose p, const std::string& body) {
  if (!a.keys || !a.keys->signer) return {};
  return auth::sign_body(*a.keys->signer, p, a.group, body);
}

}  // namespace br::sidecar
