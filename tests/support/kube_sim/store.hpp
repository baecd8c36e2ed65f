// The simulator's object store: resource types, objects, resourceVersions, history and semantics.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/kube_sim/selectors.hpp"

namespace br::kube_sim {

using json = nlohmann::json;

/// A served kind: built in or registered by a CustomResourceDefinition.
struct resource_type {
  std::string group;  // "" for the core group
  std::vector<std::string> versions;
  std::string kind;
  std::string plural;
  std::string singular;
  bool namespaced = true;
  bool status_subresource = false;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;
  /// version -> openAPIV3Schema (CRDs only). Shared: a type is copied for every request, and
  /// copying a CRD's schema each time (under the store's lock) starved the simulator.
  std::map<std::string, std::shared_ptr<const json>> schemas;
  std::string crd_name;                 // set when registered by a CRD

  std::string key() const { return group + "/" + plural; }
  std::string api_version(const std::string& v) const { return group.empty() ? v : group + "/" + v; }
  std::string qualified() const { return group.empty() ? plural : plural + "." + group; }
};

/// Where a request points: group/version/plural plus optional namespace, name, subresource.
struct resource_path {
  std::string group;
  std::string version;
  std::string plural;
  std::string ns;
  std::string name;
  std::string sub;  // "" or "status"
  bool strict_fields = false;  // fieldValidation=Strict: unknown fields are an error, not pruned
  json user_info = json::object();  // the requester ({username, groups}), for admission
};

struct api_result {
  int status = 200;
  json body;
};

/// One stored change. `previous` is the object before a MODIFIED/DELETED (for selector
/// transitions: an object leaving a selector is reported as DELETED to that watcher).
struct change {
  std::uint64_t rv = 0;
  std::string type_key;
  std::string type;  // ADDED | MODIFIED | DELETED
  json object;
  json previous;
};
using change_ptr = std::shared_ptr<const change>;

/// Filter of one watch or list.
struct view_filter {
  std::string ns;  // "" = all namespaces
  label_selector labels;
  field_selector fields;
  bool matches(const json& object) const;
};

/// One write as a validating admission check sees it (the API server's admission attributes).
struct admission_request {
  std::string operation;  // UPDATE (updates, patches, status writes)
  resource_type type;
  resource_path path;  // namespace, name, subresource, version, requester
  json object;         // after the write, as the client would read it
  json old_object;
};

/// Validating admission (the simulator's webhook caller): nullopt admits, a result refuses the
/// write with it. Called without the store's lock, and only while a
/// ValidatingWebhookConfiguration exists.
using admission_check = std::function<std::optional<api_result>(const admission_request&)>;

/// A Kubernetes Status object (kind Status) with `code`.
api_result status_error(int code, const std::string& reason, const std::string& message,
                        const json& details = json::object());

class store {
 public:
  explicit store(std::size_t history_limit);

  // Types and discovery.
  std::optional<resource_type> find_type(const std::string& group, const std::string& version,
                                         const std::string& plural) const;
  std::vector<resource_type> types() const;

  // Verbs. `query` carries the request's query parameters.
  api_result get(const resource_path& p);
  api_result list(const resource_path& p, const std::map<std::string, std::string>& query);
  api_result create(const resource_path& p, json body);
  api_result replace(const resource_path& p, json body);
  api_result patch(const resource_path& p, const std::string& content_type, const std::string& body);
  api_result remove(const resource_path& p, const json& options, const std::string& propagation);
  /// Installs the validating admission check run on every update (before it is stored).
  void set_admission(admission_check check);

  // Watch support.
  struct window {
    bool gone = false;                // `after` is older than the kept history
    std::vector<change_ptr> changes;  // every change with rv > after, in order
    std::uint64_t current = 0;        // the newest rv at the time of the read
  };
  window changes_after(std::uint64_t after) const;
  /// Current objects of a type matching `f` (for a watch without resourceVersion) and the rv.
  std::vector<json> snapshot(const resource_type& t, const std::string& version, const view_filter& f,
                             std::uint64_t& rv) const;
  /// Blocks until a change newer than `after` exists, `until` passes or `wake()` is called.
  void wait_change(std::uint64_t after, std::chrono::steady_clock::time_point until) const;
  void wake() const;
  std::uint64_t current_rv() const;
  /// Forgets all history: watches from any older resourceVersion now get 410 Gone.
  void compact();

 private:
  using object_map = std::map<std::string, json>;  // "ns/name" -> object

  const resource_type* type_locked(const std::string& group, const std::string& version,
                                   const std::string& plural) const;
  void add_builtin_types();
  void register_crd(const json& crd);
  void unregister_crd(const std::string& crd_name);
  std::uint64_t commit(const resource_type& t, const std::string& key, json object,
                       const std::string& type, json previous);
  void erase(resource_type t, const std::string& key);  // by value: may unregister types
  void collect_garbage();
  bool mark_deleting(const resource_type& t, const std::string& key);
  api_result write_update(std::unique_lock<std::mutex>& lock, resource_type t,
                          const resource_path& p, json next, const json& old);
  json out(const resource_type& t, const std::string& version, json object) const;
  std::string new_uid();

  mutable std::mutex m_;
  mutable std::condition_variable cv_;
  std::size_t history_limit_;
  std::uint64_t rv_ = 1;
  std::uint64_t compacted_ = 0;  // history holds every change with rv > compacted_
  std::uint64_t uid_counter_ = 0;
  mutable std::uint64_t wake_gen_ = 0;
  std::deque<change_ptr> history_;
  std::vector<resource_type> types_;
  std::map<std::string, object_map> objects_;  // type key -> objects
  admission_check admission_;
};

}  // namespace br::kube_sim
