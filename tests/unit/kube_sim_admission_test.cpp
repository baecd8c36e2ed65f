// The API simulator's validating admission (tests/support/kube_sim/admission_webhooks.hpp) as
// table tests: which webhooks a request matches, the AdmissionReview sent, and how a webhook's
// answer or failure becomes the API server's refusal (or admission) under failurePolicy.
#include <boost/test/unit_test.hpp>

#include "tests/support/kube_sim/admission_webhooks.hpp"

using namespace br::kube_sim;

namespace {

admission_request status_update(const std::string& sub = "status", bool namespaced = true) {
  admission_request r;
  r.operation = "UPDATE";
  r.type.group = "shipstream.io";
  r.type.kind = "MysqlFailoverGroup";
  r.type.plural = "mysqlfailovergroups";
  r.type.namespaced = namespaced;
  r.path.group = "shipstream.io";
  r.path.version = "v1alpha1";
  r.path.plural = "mysqlfailovergroups";
  r.path.ns = "db";
  r.path.name = "g";
  r.path.sub = sub;
  r.path.user_info = {{"username", "alice"}, {"groups", {"system:authenticated"}}};
  r.object = {{"status", {{"phase", "Running"}}}};
  r.old_object = {{"status", {{"phase", "Pending"}}}};
  return r;
}

json hook(json rule) { return {{"name", "h"}, {"rules", json::array({std::move(rule)})}}; }

json rule(json ops, json groups, json versions, json resources, std::string scope = "*") {
  return {{"operations", ops}, {"apiGroups", groups}, {"apiVersions", versions},
          {"resources", resources}, {"scope", scope}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(rule_matching_table) {
  const json G = {"shipstream.io"}, V = {"v1alpha1"}, U = {"UPDATE"};
  struct row {
    const char* what;
    json webhook;
    admission_request r;
    bool matches;
  };
  const std::vector<row> rows = {
      {"exact status subresource", hook(rule(U, G, V, {"mysqlfailovergroups/status"})), status_update(), true},
      {"status rule, main resource write", hook(rule(U, G, V, {"mysqlfailovergroups/status"})), status_update(""), false},
      {"plain resource rule, status write", hook(rule(U, G, V, {"mysqlfailovergroups"})), status_update(), false},
      {"* is no subresource", hook(rule(U, G, V, {"*"})), status_update(), false},
      {"* matches the main resource", hook(rule(U, G, V, {"*"})), status_update(""), true},
      {"*/* matches all", hook(rule(U, G, V, {"*/*"})), status_update(), true},
      {"p/* matches its subresources", hook(rule(U, G, V, {"mysqlfailovergroups/*"})), status_update(), true},
      {"*/status", hook(rule(U, G, V, {"*/status"})), status_update(), true},
      {"*/scale is not status", hook(rule(U, G, V, {"*/scale"})), status_update(), false},
      {"another resource", hook(rule(U, G, V, {"mysqlbackups/status"})), status_update(), false},
      {"CREATE only", hook(rule({"CREATE"}, G, V, {"*/*"})), status_update(), false},
      {"operations *", hook(rule({"*"}, G, V, {"*/*"})), status_update(), true},
      {"another group", hook(rule(U, {"apps"}, V, {"*/*"})), status_update(), false},
      {"apiGroups *", hook(rule(U, {"*"}, V, {"*/*"})), status_update(), true},
      {"another version", hook(rule(U, G, {"v1"}, {"*/*"})), status_update(), false},
      {"scope Cluster, namespaced object", hook(rule(U, G, V, {"*/*"}, "Cluster")), status_update(), false},
      {"scope Namespaced", hook(rule(U, G, V, {"*/*"}, "Namespaced")), status_update(), true},
      {"scope Namespaced, cluster object", hook(rule(U, G, V, {"*/*"}, "Namespaced")), status_update("status", false), false},
      {"no rules", json{{"name", "h"}}, status_update(), false},
      {"rules not an array", json{{"name", "h"}, {"rules", "x"}}, status_update(), false},
      {"operations missing", hook({{"apiGroups", G}, {"apiVersions", V}, {"resources", {"*/*"}}}), status_update(), false},
  };
  for (const auto& r : rows) BOOST_TEST_CONTEXT(r.what) { BOOST_TEST(webhook_matches(r.webhook, r.r) == r.matches); }
}

BOOST_AUTO_TEST_CASE(review_carries_the_request) {
  const json rv = admission_review(status_update(), "u-1");
  BOOST_TEST(rv["apiVersion"] == "admission.k8s.io/v1");
  BOOST_TEST(rv["kind"] == "AdmissionReview");
  const json& q = rv["request"];
  BOOST_TEST(q["uid"] == "u-1");
  BOOST_TEST(q["operation"] == "UPDATE");
  BOOST_TEST(q["subResource"] == "status");
  BOOST_TEST(q["resource"] == (json{{"group", "shipstream.io"}, {"version", "v1alpha1"}, {"resource", "mysqlfailovergroups"}}));
  BOOST_TEST(q["namespace"] == "db");
  BOOST_TEST(q["userInfo"]["username"] == "alice");
  BOOST_TEST(q["object"]["status"]["phase"] == "Running");
  BOOST_TEST(q["oldObject"]["status"]["phase"] == "Pending");
  BOOST_TEST(!admission_review(status_update(""), "u").at("request").contains("subResource"));
}

BOOST_AUTO_TEST_CASE(outcome_table) {
  auto answer = [](json response) {
    return json{{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"response", response}}.dump();
  };
  const std::string ok = answer({{"uid", "u"}, {"allowed", true}});
  const std::string no = answer({{"uid", "u"}, {"allowed", false}, {"status", {{"code", 403}, {"reason", "Forbidden"}, {"message", "nope"}}}});
  struct row {
    const char* what;
    std::string call_error;
    int http;
    std::string body;
    bool fail_closed;
    int status;           // 0 = admitted
    std::string message;  // part of the refusal
  };
  const std::vector<row> rows = {
      {"allowed", "", 200, ok, true, 0, ""},
      {"denied with message", "", 200, no, true, 403, "admission webhook \"h\" denied the request: nope"},
      {"denied without status", "", 200, answer({{"uid", "u"}, {"allowed", false}}), true, 403, "denied the request without explanation"},
      {"denied with code 422", "", 200, answer({{"uid", "u"}, {"allowed", false}, {"status", {{"code", 422}, {"message", "m"}}}}), true, 422, ": m"},
      {"call failed, Fail", "connection refused", 0, "", true, 500, "failed calling webhook \"h\": failed to call webhook: connection refused"},
      {"call failed, Ignore", "connection refused", 0, "", false, 0, ""},
      {"HTTP 400, Fail", "", 400, "{}", true, 500, "received HTTP status 400"},
      {"not JSON, Fail", "", 200, "<html>", true, 500, "expected webhook response"},
      {"not JSON, Ignore", "", 200, "<html>", false, 0, ""},
      {"uid mismatch", "", 200, answer({{"uid", "other"}, {"allowed", true}}), true, 500, "expected response.uid=\"u\""},
      {"allowed not boolean", "", 200, answer({{"uid", "u"}, {"allowed", "yes"}}), true, 500, "not a boolean"},
      {"denial under Ignore still refuses", "", 200, no, false, 403, "nope"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto out = admission_outcome("h", "u", r.call_error, r.http, r.body, r.fail_closed);
      BOOST_TEST(out.has_value() == (r.status != 0));
      if (out) {
        BOOST_TEST(out->status == r.status);
        const std::string msg = out->body.value("message", std::string{});
        BOOST_TEST(msg.find(r.message) != std::string::npos, msg);
      }
    }
  }
}
