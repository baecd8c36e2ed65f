// PUT /view request and signed acknowledgement parsing (pure).
#include "actors/operator/group/view_push.hpp"

#include <nlohmann/json.hpp>

#include "actors/common/view_json.hpp"
#include "io/codec/json_limits.hpp"

namespace br {

http_call view_push_call(const std::string& address, const topology_view& signed_view,
                         const std::string& nonce, std::chrono::milliseconds timeout) {
  http_call c;
  c.method = "PUT";
  c.url = "http://" + address + "/view";
  auto j = nlohmann::json::parse(view_to_json(signed_view));
  j["nonce"] = nonce;
  c.body = j.dump();
  c.timeout_ms = timeout.count();
  return c;
}

view_ack parse_view_ack(const std::string& site, const topology_view& pushed,
                        const std::string& nonce, const std::vector<crypto::verify_key>& site_keys,
                        const std::string& group, const http_reply& r) {
  view_ack a;
  a.site = site;
  a.status = r.status;
  if (r.status == 0) {
    a.error = r.error.empty() ? "no response" : r.error;
    return a;
  }
  if (auto shape = json_shape_problem(r.body, answer_limits); !shape.empty()) {
    a.error = "HTTP " + std::to_string(r.status) + " refused: " + shape;
    return a;
  }
  if (!auth::body_verifies(site_keys, auth::purpose::ack, group, r.body, r.signature)) {
    a.error = "HTTP " + std::to_string(r.status) +
              " without a valid signature of the site's sidecar (not counted)";
    return a;
  }
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object()) {
    a.error = "HTTP " + std::to_string(r.status) + " without a JSON object";
    return a;
  }
  auto str = [&](const char* k) {
    auto e = j.find(k);
    return e != j.end() && e->is_string() ? e->get<std::string>() : std::string();
  };
  if (str("site") != site || str("nonce") != nonce) {
    a.error = "signed answer for another site or push (not counted)";
    return a;
  }
  if (auto e = j.find("epoch"); e != j.end() && e->is_number_unsigned()) a.epoch = e->get<uint64_t>();
  a.error = str("error");
  if (r.status == 409) {
    a.stale = true;
    if (a.error.empty()) a.error = "sidecar holds a newer view";
    return a;
  }
  auto ack = j.find("ack");
  if (r.status != 200 || ack == j.end() || !ack->is_boolean() || !ack->get<bool>()) {
    if (a.error.empty()) a.error = "HTTP " + std::to_string(r.status) + " without an acknowledgement";
    return a;
  }
  if (a.epoch < pushed.epoch) {
    a.error = "acknowledged epoch " + std::to_string(a.epoch) + " is older than the pushed " +
              std::to_string(pushed.epoch);
    return a;
  }
  if (auto e = j.find("fenced"); e != j.end() && e->is_boolean()) a.fenced = e->get<bool>();
  if (auto e = j.find("mysqlReachable"); e != j.end() && e->is_boolean())
    a.mysql_reachable = e->get<bool>();
  a.acked = true;
  a.error.clear();
  return a;
}

http_call held_view_call(const std::string& address, const std::string& nonce,
                         std::chrono::milliseconds timeout) {
  http_call c;
  c.method = "GET";
  c.url = "http://" + address + "/peer/active-site?nonce=" + nonce;
  c.timeout_ms = timeout.count();
  return c;
}

held_view parse_held_view(const http_reply& r, const std::vector<crypto::verify_key>& operator_keys,
                          const std::string& group) {
  held_view h;
  if (r.status == 204) {
    h.answered = true;
    return h;
  }
  if (r.status != 200) {
    h.error = r.status == 0 ? (r.error.empty() ? "no response" : r.error)
                            : "HTTP " + std::to_string(r.status);
    return h;
  }
  h.answered = true;
  if (auto shape = json_shape_problem(r.body, answer_limits); !shape.empty()) {
    h.error = "answer refused: " + shape;
    return h;
  }
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object() || !j.contains("view") || !j["view"].is_object()) {
    h.error = "not a peer answer";
    return h;
  }
  auto v = parse_view_answer(j["view"].dump());
  if (!v || !auth::view_verifies(operator_keys, group, *v)) {
    h.error = "view not signed by an accepted operator key for group " + group;
    return h;
  }
  h.view = std::move(v);
  return h;
}

}  // namespace br
