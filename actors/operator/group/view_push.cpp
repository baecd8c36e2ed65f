// PUT /view request and acknowledgement parsing (pure).
#include "actors/operator/group/view_push.hpp"

#include <nlohmann/json.hpp>

#include "actors/common/view_json.hpp"

namespace br {

http_call view_push_call(const std::string& address, const std::string& token,
                         const topology_view& view, std::chrono::milliseconds timeout) {
  http_call c;
  c.method = "PUT";
  c.url = "http://" + address + "/view";
  c.body = view_to_json(view);
  c.timeout_ms = timeout.count();
  c.bearer = token;
  return c;
}

view_ack parse_view_ack(const std::string& site, const topology_view& pushed, const http_reply& r) {
  view_ack a;
  a.site = site;
  a.status = r.status;
  if (r.status == 0) {
    a.error = r.error.empty() ? "no response" : r.error;
    return a;
  }
  auto j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object()) {
    a.error = "HTTP " + std::to_string(r.status) + " without a JSON object";
    return a;
  }
  if (auto e = j.find("epoch"); e != j.end() && e->is_number_unsigned()) a.epoch = e->get<uint64_t>();
  if (auto e = j.find("error"); e != j.end() && e->is_string()) a.error = e->get<std::string>();
  if (r.status == 409) {
    a.stale = true;
    if (a.error.empty()) a.error = "sidecar holds a newer view";
    return a;
  }
  auto ack = j.find("ack");
  if (r.status != 200 || ack == j.end() || !ack->is_boolean() || !ack->get<bool>()) {
    if (a.error.empty()) a.error = "HTTP " + std::to_string(r.status) + " without an acknowledgement";
    return a;
  }
  if (a.epoch < pushed.epoch) {
    a.error = "acknowledged epoch " + std::to_string(a.epoch) + " is older than the pushed " +
              std::to_string(pushed.epoch);
    return a;
  }
  if (auto e = j.find("fenced"); e != j.end() && e->is_boolean()) a.fenced = e->get<bool>();
  if (auto e = j.find("mysqlReachable"); e != j.end() && e->is_boolean())
    a.mysql_reachable = e->get<bool>();
  a.acked = true;
  a.error.clear();
  return a;
}

}  // namespace br
