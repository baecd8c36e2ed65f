// Standalone route file (see route_book.hpp).
#include "actors/operator/local/route_book.hpp"

#include "actors/operator/decide/gr_route.hpp"
#include "actors/operator/local/local_platform.hpp"
#include "io/log/log.hpp"

namespace br {

nlohmann::json route_file_content(const std::string& primary, const std::vector<std::string>& replicas,
                                  const std::set<std::string>& fenced) {
  auto routed = nlohmann::json::array();
  auto out = nlohmann::json::array();
  for (const auto& r : replicas)
    if (fenced.count(r))
      out.push_back(r);
    else
      routed.push_back(r);
  return {{"primary", primary}, {"replicas", routed}, {"fenced", out}};
}

std::optional<status_route> settled_route(const config::group_status& s) {
  if (s.group_replication) {
    auto gr = gr_route_of(*s.group_replication, s.active_site);
    if (!gr) return std::nullopt;
    return status_route{gr->primary, gr->secondaries};
  }
  if (s.active_site.empty() || !s.deposing_site.empty()) return std::nullopt;
  status_route r{s.active_site, {}};
  bool writable = false;
  for (const auto& site : s.sites)
    if (site.name == s.active_site)
      writable = site.state == site_state::writable;
    else
      r.replicas.push_back(site.name);
  if (!writable) return std::nullopt;
  return r;
}

std::set<std::string> fenced_sites(const config::group_status& s) {
  std::set<std::string> out;
  for (const auto& site : s.sites)
    if (site.manually_fenced) out.insert(site.name);
  return out;
}

bool route_book::write(const std::string& group, entry& e) {
  auto text = route_file_content(e.primary, e.replicas, e.fenced).dump() + "\n";
  if (text == e.written) return true;
  if (auto err = write_file_atomic(path(group), text)) {
    log::error("route file write failed", {{"group", group}, {"error", to_string(err)}});
    e.written.clear();  // unknown now: the next change writes again
    return false;
  }
  e.written = text;
  return true;
}

bool route_book::steer(const std::string& group, const std::string& primary,
                       const std::vector<std::string>& replicas) {
  std::lock_guard<std::mutex> g(mx_);
  auto& e = routes_[group];
  e.primary = primary;
  e.replicas = replicas;
  return write(group, e);
}

void route_book::follow(const std::string& group, const config::group_status& status) {
  std::lock_guard<std::mutex> g(mx_);
  auto route = settled_route(status);
  auto it = routes_.find(group);
  if (it == routes_.end()) {
    if (!route) return;  // no route known yet
    it = routes_.emplace(group, entry{}).first;
  }
  auto& e = it->second;
  if (route) {
    e.primary = route->primary;
    e.replicas = route->replicas;
  }
  e.fenced = fenced_sites(status);
  write(group, e);
}

}  // namespace br
