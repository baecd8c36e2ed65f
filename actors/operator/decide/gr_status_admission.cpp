// The Group Replication status admission rules (see the header).
#include "actors/operator/decide/gr_status_admission.hpp"

#include <vector>

namespace br::gr {

using nlohmann::json;

namespace {

/// The member of `o` at `key` when `o` is an object holding it, else null.
const json& member(const json& o, const char* key) {
  static const json null_value;
  if (!o.is_object()) return null_value;
  auto it = o.find(key);
  return it == o.end() ? null_value : *it;
}

bool is_group_replication(const json& object) {
  const json& mode = member(member(member(object, "spec"), "replication"), "mode");
  return mode.is_string() && mode.get<std::string>() == "groupReplication";
}

const json& gr_status(const json& object) {
  return member(member(object, "status"), "groupReplication");
}

std::string group_name(const json& gr) {
  const json& n = member(gr, "groupName");
  return n.is_string() ? n.get<std::string>() : std::string{};
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

admission_decision judge_status_write(const json& old_object, const json& object,
                                      const std::string& username,
                                      const std::string& operator_user) {
  if (!old_object.is_object() || !object.is_object())
    return {false, "malformed AdmissionReview: request.object and request.oldObject must be objects"};
  if (!is_group_replication(old_object) && !is_group_replication(object)) return {true, ""};
  std::vector<std::string> why;
  const json& before = gr_status(old_object);
  const json& after = gr_status(object);
  if (member(before, "bootstrapped") == json(true) && member(after, "bootstrapped") != json(true))
    why.push_back(
        "status.groupReplication.bootstrapped may not go from true back to false (a bootstrapped "
        "group is never bootstrapped again)");
  const std::string old_name = group_name(before);
  const std::string new_name = group_name(after);
  if (!old_name.empty() && new_name.empty())
    why.push_back("status.groupReplication.groupName \"" + old_name + "\" may not be removed");
  else if (!old_name.empty() && new_name != old_name)
    why.push_back("status.groupReplication.groupName may not change from \"" + old_name +
                  "\" to \"" + new_name + "\"");
  if (username != operator_user && member(old_object, "status") != member(object, "status"))
    why.push_back("only the operator (" + operator_user +
                  ") may change the status of a Group Replication group; user \"" + username +
                  "\" may not");
  if (why.empty()) return {true, ""};
  return {false, join(why)};
}

review_answer review_status_admission(std::string_view body, const std::string& operator_user) {
  auto bad = [](const std::string& message) {
    return review_answer{400, json{{"error", message}}};
  };
  const json review = json::parse(body.begin(), body.end(), nullptr, false);
  if (review.is_discarded() || !review.is_object()) return bad("the body is not a JSON object");
  if (member(review, "apiVersion") != json("admission.k8s.io/v1") ||
      member(review, "kind") != json("AdmissionReview"))
    return bad("expected an AdmissionReview of apiVersion admission.k8s.io/v1");
  const json& request = member(review, "request");
  const json& uid = member(request, "uid");
  if (!uid.is_string() || uid.get<std::string>().empty())
    return bad("the AdmissionReview has no request.uid");

  admission_decision d;
  const json& resource = member(request, "resource");
  const json& username = member(member(request, "userInfo"), "username");
  if (member(resource, "group") != json("shipstream.io") ||
      member(resource, "resource") != json("mysqlfailovergroups") ||
      member(request, "subResource") != json("status") ||
      member(request, "operation") != json("UPDATE")) {
    d.message = "this webhook judges only UPDATEs of shipstream.io mysqlfailovergroups/status";
  } else if (!username.is_string()) {
    d.message = "malformed AdmissionReview: request.userInfo.username is missing";
  } else {
    d = judge_status_write(member(request, "oldObject"), member(request, "object"),
                           username.get<std::string>(), operator_user);
  }
  json response = {{"uid", uid}, {"allowed", d.allowed}};
  if (!d.allowed)
    response["status"] = {{"code", 403}, {"reason", "Forbidden"}, {"message", d.message}};
  return {200, json{{"apiVersion", "admission.k8s.io/v1"},
                    {"kind", "AdmissionReview"},
                    {"response", std::move(response)}}};
}

}  // namespace br::gr
