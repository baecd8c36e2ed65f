// Kubernetes REST client on libcurl: pooled keep-alive handles, deadlines, errors as values.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "io/kube/config.hpp"
#include "io/kube/resource.hpp"
#include "io/kube/result.hpp"

namespace br::kube {

using json = nlohmann::json;
using std::chrono::milliseconds;

/// Header that names the writer; the API simulator's write log attributes requests by it.
inline constexpr const char* identity_header = "X-Bloodraven-Identity";

struct client_options {
  milliseconds timeout{10000};  // default deadline of one call (connect + transfer)
  milliseconds connect_timeout{3000};
  std::size_t pool_size = 4;  // idle keep-alive handles kept
  std::string user_agent = "bloodraven";
  std::string identity;  // sent in identity_header when non-empty
};

struct list_options {
  std::string label_selector;
  std::string field_selector;
  std::size_t limit = 0;  // 0 = no paging
  std::string continue_token;
  std::string resource_version;
};

struct delete_options {
  std::string propagation_policy;  // "Background" | "Foreground" | "Orphan" | "" (server default)
  std::string precondition_resource_version;
  std::string precondition_uid;
};

struct watch_options {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // "" = start with the current state as ADDED events
  bool allow_bookmarks = true;
  std::chrono::seconds server_timeout{300};  // timeoutSeconds; the stream's deadline adds 30 s
};

struct watch_event {
  std::string type;  // ADDED MODIFIED DELETED BOOKMARK
  json object;
};

struct watch_outcome {
  enum class end { closed, stopped, gone, error } how = end::closed;
  api_error error;            // for gone and error
  std::string last_resource_version;  // of the last event (incl. bookmarks), "" when none
  std::size_t events = 0;
};

class client {
 public:
  explicit client(config cfg, client_options opts = {});
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  result<json> get(const resource_ref& r, const std::string& ns, const std::string& name,
                   milliseconds timeout = {});
  result<json> get_status(const resource_ref& r, const std::string& ns, const std::string& name,
                          milliseconds timeout = {});
  /// One page.
  result<json> list(const resource_ref& r, const std::string& ns, const list_options& o = {},
                    milliseconds timeout = {});
  /// Follows continue tokens; returns {"metadata":{"resourceVersion"}, "items":[...]} (the first
  /// page's resourceVersion, which a following watch starts from).
  result<json> list_all(const resource_ref& r, const std::string& ns, list_options o = {},
                        milliseconds timeout = {});
  result<json> create(const resource_ref& r, const std::string& ns, const json& object,
                      milliseconds timeout = {});
  /// PUT; the object's metadata.resourceVersion makes it conditional (409 when stale).
  result<json> update(const resource_ref& r, const json& object, milliseconds timeout = {});
  result<json> update_status(const resource_ref& r, const json& object, milliseconds timeout = {});
  result<json> merge_patch(const resource_ref& r, const std::string& ns, const std::string& name,
                           const json& patch, const std::string& subresource = {},
                           milliseconds timeout = {});
  result<json> json_patch(const resource_ref& r, const std::string& ns, const std::string& name,
                          const json& operations, const std::string& subresource = {},
                          milliseconds timeout = {});
  result<json> remove(const resource_ref& r, const std::string& ns, const std::string& name,
                      const delete_options& o = {}, milliseconds timeout = {});

  /// One watch stream on its own connection. Calls `on_event` per event (return false to stop)
  /// until the server ends the stream, the deadline passes, `stop` becomes true, a 410 arrives
  /// (as HTTP status or ERROR event) or the connection fails.
  watch_outcome watch(const resource_ref& r, const std::string& ns, const watch_options& o,
                      const std::function<bool(const watch_event&)>& on_event,
                      const std::atomic<bool>* stop = nullptr);

  /// Raw call: `target` is a path with query. Body is sent when non-empty.
  result<json> request(const std::string& method, const std::string& target, const std::string& body,
                       const std::string& content_type, milliseconds timeout = {});

  const config& cfg() const { return cfg_; }
  const client_options& options() const { return opts_; }

 private:
  struct pool;
  config cfg_;
  client_options opts_;
  std::unique_ptr<pool> pool_;
};

/// Percent-encodes a query value.
std::string query_escape(const std::string& s);

}  // namespace br::kube
