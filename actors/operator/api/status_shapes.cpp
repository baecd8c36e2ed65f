// Status API wire shapes built from the coordinator's status JSON (pure; table-tested).
#include "actors/operator/api/status_shapes.hpp"

#include <chrono>

#include "config/rfc3339.hpp"

namespace br {

namespace {

using nlohmann::json;

std::string str(const json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

/// Copies `key` when present (any type).
void copy_if(json& to, const json& from, const char* key) {
  if (auto it = from.find(key); it != from.end()) to[key] = *it;
}

json sites_of(const json& cr) {
  auto it = cr.find("sites");
  return it != cr.end() && it->is_array() ? *it : json::array();
}

}  // namespace

std::string rfc3339_ms(int64_t unix_ms) {
  return config::format_rfc3339(config::timestamp(std::chrono::milliseconds(unix_ms)));
}

json event_json(const group_event& e) {
  return {{"group", e.group},     {"type", e.type},   {"reason", e.reason},
          {"message", e.message}, {"site", e.site},   {"epoch", e.epoch},
          {"timeMs", e.time_ms},  {"time", rfc3339_ms(e.time_ms)}};
}

json api_status_entry(const json& cr_status, int64_t poll_time_ms) {
  const json& cr = cr_status.is_object() ? cr_status : json::object();
  json out = json::object();
  out["activeSite"] = str(cr, "activeSite");
  json sites = json::array();
  for (const auto& s : sites_of(cr)) {
    if (!s.is_object()) continue;
    json o = json::object();
    o["name"] = str(s, "name");
    o["role"] = str(s, "role");
    o["state"] = s.contains("state") ? str(s, "state") : std::string("unknown");
    if (auto h = str(s, "sourceHost"); !h.empty()) o["sourceHost"] = h;
    copy_if(o, s, "sourceConvergenceState");
    copy_if(o, s, "sourceConvergenceReason");
    copy_if(o, s, "servingHealthy");
    o["recoveryState"] = str(s, "recoveryState");
    if (auto g = str(s, "divergentGtid"); !g.empty()) o["divergentGtid"] = g;
    copy_if(o, s, "divergentTransactionCount");
    copy_if(o, s, "manuallyFenced");  // fenced by request (issue 20): out of routing
    sites.push_back(std::move(o));
  }
  out["sites"] = std::move(sites);
  out["pollTime"] = rfc3339_ms(poll_time_ms);
  out["promotionGtidExecuted"] = str(cr, "promotionGtidExecuted");
  copy_if(out, cr, "lastFailoverLosses");  // what the last promotion could not carry over
  copy_if(out, cr, "bootstrap");  // the latest bootstrap / auto-clone / reclone (issue 19)
  copy_if(out, cr, "plannedFailover");  // the latest planned failover request (issue 20)
  copy_if(out, cr, "groupReplication");  // Group Replication groups: the agreed view (issue 22)
  out["epoch"] = cr.contains("epoch") && cr["epoch"].is_number_unsigned()
                     ? cr["epoch"].get<uint64_t>()
                     : uint64_t{0};
  return out;
}

json ws_status_message(const std::string& namespace_name, const std::string& group,
                       const json& cr_status, int64_t poll_time_ms,
                       const std::vector<group_event>& events, size_t max_events) {
  const json& cr = cr_status.is_object() ? cr_status : json::object();
  json out = json::object();
  out["namespace"] = namespace_name;
  out["group"] = group;
  out["activeSite"] = str(cr, "activeSite");
  json sites = json::array();
  for (const auto& s : sites_of(cr)) {
    if (!s.is_object()) continue;
    json o = json::object();
    o["name"] = str(s, "name");
    o["state"] = s.contains("state") ? str(s, "state") : std::string("unknown");
    o["lastSeen"] = s.contains("lastSeen") ? s["lastSeen"] : json(nullptr);
    o["replicating"] = s.value("replicating", false);
    o["secondsBehindSource"] =
        s.contains("secondsBehindSource") ? s["secondsBehindSource"] : json(nullptr);
    o["gtidExecuted"] = str(s, "gtidExecuted");
    o["recoveryState"] = str(s, "recoveryState");
    o["divergentGtid"] = str(s, "divergentGtid");
    o["divergentTransactionCount"] =
        s.contains("divergentTransactionCount") ? s["divergentTransactionCount"] : json(0);
    o["role"] = str(s, "role");
    sites.push_back(std::move(o));
  }
  out["sites"] = std::move(sites);
  out["lastFailover"] = cr.contains("lastFailover") ? cr["lastFailover"] : json(nullptr);
  out["lastFailoverTarget"] = str(cr, "lastFailoverTarget");
  out["promotionGtidExecuted"] = str(cr, "promotionGtidExecuted");
  out["lastFailoverLosses"] = cr.contains("lastFailoverLosses") ? cr["lastFailoverLosses"] : json::array();
  out["pollTime"] = rfc3339_ms(poll_time_ms);
  out["epoch"] = cr.contains("epoch") && cr["epoch"].is_number_unsigned()
                     ? cr["epoch"].get<uint64_t>()
                     : uint64_t{0};
  out["deposingSite"] = str(cr, "deposingSite");
  out["conditions"] = cr.contains("conditions") ? cr["conditions"] : json::array();
  out["bootstrap"] = cr.contains("bootstrap") ? cr["bootstrap"] : json(nullptr);
  out["plannedFailover"] = cr.contains("plannedFailover") ? cr["plannedFailover"] : json(nullptr);
  if (cr.contains("groupReplication")) out["groupReplication"] = cr["groupReplication"];
  json recent = json::array();
  std::vector<const group_event*> mine;
  for (const auto& e : events)
    if (e.group == group) mine.push_back(&e);
  size_t from = mine.size() > max_events ? mine.size() - max_events : 0;
  for (size_t i = from; i < mine.size(); ++i) recent.push_back(event_json(*mine[i]));
  out["recentEvents"] = std::move(recent);
  return out;
}

}  // namespace br
