// Deletion semantics: preconditions, propagation policies, finalizers and the garbage collector.
#include <algorithm>
#include <set>

#include "tests/support/kube_sim/store.hpp"
#include "tests/support/kube_sim/store_util.hpp"

namespace br::kube_sim {

namespace {

constexpr const char* foreground = "foregroundDeletion";

bool has_finalizer(const json& obj, const std::string& f) {
  const json fs = obj["metadata"].value("finalizers", json::array());
  return std::find(fs.begin(), fs.end(), f) != fs.end();
}

}  // namespace

// Starts deleting one object: terminating when finalizers hold it, gone otherwise.
bool store::mark_deleting(const resource_type& t, const std::string& key) {
  auto& objs = objects_[t.key()];
  auto it = objs.find(key);
  if (it == objs.end()) return false;
  if (it->second["metadata"].contains("deletionTimestamp")) return false;
  if (!it->second["metadata"].value("finalizers", json::array()).empty()) {
    json old = it->second;
    json next = old;
    next["metadata"]["deletionTimestamp"] = now_rfc3339();
    next["metadata"]["deletionGracePeriodSeconds"] = 0;
    commit(t, key, next, "MODIFIED", old);
    return true;
  }
  erase(t, key);
  return true;
}

api_result store::remove(const resource_path& p, const json& options, const std::string& propagation) {
  std::lock_guard lock{m_};
  const auto* found = type_locked(p.group, p.version, p.plural);
  if (!found) return status_error(404, "NotFound", "the server could not find the requested resource");
  const resource_type t = *found;
  const std::string key = object_key(t.namespaced ? p.ns : "", p.name);
  auto& objs = objects_[t.key()];
  auto it = objs.find(key);
  if (it == objs.end()) return not_found(t, p.name);
  json obj = it->second;
  const json pre = options.value("preconditions", json::object());
  if (pre.contains("resourceVersion") &&
      pre["resourceVersion"] != obj["metadata"].value("resourceVersion", std::string{}))
    return conflict(t, p.name);
  if (pre.contains("uid") && pre["uid"] != obj["metadata"].value("uid", std::string{})) {
    return status_error(409, "Conflict",
                        "Precondition failed: UID in precondition: " + pre["uid"].get<std::string>() +
                            ", UID in object meta: " + obj["metadata"].value("uid", std::string{}));
  }
  std::string policy = options.value("propagationPolicy", propagation);
  if (policy.empty() && options.value("orphanDependents", false)) policy = "Orphan";
  if (policy.empty()) policy = "Background";
  if (policy != "Background" && policy != "Foreground" && policy != "Orphan") {
    return status_error(422, "Invalid", "propagationPolicy: Unsupported value: \"" + policy + "\"");
  }
  const std::string uid = obj["metadata"].value("uid", std::string{});
  if (policy == "Orphan") {
    // Dependents lose their reference to this owner and stay.
    for (const auto& other : std::vector<resource_type>(types_)) {
      std::vector<std::string> keys;
      for (const auto& [k, o] : objects_[other.key()]) keys.push_back(k);
      for (const auto& k : keys) {
        json old = objects_[other.key()][k];
        json refs = old["metadata"].value("ownerReferences", json::array());
        json keep = json::array();
        for (const auto& r : refs)
          if (r.value("uid", std::string{}) != uid) keep.push_back(r);
        if (keep.size() == refs.size()) continue;
        json next = old;
        if (keep.empty()) {
          next["metadata"].erase("ownerReferences");
        } else {
          next["metadata"]["ownerReferences"] = keep;
        }
        commit(other, k, next, "MODIFIED", old);
      }
    }
  }
  if (policy == "Foreground" && !obj["metadata"].contains("deletionTimestamp") &&
      !has_finalizer(obj, foreground)) {
    json old = objects_[t.key()][key];
    json next = old;
    next["metadata"]["finalizers"].push_back(foreground);
    commit(t, key, next, "MODIFIED", old);
  }
  mark_deleting(t, key);
  collect_garbage();
  auto now_it = objects_[t.key()].find(key);
  if (now_it != objects_[t.key()].end()) {
    return {policy == "Foreground" ? 202 : 200, out(t, p.version, now_it->second)};
  }
  obj["metadata"]["resourceVersion"] = std::to_string(rv_);
  return {200, out(t, p.version, obj)};
}

void store::collect_garbage() {
  for (int pass = 0; pass < 1000; ++pass) {
    bool changed = false;
    std::set<std::string> live, foreground_owners;
    std::map<std::string, int> dependents;
    for (auto& [tk, objs] : objects_) {
      for (auto& [k, o] : objs) {
        const json& md = o["metadata"];
        live.insert(md.value("uid", std::string{}));
        if (md.contains("deletionTimestamp") && has_finalizer(o, foreground))
          foreground_owners.insert(md.value("uid", std::string{}));
        if (auto refs = md.find("ownerReferences"); refs != md.end() && refs->is_array())
          for (const auto& r : *refs) ++dependents[r.value("uid", std::string{})];
      }
    }
    for (const auto& t : std::vector<resource_type>(types_)) {
      std::vector<std::string> keys;
      for (const auto& [k, o] : objects_[t.key()]) keys.push_back(k);
      for (const auto& k : keys) {
        auto& objs = objects_[t.key()];
        auto it = objs.find(k);
        if (it == objs.end()) continue;
        // References, not copies: this runs after every write, over every object. `md` is not
        // used after a call that replaces the object (mark_deleting, commit, erase).
        const json& md = it->second["metadata"];
        const auto refs = md.find("ownerReferences");
        if (refs != md.end() && refs->is_array() && !refs->empty() && !md.contains("deletionTimestamp")) {
          bool all_gone = true, owner_foreground = false;
          for (const auto& r : *refs) {
            const std::string u = r.value("uid", std::string{});
            if (live.count(u)) all_gone = false;
            if (foreground_owners.count(u)) owner_foreground = true;
          }
          if (all_gone || owner_foreground) {
            changed = mark_deleting(t, k) || changed;
            continue;
          }
        }
        if (!md.contains("deletionTimestamp")) continue;
        if (has_finalizer(it->second, foreground) && dependents[md.value("uid", std::string{})] == 0) {
          json old = it->second;
          json next = old;
          json keep = json::array();
          for (const auto& f : md["finalizers"])
            if (f != foreground) keep.push_back(f);
          next["metadata"]["finalizers"] = keep;
          commit(t, k, next, "MODIFIED", old);
          changed = true;
          it = objs.find(k);
        }
        if (it->second["metadata"].value("finalizers", json::array()).empty()) {
          erase(t, k);
          changed = true;
        }
      }
    }
    if (!changed) return;
  }
}

}  // namespace br::kube_sim
