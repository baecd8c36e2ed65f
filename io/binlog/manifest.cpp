// Binlog manifest: JSON shape (version 1), strict parsing, upsert by name.
#include "io/binlog/manifest.hpp"

#include <algorithm>
#include <ctime>

namespace br::binlog {

using nlohmann::json;

const manifest_entry* manifest::find(const std::string& name) const {
  auto it = std::lower_bound(files.begin(), files.end(), name,
                             [](const manifest_entry& e, const std::string& n) { return e.name < n; });
  return it != files.end() && it->name == name ? &*it : nullptr;
}

void manifest::upsert(manifest_entry e) {
  auto it = std::lower_bound(files.begin(), files.end(), e.name,
                             [](const manifest_entry& x, const std::string& n) { return x.name < n; });
  if (it != files.end() && it->name == e.name)
    *it = std::move(e);
  else
    files.insert(it, std::move(e));
}

json to_json(const manifest& m) {
  json files = json::array();
  for (const auto& f : m.files)
    files.push_back({{"name", f.name},
                     {"remotePath", f.remote_path},
                     {"size", f.size},
                     {"firstEventTime", f.first_event_time},
                     {"lastEventTime", f.last_event_time},
                     {"previousGtids", f.previous_gtids},
                     {"endGtids", f.end_gtids},
                     {"archivedAt", f.archived_at}});
  return {{"version", m.version}, {"site", m.site}, {"files", std::move(files)}};
}

manifest_parse_result parse_manifest(const std::string& text) {
  manifest_parse_result r;
  auto j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    r.error = "manifest: not a JSON object";
    return r;
  }
  manifest m;
  if (!j.contains("version") || !j["version"].is_number_integer()) {
    r.error = "manifest.version: missing or not an integer";
    return r;
  }
  m.version = j["version"].get<int>();
  if (m.version != manifest::current_version) {
    r.error = "manifest.version: " + std::to_string(m.version) + " is not supported (expected 1)";
    return r;
  }
  if (!j.contains("site") || !j["site"].is_string()) {
    r.error = "manifest.site: missing or not a string";
    return r;
  }
  m.site = j["site"].get<std::string>();
  if (!j.contains("files") || !j["files"].is_array()) {
    r.error = "manifest.files: missing or not an array";
    return r;
  }
  const auto& files = j["files"];
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& f = files[i];
    auto path = "manifest.files[" + std::to_string(i) + "]";
    if (!f.is_object()) {
      r.error = path + ": not an object";
      return r;
    }
    manifest_entry e;
    for (auto [key, field] : std::initializer_list<std::pair<const char*, std::string*>>{
             {"name", &e.name}, {"remotePath", &e.remote_path},
                              {"firstEventTime", &e.first_event_time},
                              {"lastEventTime", &e.last_event_time},
                              {"previousGtids", &e.previous_gtids}, {"endGtids", &e.end_gtids},
                              {"archivedAt", &e.archived_at}}) {
      if (!f.contains(key) || !f[key].is_string()) {
        r.error = path + "." + key + ": missing or not a string";
        return r;
      }
      *field = f[key].get<std::string>();
    }
    if (!f.contains("size") || !f["size"].is_number_unsigned()) {
      r.error = path + ".size: missing or not a non-negative integer";
      return r;
    }
    e.size = f["size"].get<uint64_t>();
    if (e.name.empty()) {
      r.error = path + ".name: empty";
      return r;
    }
    if (m.find(e.name) != nullptr) {
      r.error = path + ".name: \"" + e.name + "\" listed twice";
      return r;
    }
    m.upsert(std::move(e));
  }
  r.value = std::move(m);
  return r;
}

std::string rfc3339(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace br::binlog
