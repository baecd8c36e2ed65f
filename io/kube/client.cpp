// libcurl transport for the Kubernetes client: handle pool, TLS/auth setup, Status decoding.
#include "io/kube/client.hpp"

#include <curl/curl.h>

#include <mutex>
#include <vector>

#include "io/kube/curl_setup.hpp"

namespace br::kube {

struct client::pool {
  std::mutex m;
  std::vector<CURL*> idle;
  ~pool() {
    for (auto* h : idle) curl_easy_cleanup(h);
  }
};

client::client(config cfg, client_options opts)
    : cfg_(std::move(cfg)), opts_(std::move(opts)), pool_(std::make_unique<pool>()) {
  detail::global_init();
}

client::~client() = default;

std::string query_escape(const std::string& s) {
  std::string out;
  static const char hex[] = "0123456789ABCDEF";
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

result<json> client::request(const std::string& method, const std::string& target,
                             const std::string& body, const std::string& content_type,
                             milliseconds timeout) {
  CURL* h = nullptr;
  {
    std::lock_guard lock{pool_->m};
    if (!pool_->idle.empty()) {
      h = pool_->idle.back();
      pool_->idle.pop_back();
    }
  }
  if (!h) h = curl_easy_init();
  if (!h) return api_error{0, "Transport", "curl_easy_init failed"};
  curl_easy_reset(h);  // keeps the live connection for keep-alive reuse
  detail::response_sink sink;
  auto headers = detail::setup(h, cfg_, opts_, method, cfg_.server + target, body, content_type,
                               timeout.count() > 0 ? timeout : opts_.timeout, sink);
  const CURLcode rc = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(headers);
  {
    std::lock_guard lock{pool_->m};
    if (pool_->idle.size() < opts_.pool_size) {
      pool_->idle.push_back(h);
      h = nullptr;
    }
  }
  if (h) curl_easy_cleanup(h);
  if (rc != CURLE_OK) return detail::transport_error(rc, sink.error);
  return detail::decode(static_cast<int>(status), sink.body);
}

result<json> client::get(const resource_ref& r, const std::string& ns, const std::string& name,
                         milliseconds timeout) {
  return request("GET", r.path(ns, name), {}, {}, timeout);
}

result<json> client::get_status(const resource_ref& r, const std::string& ns, const std::string& name,
                                milliseconds timeout) {
  return request("GET", r.path(ns, name, "status"), {}, {}, timeout);
}

result<json> client::list(const resource_ref& r, const std::string& ns, const list_options& o,
                          milliseconds timeout) {
  std::string q;
  auto add = [&](const char* k, const std::string& v) {
    if (v.empty()) return;
    q += (q.empty() ? "?" : "&") + std::string{k} + "=" + query_escape(v);
  };
  add("labelSelector", o.label_selector);
  add("fieldSelector", o.field_selector);
  add("limit", o.limit ? std::to_string(o.limit) : std::string{});
  add("continue", o.continue_token);
  add("resourceVersion", o.resource_version);
  return request("GET", r.path(ns) + q, {}, {}, timeout);
}

result<json> client::list_all(const resource_ref& r, const std::string& ns, list_options o,
                              milliseconds timeout) {
  json all = {{"metadata", json::object()}, {"items", json::array()}};
  for (int page = 0;; ++page) {
    auto res = list(r, ns, o, timeout);
    if (!res) return res;
    if (page == 0) {
      all["metadata"]["resourceVersion"] = (*res)["metadata"].value("resourceVersion", std::string{});
      all["kind"] = res->value("kind", std::string{});
      all["apiVersion"] = res->value("apiVersion", std::string{});
    }
    for (auto& item : (*res)["items"]) all["items"].push_back(std::move(item));
    o.continue_token = (*res)["metadata"].value("continue", std::string{});
    if (o.continue_token.empty()) return all;
  }
}

result<json> client::create(const resource_ref& r, const std::string& ns, const json& object,
                            milliseconds timeout) {
  return request("POST", r.path(ns), object.dump(), "application/json", timeout);
}

result<json> client::update(const resource_ref& r, const json& object, milliseconds timeout) {
  const auto& md = object.at("metadata");
  return request("PUT", r.path(md.value("namespace", std::string{}), md.value("name", std::string{})),
                 object.dump(), "application/json", timeout);
}

result<json> client::update_status(const resource_ref& r, const json& object, milliseconds timeout) {
  const auto& md = object.at("metadata");
  return request("PUT",
                 r.path(md.value("namespace", std::string{}), md.value("name", std::string{}), "status"),
                 object.dump(), "application/json", timeout);
}

result<json> client::merge_patch(const resource_ref& r, const std::string& ns, const std::string& name,
                                 const json& patch, const std::string& subresource, milliseconds timeout) {
  return request("PATCH", r.path(ns, name, subresource), patch.dump(), "application/merge-patch+json",
                 timeout);
}

result<json> client::json_patch(const resource_ref& r, const std::string& ns, const std::string& name,
                                const json& operations, const std::string& subresource,
                                milliseconds timeout) {
  return request("PATCH", r.path(ns, name, subresource), operations.dump(),
                 "application/json-patch+json", timeout);
}

result<json> client::remove(const resource_ref& r, const std::string& ns, const std::string& name,
                            const delete_options& o, milliseconds timeout) {
  json body = {{"kind", "DeleteOptions"}, {"apiVersion", "v1"}};
  if (!o.propagation_policy.empty()) body["propagationPolicy"] = o.propagation_policy;
  if (!o.precondition_resource_version.empty())
    body["preconditions"]["resourceVersion"] = o.precondition_resource_version;
  if (!o.precondition_uid.empty()) body["preconditions"]["uid"] = o.precondition_uid;
  return request("DELETE", r.path(ns, name), body.dump(), "application/json", timeout);
}

}  // namespace br::kube
