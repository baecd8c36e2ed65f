// Object store verbs: get, list (selectors, pagination), create, update, patch; history and waits.
#include "tests/support/kube_sim/store.hpp"

#include <algorithm>
#include <random>

#include "tests/support/kube_sim/schema_validation.hpp"
#include "tests/support/kube_sim/store_util.hpp"

namespace br::kube_sim {

api_result status_error(int code, const std::string& reason, const std::string& message,
                        const json& details) {
  json s = {{"kind", "Status"},     {"apiVersion", "v1"},   {"metadata", json::object()},
            {"status", "Failure"},  {"message", message},   {"reason", reason},
            {"code", code}};
  if (!details.empty()) s["details"] = details;
  return {code, s};
}

namespace {
api_result strict_error(const std::vector<std::string>& pruned) {
  std::string msg = "strict decoding error: ";
  for (std::size_t i = 0; i < pruned.size(); ++i) msg += (i ? ", " : "") + std::string{"unknown field \""} + pruned[i] + "\"";
  return status_error(400, "BadRequest", msg);
}
}  // namespace

bool view_filter::matches(const json& object) const {
  const json md = object.value("metadata", json::object());
  if (!ns.empty() && md.value("namespace", std::string{}) != ns) return false;
  return labels.matches(md.value("labels", json::object())) && fields.matches(object);
}

store::store(std::size_t history_limit) : history_limit_(history_limit) {
  add_builtin_types();
  for (const char* ns : {"default", "kube-system", "kube-public"}) {
    const auto* t = type_locked("", "v1", "namespaces");
    json obj = {{"apiVersion", "v1"},
                {"kind", "Namespace"},
                {"metadata", {{"name", ns}, {"uid", new_uid()}, {"creationTimestamp", now_rfc3339()}}},
                {"status", {{"phase", "Active"}}}};
    commit(*t, object_key("", ns), obj, "ADDED", nullptr);
  }
}

std::string store::new_uid() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[40];
  const auto r = rng();
  const auto n = ++uid_counter_;
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-4%03llx-8%03llx-%012llx",
                static_cast<unsigned long long>(r & 0xffffffffULL),
                static_cast<unsigned long long>((r >> 32) & 0xffff),
                static_cast<unsigned long long>((r >> 48) & 0xfff),
                static_cast<unsigned long long>(n & 0xfff), static_cast<unsigned long long>(n));
  return buf;
}

const resource_type* store::type_locked(const std::string& group, const std::string& version,
                                        const std::string& plural) const {
  for (const auto& t : types_) {
    if (t.group == group && t.plural == plural &&
        std::find(t.versions.begin(), t.versions.end(), version) != t.versions.end())
      return &t;
  }
  return nullptr;
}

std::optional<resource_type> store::find_type(const std::string& group, const std::string& version,
                                              const std::string& plural) const {
  std::lock_guard lock{m_};
  const auto* t = type_locked(group, version, plural);
  if (!t) return std::nullopt;
  return *t;
}

std::vector<resource_type> store::types() const {
  std::lock_guard lock{m_};
  return types_;
}

json store::out(const resource_type& t, const std::string& version, json object) const {
  object["apiVersion"] = t.api_version(version);
  object["kind"] = t.kind;
  return object;
}

std::uint64_t store::commit(const resource_type& t, const std::string& key, json object,
                            const std::string& type, json previous) {
  const auto rv = ++rv_;
  object["metadata"]["resourceVersion"] = std::to_string(rv);
  objects_[t.key()][key] = object;
  auto c = std::make_shared<change>();
  c->rv = rv;
  c->type_key = t.key();
  c->type = type;
  c->object = std::move(object);
  c->previous = std::move(previous);
  history_.push_back(std::move(c));
  while (history_.size() > history_limit_) {
    compacted_ = history_.front()->rv;
    history_.pop_front();
  }
  cv_.notify_all();
  return rv;
}

void store::erase(resource_type t, const std::string& key) {
  auto& objs = objects_[t.key()];
  auto it = objs.find(key);
  if (it == objs.end()) return;
  json obj = std::move(it->second);
  objs.erase(it);
  const auto rv = ++rv_;
  json previous = obj;
  obj["metadata"]["resourceVersion"] = std::to_string(rv);
  auto c = std::make_shared<change>();
  c->rv = rv;
  c->type_key = t.key();
  c->type = "DELETED";
  c->object = obj;
  c->previous = std::move(previous);
  history_.push_back(std::move(c));
  while (history_.size() > history_limit_) {
    compacted_ = history_.front()->rv;
    history_.pop_front();
  }
  if (t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions")
    unregister_crd(obj["metadata"].value("name", std::string{}));
  if (t.group.empty() && t.plural == "namespaces") {
    // Deleting a namespace removes everything in it.
    const std::string ns = obj["metadata"].value("name", std::string{});
    for (const auto& other : std::vector<resource_type>(types_)) {
      if (!other.namespaced) continue;
      std::vector<std::string> keys;
      for (const auto& [k, o] : objects_[other.key()])
        if (o["metadata"].value("namespace", std::string{}) == ns) keys.push_back(k);
      for (const auto& k : keys) erase(other, k);
    }
  }
  cv_.notify_all();
}

api_result store::get(const resource_path& p) {
  std::lock_guard lock{m_};
  const auto* t = type_locked(p.group, p.version, p.plural);
  if (!t) return status_error(404, "NotFound", "the server could not find the requested resource");
  auto& objs = objects_[t->key()];
  auto it = objs.find(object_key(t->namespaced ? p.ns : "", p.name));
  if (it == objs.end()) return not_found(*t, p.name);
  return {200, out(*t, p.version, it->second)};
}

api_result store::list(const resource_path& p, const std::map<std::string, std::string>& query) {
  std::lock_guard lock{m_};
  const auto* t = type_locked(p.group, p.version, p.plural);
  if (!t) return status_error(404, "NotFound", "the server could not find the requested resource");
  std::string err;
  view_filter f;
  f.ns = p.ns;
  auto q = [&](const char* k) {
    auto it = query.find(k);
    return it == query.end() ? std::string{} : it->second;
  };
  auto ls = parse_label_selector(q("labelSelector"), err);
  if (!ls) return status_error(400, "BadRequest", "unable to parse requirement: " + err);
  auto fs = parse_field_selector(q("fieldSelector"), err);
  if (!fs) return status_error(400, "BadRequest", err);
  f.labels = *ls;
  f.fields = *fs;
  std::size_t limit = 0;
  if (!q("limit").empty()) limit = static_cast<std::size_t>(std::stoull(q("limit")));
  std::string start_after;
  std::uint64_t list_rv = rv_;
  if (!q("continue").empty()) {
    auto token = decode_continue(q("continue"));
    if (!token) return status_error(400, "BadRequest", "continue key is not valid");
    if (token->second < compacted_) {
      return status_error(410, "Expired",
                          "The provided continue parameter is too old to display a consistent "
                          "list result. You can start a new list without the continue parameter.");
    }
    start_after = token->first;
    list_rv = token->second;
  }
  json items = json::array();
  std::string last_key;
  std::size_t remaining = 0;
  auto& objs = objects_[t->key()];
  auto it = start_after.empty() ? objs.begin() : objs.upper_bound(start_after);
  for (; it != objs.end(); ++it) {
    if (!f.matches(it->second)) continue;
    if (limit > 0 && items.size() >= limit) {
      ++remaining;
      continue;
    }
    items.push_back(out(*t, p.version, it->second));
    last_key = it->first;
  }
  json md = {{"resourceVersion", std::to_string(list_rv)}};
  if (remaining > 0) {
    md["continue"] = encode_continue(last_key, list_rv);
    md["remainingItemCount"] = remaining;
  }
  return {200, {{"kind", t->kind + "List"},
                {"apiVersion", t->api_version(p.version)},
                {"metadata", md},
                {"items", items}}};
}

api_result store::create(const resource_path& p, json body) {
  std::lock_guard lock{m_};
  const auto* t = type_locked(p.group, p.version, p.plural);
  if (!t) return status_error(404, "NotFound", "the server could not find the requested resource");
  if (!body.is_object()) return status_error(400, "BadRequest", "the body of the request was not an object");
  if (body.contains("kind") && body["kind"] != t->kind) {
    return status_error(400, "BadRequest",
                        "the API version in the data (" + body.value("apiVersion", std::string{}) +
                            ") does not match the expected API version (" + t->api_version(p.version) +
                            ") or the kind (" + body.value("kind", std::string{}) + ") does not match " + t->kind);
  }
  json& md = body["metadata"];
  if (!md.is_object()) md = json::object();
  if (!t->namespaced) {
    md.erase("namespace");
  } else {
    const std::string body_ns = md.value("namespace", std::string{});
    if (!body_ns.empty() && body_ns != p.ns) {
      return status_error(400, "BadRequest",
                          "the namespace of the provided object does not match the namespace sent on the request");
    }
    md["namespace"] = p.ns;
    if (!objects_["/namespaces"].count(object_key("", p.ns)))
      return status_error(404, "NotFound", "namespaces \"" + p.ns + "\" not found",
                          {{"name", p.ns}, {"kind", "namespaces"}});
  }
  if (md.value("name", std::string{}).empty()) {
    const std::string prefix = md.value("generateName", std::string{});
    if (prefix.empty())
      return invalid(*t, "", {{"FieldValueRequired", "metadata.name", "Required value: name or generateName is required"}});
    md["name"] = prefix + random_suffix();
  }
  const std::string name = md["name"];
  const std::string key = object_key(t->namespaced ? p.ns : "", name);
  auto& objs = objects_[t->key()];
  if (objs.count(key)) {
    return status_error(409, "AlreadyExists", t->qualified() + " \"" + name + "\" already exists",
                        {{"name", name}, {"group", t->group}, {"kind", t->plural}});
  }
  md["uid"] = new_uid();
  md["creationTimestamp"] = now_rfc3339();
  md["generation"] = 1;
  md.erase("resourceVersion");
  md.erase("deletionTimestamp");
  md.erase("deletionGracePeriodSeconds");
  md.erase("managedFields");
  if (t->status_subresource && !t->crd_name.empty()) body.erase("status");  // status only via /status
  if (auto s = t->schemas.find(p.version); s != t->schemas.end()) {
    std::vector<std::string> pruned;
    auto errs = validate_and_prune(*s->second, body, &pruned);
    if (!errs.empty()) return invalid(*t, name, errs);
    if (p.strict_fields && !pruned.empty()) return strict_error(pruned);
  }
  body.erase("apiVersion");
  body.erase("kind");
  const bool is_crd = t->group == "apiextensions.k8s.io" && t->plural == "customresourcedefinitions";
  if (is_crd) body["status"] = crd_status(body);
  if (t->group.empty() && t->plural == "namespaces") body["status"] = {{"phase", "Active"}};
  commit(*t, key, body, "ADDED", nullptr);
  if (is_crd) register_crd(body);
  collect_garbage();
  const auto* again = type_locked(p.group, p.version, p.plural);
  return {201, out(*again, p.version, objects_[again->key()].count(key) ? objects_[again->key()][key] : body)};
}

void store::set_admission(admission_check check) {
  std::lock_guard lock{m_};
  admission_ = std::move(check);
}

api_result store::replace(const resource_path& p, json body) {
  std::unique_lock lock{m_};
  const auto* t = type_locked(p.group, p.version, p.plural);
  if (!t) return status_error(404, "NotFound", "the server could not find the requested resource");
  if (!body.is_object()) return status_error(400, "BadRequest", "the body of the request was not an object");
  const std::string key = object_key(t->namespaced ? p.ns : "", p.name);
  auto& objs = objects_[t->key()];
  auto it = objs.find(key);
  if (it == objs.end()) return not_found(*t, p.name);
  const json old = it->second;
  const json md = body.value("metadata", json::object());
  if (md.value("name", p.name) != p.name) {
    return status_error(400, "BadRequest", "the name of the object (" + md.value("name", std::string{}) +
                                               ") does not match the name on the URL (" + p.name + ")");
  }
  const std::string rv = md.value("resourceVersion", std::string{});
  if (rv.empty()) {
    return invalid(*t, p.name, {{"FieldValueInvalid", "metadata.resourceVersion",
                                 "Invalid value: 0x0: must be specified for an update"}});
  }
  if (rv != old["metadata"].value("resourceVersion", std::string{})) return conflict(*t, p.name);
  return write_update(lock, *t, p, std::move(body), old);
}

api_result store::patch(const resource_path& p, const std::string& content_type,
                        const std::string& body) {
  std::unique_lock lock{m_};
  const auto* t = type_locked(p.group, p.version, p.plural);
  if (!t) return status_error(404, "NotFound", "the server could not find the requested resource");
  const std::string key = object_key(t->namespaced ? p.ns : "", p.name);
  auto& objs = objects_[t->key()];
  auto it = objs.find(key);
  if (it == objs.end()) return not_found(*t, p.name);
  const json old = it->second;
  json patched = out(*t, p.version, old);
  json doc;
  try {
    doc = json::parse(body);
  } catch (const std::exception& e) {
    return status_error(400, "BadRequest", std::string{"error decoding patch: "} + e.what());
  }
  const std::string ct = content_type.substr(0, content_type.find(';'));
  try {
    if (ct == "application/merge-patch+json" || ct == "application/strategic-merge-patch+json") {
      if (!doc.is_object()) return status_error(400, "BadRequest", "patch must be a JSON object");
      patched.merge_patch(doc);  // strategic merge maps to JSON merge for our kinds
    } else if (ct == "application/json-patch+json") {
      if (!doc.is_array()) return status_error(400, "BadRequest", "json patch must be an array");
      patched = patched.patch(doc);
    } else {
      return status_error(415, "UnsupportedMediaType",
                          "the body of the request was in an unknown format - accepted media types include: "
                          "application/json-patch+json, application/merge-patch+json, "
                          "application/strategic-merge-patch+json");
    }
  } catch (const std::exception& e) {
    return status_error(422, "Invalid", std::string{"the server rejected our request due to an error in our request: "} + e.what());
  }
  if (!patched.is_object()) return status_error(422, "Invalid", "patch produced a non-object");
  // A resourceVersion inside the patch is a precondition, like on update.
  const std::string want = patched["metadata"].value("resourceVersion", std::string{});
  const std::string have = old["metadata"].value("resourceVersion", std::string{});
  if (!want.empty() && want != have) return conflict(*t, p.name);
  patched["metadata"]["resourceVersion"] = have;
  return write_update(lock, *t, p, std::move(patched), old);
}

api_result store::write_update(std::unique_lock<std::mutex>& lock, resource_type t,
                               const resource_path& p, json next, const json& old) {
  const std::string key = object_key(t.namespaced ? p.ns : "", p.name);
  json result;
  if (p.sub == "status") {
    result = old;
    if (next.contains("status")) {
      result["status"] = next["status"];
    } else {
      result.erase("status");
    }
  } else {
    result = std::move(next);
    json& md = result["metadata"];
    if (!md.is_object()) md = json::object();
    for (const char* k : {"uid", "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds",
                          "generation", "namespace", "name"}) {
      if (old["metadata"].contains(k)) {
        md[k] = old["metadata"][k];
      } else {
        md.erase(k);
      }
    }
    md.erase("managedFields");
    if (t.status_subresource) {
      if (old.contains("status")) {
        result["status"] = old["status"];
      } else {
        result.erase("status");
      }
    }
    if (old["metadata"].contains("deletionTimestamp")) {
      // A terminating object cannot gain finalizers.
      json keep = json::array();
      const json before = old["metadata"].value("finalizers", json::array());
      for (const auto& f : md.value("finalizers", json::array()))
        if (std::find(before.begin(), before.end(), f) != before.end()) keep.push_back(f);
      if (keep.empty()) {
        md.erase("finalizers");
      } else {
        md["finalizers"] = keep;
      }
    }
  }
  if (auto s = t.schemas.find(p.version); s != t.schemas.end()) {
    std::vector<std::string> pruned;
    auto errs = validate_and_prune(*s->second, result, &pruned);
    if (!errs.empty()) return invalid(t, p.name, errs);
    if (p.strict_fields && !pruned.empty()) return strict_error(pruned);
  }
  // Validating admission, as the API server runs it: after schema validation, before storing.
  // The webhook is called without the lock; a write that raced it is refused as a conflict.
  const auto hooks = objects_.find("admissionregistration.k8s.io/validatingwebhookconfigurations");
  if (admission_ && hooks != objects_.end() && !hooks->second.empty()) {
    const admission_check check = admission_;
    admission_request ar{"UPDATE", t, p, out(t, p.version, result), out(t, p.version, old)};
    lock.unlock();
    auto refused = check(ar);
    lock.lock();
    if (refused) return *refused;
    auto& now = objects_[t.key()];
    auto cur = now.find(key);
    if (cur == now.end()) return not_found(t, p.name);
    if (cur->second["metadata"]["resourceVersion"] != old["metadata"]["resourceVersion"])
      return conflict(t, p.name);
  }
  result.erase("apiVersion");
  result.erase("kind");
  // metadata.generation counts spec (non-metadata, non-status) changes only.
  auto body_of = [](json o) {
    o.erase("metadata");
    o.erase("status");
    return o;
  };
  if (p.sub != "status" && body_of(result) != body_of(old)) {
    result["metadata"]["generation"] = old["metadata"].value("generation", 1) + 1;
  }
  result["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"];
  if (result == old) return {200, out(t, p.version, old)};  // a no-op write keeps its rv
  const bool is_crd = t.group == "apiextensions.k8s.io" && t.plural == "customresourcedefinitions";
  if (is_crd && p.sub != "status") result["status"] = crd_status(result);
  commit(t, key, result, "MODIFIED", old);
  if (is_crd) register_crd(result);
  collect_garbage();
  const auto* again = type_locked(p.group, p.version, p.plural);
  auto& objs = objects_[again ? again->key() : t.key()];
  auto it = objs.find(key);
  return {200, out(t, p.version, it != objs.end() ? it->second : result)};
}

store::window store::changes_after(std::uint64_t after) const {
  std::lock_guard lock{m_};
  window w;
  w.current = rv_;
  if (after < compacted_) {
    w.gone = true;
    return w;
  }
  auto it = std::upper_bound(history_.begin(), history_.end(), after,
                             [](std::uint64_t v, const change_ptr& c) { return v < c->rv; });
  w.changes.assign(it, history_.end());
  return w;
}

std::vector<json> store::snapshot(const resource_type& t, const std::string& version,
                                  const view_filter& f, std::uint64_t& rv) const {
  std::lock_guard lock{m_};
  rv = rv_;
  std::vector<json> out_objs;
  auto it = objects_.find(t.key());
  if (it == objects_.end()) return out_objs;
  for (const auto& [k, o] : it->second)
    if (f.matches(o)) out_objs.push_back(out(t, version, o));
  return out_objs;
}

void store::wait_change(std::uint64_t after, std::chrono::steady_clock::time_point until) const {
  std::unique_lock lock{m_};
  const auto gen = wake_gen_;
  cv_.wait_until(lock, until, [&] { return rv_ > after || wake_gen_ != gen; });
}

void store::wake() const {
  std::lock_guard lock{m_};
  ++wake_gen_;
  cv_.notify_all();
}

std::uint64_t store::current_rv() const {
  std::lock_guard lock{m_};
  return rv_;
}

void store::compact() {
  std::lock_guard lock{m_};
  compacted_ = rv_;
  history_.clear();
}

}  // namespace br::kube_sim
