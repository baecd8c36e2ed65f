// PITR archive progress folded from sidecar reports.
#include "actors/operator/api/pitr_status.hpp"

namespace br {

using nlohmann::json;

namespace {

bool non_negative(const json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

}  // namespace

std::string check_archiver_report(const json& a) {
  if (!a.is_object()) return "archiver must be an object";
  if (!a.contains("enabled") || !a["enabled"].is_boolean())
    return "archiver.enabled must be a boolean";
  if (!a["enabled"].get<bool>()) return {};
  if (!a.contains("primary") || !a["primary"].is_boolean())
    return "archiver.primary must be a boolean";
  for (const char* f : {"filesArchived", "bytesArchived", "backlogFiles", "uploadFailures"})
    if (a.contains(f) && !non_negative(a[f]))
      return std::string("archiver.") + f + " must be a non-negative integer";
  for (const char* f : {"lastUploadTime", "lastError"})
    if (a.contains(f) && !a[f].is_string() && !a[f].is_null())
      return std::string("archiver.") + f + " must be a string or null";
  return {};
}

namespace {

uint64_t count_of(const json& a, const char* f) {
  return a.contains(f) && non_negative(a[f]) ? a[f].get<uint64_t>() : 0;
}

std::string text_of(const json& a, const char* f) {
  return a.contains(f) && a[f].is_string() ? a[f].get<std::string>() : std::string();
}

}  // namespace

json pitr_status_of(const std::map<std::string, json>& reports) {
  json sites = json::object();
  uint64_t files = 0, bytes = 0, failures = 0, backlog = 0;
  std::string newest, archiving, problems;
  for (const auto& [site, report] : reports) {
    if (!report.is_object() || !report.contains("archiver")) continue;
    const auto& a = report["archiver"];
    if (!check_archiver_report(a).empty() || !a["enabled"].get<bool>()) continue;
    bool primary = a["primary"].get<bool>();
    auto last = text_of(a, "lastUploadTime");
    auto error = text_of(a, "lastError");
    sites[site] = {{"primary", primary},
                   {"filesArchived", count_of(a, "filesArchived")},
                   {"bytesArchived", count_of(a, "bytesArchived")},
                   {"backlogFiles", count_of(a, "backlogFiles")},
                   {"uploadFailures", count_of(a, "uploadFailures")},
                   {"lastUploadTime", last.empty() ? json(nullptr) : json(last)},
                   {"lastError", error}};
    files += count_of(a, "filesArchived");
    bytes += count_of(a, "bytesArchived");
    failures += count_of(a, "uploadFailures");
    if (last > newest) newest = last;
    if (primary && archiving.empty()) {
      archiving = site;
      backlog = count_of(a, "backlogFiles");
    }
    if (!error.empty()) problems += (problems.empty() ? "" : "; ") + site + ": " + error;
  }
  if (sites.empty()) return nullptr;
  std::string message = problems;
  if (archiving.empty())
    message = "no site archives as primary" + (problems.empty() ? "" : "; " + problems);
  return {{"enabled", true},
          {"archivingSite", archiving},
          {"archivedFileCount", files},
          {"archivedBytes", bytes},
          {"lastArchivedTime", newest.empty() ? json(nullptr) : json(newest)},
          {"backlogFiles", backlog},
          {"uploadFailures", failures},
          {"message", message},
          {"sites", sites}};
}

}  // namespace br
