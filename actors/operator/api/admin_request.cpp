// POST /admin/{switchover,reclone}: checks (shape, fields, group, operator signature, freshness)
// and the client side's signing (see admin_request.hpp).
#include "actors/operator/api/admin_request.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>

namespace br {

std::string_view to_string(admin_action a) {
  switch (a) {
    case admin_action::switchover: return "switchover";
    case admin_action::reclone: return "reclone";
    case admin_action::fence: return "fence";
    case admin_action::recover: return "recover";
  }
  return "reclone";
}

std::string_view argument_field(admin_action a) {
  return a == admin_action::switchover ? "target" : "value";
}

namespace {

admin_request refuse(int status, std::string why) {
  admin_request r;
  r.status = status;
  r.error = std::move(why);
  return r;
}

std::string field_problem(admin_action action, const nlohmann::json& j) {
  if (!j.is_object()) return "body must be a JSON object";
  const std::string arg(argument_field(action));
  for (const std::string& f : {std::string("action"), std::string("namespace"), std::string("group"), arg})
    if (!j.contains(f) || !j[f].is_string() || j[f].get<std::string>().empty())
      return f + " must be a non-empty string";
  if (j["action"].get<std::string>() != to_string(action))
    return "action must be \"" + std::string(to_string(action)) + "\" on this path";
  if (!j.contains("sentAtMs") || !j["sentAtMs"].is_number_unsigned() ||
      j["sentAtMs"].get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return "sentAtMs must be a non-negative integer below 2^63";
  return {};
}

}  // namespace

admin_request check_admin_request(admin_action action, group_table& groups,
                                  const http::request& req, int64_t now_ms) {
  if (auto shape = json_shape_problem(req.body, admin_limits); !shape.empty())
    return refuse(req.body.size() > admin_limits.max_bytes ? 413 : 400, shape);
  auto j = nlohmann::json::parse(req.body, nullptr, false);
  if (j.is_discarded()) return refuse(400, "malformed JSON");
  if (auto p = field_problem(action, j); !p.empty()) return refuse(400, p);
  admin_request r;
  r.namespace_name = j["namespace"].get<std::string>();
  r.group = j["group"].get<std::string>();
  r.argument = j[std::string(argument_field(action))].get<std::string>();
  group_table::entry e;
  if (!groups.find(r.namespace_name, r.group, e))
    return refuse(404, "group " + r.namespace_name + "/" + r.group + " not found");
  auto sig = req.header(auth::signature_header);
  if (!e.keys || !sig ||
      !auth::body_verifies(e.keys->operator_keys, auth::purpose::admin,
                           auth::group_key(r.namespace_name, r.group), req.body, *sig))
    return refuse(401, "request not signed by an operator key of the group");
  auto sent = j["sentAtMs"].get<int64_t>();
  if (std::llabs(sent - now_ms) > admin_max_skew_ms)
    return refuse(409, "sentAtMs: more than " + std::to_string(admin_max_skew_ms / 1000) +
                           " s away from the operator's clock");
  if (!groups.accept_admin(r.namespace_name + "/" + r.group, sent))
    return refuse(409, "sentAtMs: not newer than the last admin request of the group (replay)");
  return r;
}

signed_admin_body sign_admin_request(admin_action action, const crypto::signing_key& key,
                                     const std::string& namespace_name, const std::string& group,
                                     const std::string& argument, int64_t sent_at_ms) {
  signed_admin_body out;
  out.body = nlohmann::json{{"action", to_string(action)},
                            {"namespace", namespace_name},
                            {"group", group},
                            {std::string(argument_field(action)), argument},
                            {"sentAtMs", sent_at_ms}}
                 .dump();
  out.signature = auth::sign_body(key, auth::purpose::admin, auth::group_key(namespace_name, group),
                                  out.body);
  return out;
}

}  // namespace br
