// API simulation: validating admission webhooks (see the header).
#include "tests/support/kube_sim/admission_webhooks.hpp"

#include <algorithm>
#include <cstdio>

#include "io/codec/base64.hpp"
#include "io/http/client.hpp"

namespace br::kube_sim {

namespace {

bool lists(const json& rule, const char* key, const std::string& value) {
  const json a = rule.value(key, json::array());
  if (!a.is_array()) return false;
  return std::any_of(a.begin(), a.end(), [&](const json& v) {
    return v.is_string() && (v == "*" || v.get<std::string>() == value);
  });
}

/// A rules[].resources entry against plural `p` and subresource `s` (the API server's rules:
/// "*" every resource but no subresource, "*/*" everything, "p/*" every subresource of p,
/// "*/s" subresource s of every resource).
bool resource_matches(const std::string& entry, const std::string& p, const std::string& s) {
  const auto slash = entry.find('/');
  const std::string er = entry.substr(0, slash);
  const std::string es = slash == std::string::npos ? std::string{} : entry.substr(slash + 1);
  if (er != "*" && er != p) return false;
  if (slash == std::string::npos) return s.empty();
  return es == "*" || es == s;
}

std::optional<api_result> failure(const std::string& name, const std::string& detail, bool fail_closed) {
  if (!fail_closed) return std::nullopt;
  return status_error(500, "InternalError",
                      "Internal error occurred: failed calling webhook \"" + name + "\": " + detail);
}

}  // namespace

bool webhook_matches(const json& webhook, const admission_request& r) {
  const json rules = webhook.value("rules", json::array());
  if (!rules.is_array()) return false;
  for (const auto& rule : rules) {
    if (!rule.is_object()) continue;
    if (!lists(rule, "operations", r.operation) || !lists(rule, "apiGroups", r.type.group) ||
        !lists(rule, "apiVersions", r.path.version))
      continue;
    const json res = rule.value("resources", json::array());
    if (!res.is_array() ||
        std::none_of(res.begin(), res.end(), [&](const json& e) {
          return e.is_string() && resource_matches(e.get<std::string>(), r.type.plural, r.path.sub);
        }))
      continue;
    const std::string scope = rule.value("scope", std::string{"*"});
    if (scope == "Cluster" && r.type.namespaced) continue;
    if (scope == "Namespaced" && !r.type.namespaced) continue;
    return true;
  }
  return false;
}

json admission_review(const admission_request& r, const std::string& uid) {
  const json kind = {{"group", r.type.group}, {"version", r.path.version}, {"kind", r.type.kind}};
  const json resource = {{"group", r.type.group}, {"version", r.path.version}, {"resource", r.type.plural}};
  json req = {{"uid", uid},
              {"kind", kind},
              {"resource", resource},
              {"requestKind", kind},
              {"requestResource", resource},
              {"name", r.path.name},
              {"operation", r.operation},
              {"userInfo", r.path.user_info},
              {"object", r.object},
              {"oldObject", r.old_object},
              {"dryRun", false},
              {"options", {{"kind", "UpdateOptions"}, {"apiVersion", "meta.k8s.io/v1"}}}};
  if (!r.path.sub.empty()) {
    req["subResource"] = r.path.sub;
    req["requestSubResource"] = r.path.sub;
  }
  if (!r.path.ns.empty()) req["namespace"] = r.path.ns;
  return {{"apiVersion", "admission.k8s.io/v1"}, {"kind", "AdmissionReview"}, {"request", std::move(req)}};
}

std::optional<api_result> admission_outcome(const std::string& name, const std::string& uid,
                                            const std::string& call_error, int http_status,
                                            const std::string& body, bool fail_closed) {
  if (!call_error.empty()) return failure(name, "failed to call webhook: " + call_error, fail_closed);
  if (http_status != 200)
    return failure(name, "received HTTP status " + std::to_string(http_status), fail_closed);
  const json review = json::parse(body, nullptr, false);
  const json response = review.is_object() ? review.value("response", json()) : json();
  if (!review.is_object() || review.value("apiVersion", "") != "admission.k8s.io/v1" ||
      review.value("kind", "") != "AdmissionReview" || !response.is_object())
    return failure(name, "expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview",
                   fail_closed);
  if (response.value("uid", json()) != json(uid))
    return failure(name, "expected response.uid=\"" + uid + "\"", fail_closed);
  const json allowed = response.value("allowed", json());
  if (!allowed.is_boolean()) return failure(name, "response.allowed is not a boolean", fail_closed);
  if (allowed.get<bool>()) return std::nullopt;
  const json st = response.value("status", json::object());
  int code = 403;
  std::string reason, message;
  if (st.is_object()) {
    if (st.value("code", json()).is_number_integer() && st["code"].get<int>() >= 400)
      code = st["code"].get<int>();
    if (st.value("reason", json()).is_string()) reason = st["reason"];
    if (st.value("message", json()).is_string()) message = st["message"];
  }
  const std::string denied = "admission webhook \"" + name + "\" denied the request";
  return status_error(code, reason, message.empty() ? denied + " without explanation" : denied + ": " + message);
}

void webhook_caller::route_service(const std::string& ns, const std::string& name, int port,
                                   const std::string& address) {
  std::lock_guard lock{m_};
  routes_[ns + "/" + name + ":" + std::to_string(port)] = address;
}

std::optional<api_result> webhook_caller::operator()(const admission_request& r) {
  resource_path vwc;
  vwc.group = "admissionregistration.k8s.io";
  vwc.version = "v1";
  vwc.plural = "validatingwebhookconfigurations";
  const auto configs = db_.list(vwc, {});
  if (configs.status != 200) return std::nullopt;
  for (const auto& config : configs.body.value("items", json::array())) {
    for (const auto& hook : config.value("webhooks", json::array())) {
      if (!hook.is_object() || !webhook_matches(hook, r)) continue;
      const std::string name = hook.value("name", std::string{});
      const bool fail_closed = hook.value("failurePolicy", std::string{"Fail"}) != "Ignore";
      const int timeout_s = std::clamp(hook.value("timeoutSeconds", 10), 1, 30);
      std::string uid;
      {
        std::lock_guard lock{m_};
        char buf[40];
        std::snprintf(buf, sizeof buf, "00000000-0000-4000-8000-%012llx",
                      static_cast<unsigned long long>(++next_uid_));
        uid = buf;
      }
      const json cc = hook.value("clientConfig", json::object());
      http::client_request req;
      req.method = "POST";
      req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
      req.body = admission_review(r, uid).dump();
      req.timeout = std::chrono::seconds{timeout_s};
      req.connect_timeout = req.timeout;
      std::string call_error;
      if (auto ca = cc.value("caBundle", std::string{}); !ca.empty()) {
        auto pem = br::base64_decode(ca);
        if (pem) req.ca_pem = *pem;
        else call_error = "clientConfig.caBundle is not base64";
      }
      if (cc.contains("url")) {
        req.url = cc.value("url", std::string{});
      } else {
        const json svc = cc.value("service", json::object());
        const std::string ns = svc.value("namespace", ""), sname = svc.value("name", "");
        const int port = svc.value("port", 443);
        const std::string host = sname + "." + ns + ".svc";
        req.url = "https://" + host + ":" + std::to_string(port) + svc.value("path", std::string{"/"});
        std::lock_guard lock{m_};
        auto it = routes_.find(ns + "/" + sname + ":" + std::to_string(port));
        if (it == routes_.end())
          call_error = "service " + ns + "/" + sname + ":" + std::to_string(port) +
                       " is not routed in the API simulator";
        else
          req.connect_to = {host + ":" + std::to_string(port) + ":" + it->second};
      }
      http::client_result res;
      if (call_error.empty()) {
        res = http::perform(req);
        if (res.error != http::client_error::none)
          call_error = "Post \"" + req.url + "\": " + res.message;
      }
      if (auto refused = admission_outcome(name, uid, call_error, res.status, res.body, fail_closed))
        return refused;
    }
  }
  return std::nullopt;
}

}  // namespace br::kube_sim
