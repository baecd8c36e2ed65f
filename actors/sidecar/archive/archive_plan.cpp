// Binlog archive plan: index parsing and the sealed-and-not-archived selection.
#include "actors/sidecar/archive/archive_plan.hpp"

#include <sstream>

#include <nlohmann/json.hpp>

#include "config/rfc3339.hpp"

namespace br::sidecar {

std::vector<index_entry> parse_binlog_index(const std::string& text, const std::string& binlog_dir) {
  std::vector<index_entry> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty()) continue;
    auto slash = line.find_last_of('/');
    index_entry e;
    e.name = slash == std::string::npos ? line : line.substr(slash + 1);
    if (e.name.empty()) continue;
    if (line.front() == '/')
      e.path = line;
    else
      e.path = binlog_dir + "/" + (line.rfind("./", 0) == 0 ? line.substr(2) : line);
    out.push_back(std::move(e));
  }
  return out;
}

archive_plan plan_archive(const std::vector<index_entry>& entries, const std::vector<uint64_t>& sizes,
                          const binlog::manifest& m) {
  archive_plan plan;
  for (size_t i = 0; i + 1 < entries.size() && i < sizes.size(); ++i) {
    const auto* have = m.find(entries[i].name);
    if (have == nullptr)
      plan.to_archive.push_back(i);
    else if (have->size != sizes[i])
      plan.conflicts.push_back(entries[i].name + ": archived with " + std::to_string(have->size) +
                               " bytes, now " + std::to_string(sizes[i]) + " (not overwritten)");
  }
  return plan;
}

retention_plan plan_retention(const binlog::manifest& m, std::optional<int64_t> cutoff_unix_ms) {
  retention_plan p;
  p.keep.version = m.version;
  p.keep.site = m.site;
  for (const auto& e : m.files) {
    auto last = config::parse_rfc3339(e.last_event_time);
    if (!last) {
      p.undated.push_back(e.name);
      p.keep.files.push_back(e);
    } else if (cutoff_unix_ms && last->time_since_epoch().count() < *cutoff_unix_ms) {
      p.drop.push_back(e);
    } else {
      p.keep.files.push_back(e);
    }
  }
  return p;
}

std::optional<int64_t> cutoff_from_answer(int status, const std::string& body, std::string& why) {
  if (status != 200) {
    why = "operator answered " + std::to_string(status) + " (no cutoff: nothing deleted)";
    return std::nullopt;
  }
  if (body.size() > 64 * 1024) {
    why = "operator answer too large";
    return std::nullopt;
  }
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_object()) {
    why = "operator answer is not a JSON object";
    return std::nullopt;
  }
  auto it = j.find("cutoffTime");
  if (it == j.end() || it->is_null()) {
    why = "no cutoffTime (no Succeeded backup): nothing deleted";
    return std::nullopt;
  }
  if (!it->is_string()) {
    why = "cutoffTime is not a string";
    return std::nullopt;
  }
  auto t = config::parse_rfc3339(it->get<std::string>());
  if (!t) {
    why = "cutoffTime \"" + it->get<std::string>() + "\" is not RFC3339";
    return std::nullopt;
  }
  why.clear();
  return t->time_since_epoch().count();
}

}  // namespace br::sidecar
