// The Group Replication status admission rules (issue 23, the status webhook) as pure functions:
// who may write a MysqlFailoverGroup's status and which transitions of
// status.groupReplication are legal. The operator serves them as a validating admission webhook
// (actors/operator/api/status_webhook.*); the API server asks before every status write.
//
// The rules, for a group whose spec.replication.mode is groupReplication (async groups are
// never judged: always allowed):
//   - status.groupReplication.bootstrapped may go false -> true, never back (a bootstrapped group
//     is never bootstrapped again: a second bootstrap would split it);
//   - status.groupReplication.groupName may go empty -> value, never change or be removed;
//   - only the operator's identity may change the status at all (an unchanged status passes).
// The first two bind the operator as well.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace br::gr {

struct admission_decision {
  bool allowed = false;
  std::string message;  ///< why it was denied ("" when allowed)
};

/// Pure: judges one status write of a MysqlFailoverGroup: `old_object` before, `object` after,
/// written by `username`; `operator_user` is the operator's user name (its ServiceAccount,
/// "system:serviceaccount:<ns>:<name>"). Objects that are not JSON objects are denied.
admission_decision judge_status_write(const nlohmann::json& old_object,
                                      const nlohmann::json& object, const std::string& username,
                                      const std::string& operator_user);

/// The webhook's answer: the HTTP status and the body.
struct review_answer {
  int http_status = 200;
  nlohmann::json body;
};

/// Pure: answers an AdmissionReview v1 request body (as POSTed by the API server). A body that
/// is not an AdmissionReview v1 with a request uid gets 400 (the API server then applies the
/// webhook's failurePolicy); otherwise 200 with the review's response: the uid echoed, allowed,
/// and when denied status {code 403, reason Forbidden, message}. Only UPDATEs of
/// shipstream.io mysqlfailovergroups/status are judged; any other request, or one missing its
/// objects, is denied with a message saying what was wrong.
review_answer review_status_admission(std::string_view body, const std::string& operator_user);

}  // namespace br::gr
