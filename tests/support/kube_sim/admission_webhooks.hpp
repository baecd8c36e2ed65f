// API simulation: validating admission webhooks called like a real API server does. On every
// update (including patches and status writes) the simulator finds the registered
// ValidatingWebhookConfigurations whose rules match (operations, apiGroups, apiVersions,
// resources with "/subresource", scope), POSTs an AdmissionReview v1 to each webhook over HTTPS
// verifying its caBundle and host name, within timeoutSeconds (default 10), and refuses the
// write with the webhook's answer ("admission webhook \"<name>\" denied the request: ...") or,
// when the call fails, as failurePolicy says (Fail, the default: 500 "failed calling webhook";
// Ignore: admitted). Not modelled: CREATE/DELETE/CONNECT admission (rules naming them match
// nothing here), namespaceSelector/objectSelector/matchConditions (a webhook with any of them is
// called for every matching request), mutating webhooks, matchPolicy Equivalent.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/kube_sim/store.hpp"

namespace br::kube_sim {

/// Pure: whether one webhook of a ValidatingWebhookConfiguration matches the request by its
/// rules (operations, apiGroups, apiVersions, resources "plural" / "plural/sub" / "*" /
/// "*/sub" / "plural/*", scope Cluster / Namespaced / *).
bool webhook_matches(const json& webhook, const admission_request& r);

/// Pure: the AdmissionReview v1 the API server sends for `r` with request uid `uid`.
json admission_review(const admission_request& r, const std::string& uid);

/// Pure: the refusal (nullopt: admitted) from a webhook's HTTP answer; `call_error` non-empty
/// when the call itself failed (connection, TLS, timeout). Failures and malformed answers are
/// judged by `fail_closed` (failurePolicy Fail).
std::optional<api_result> admission_outcome(const std::string& webhook_name, const std::string& uid,
                                            const std::string& call_error, int http_status,
                                            const std::string& body, bool fail_closed);

/// The simulator's caller (thread-safe). Services named in clientConfig.service have no cluster
/// network here: route_service() says where one listens (`address` "host:port"); the certificate
/// is still verified for "<name>.<namespace>.svc".
class webhook_caller {
 public:
  explicit webhook_caller(store& db) : db_(db) {}
  void route_service(const std::string& ns, const std::string& name, int port,
                     const std::string& address);
  /// Runs every matching webhook in order; the first refusal wins.
  std::optional<api_result> operator()(const admission_request& r);

 private:
  store& db_;
  std::mutex m_;
  std::map<std::string, std::string> routes_;  // "ns/name:port" -> "host:port"
  std::uint64_t next_uid_ = 0;
};

}  // namespace br::kube_sim
