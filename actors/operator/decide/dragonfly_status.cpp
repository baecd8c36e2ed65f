// status.dragonfly (see dragonfly_status.hpp).
#include "actors/operator/decide/dragonfly_status.hpp"

#include <algorithm>

namespace br::dragonfly {

using nlohmann::json;

namespace {

const site_observation* observed(const steer_input& in, const std::string& site) {
  for (const auto& s : in.sites)
    if (s.site == site) return &s;
  return nullptr;
}

/// A server's text (its master_host is in `why`) is capped: status.dragonfly stays small whatever
/// a cache server answers.
std::string capped(const std::string& text) {
  constexpr std::size_t max = 256;
  return text.size() <= max ? text : text.substr(0, max) + "...";
}

int64_t offset_of(const site_observation& s) {
  return s.info.role == server_role::replica ? s.info.replica_offset : s.info.master_repl_offset;
}

}  // namespace

json status_json(const steer_input& in, const steer_plan& plan, const status_facts& f) {
  json out = {{"enabled", true},
              {"phase", plan.phase},
              {"message", capped(plan.phase_reason)},
              {"masterSite", f.master_site}};
  const auto* m = observed(in, f.master_site);
  const bool master_known = m && m->reachable && m->info.role == server_role::master;
  json sites = json::array();
  for (const auto& v : plan.sites) {
    json s = {{"name", v.site}, {"role", std::string{to_string(v.cls)}}, {"ready", v.ready}, {"message", capped(v.why)}};
    const auto* o = observed(in, v.site);
    if (o && o->reachable) {
      if (const auto off = offset_of(*o); off >= 0) s["offset"] = off;
      if (o->info.role == server_role::replica) {
        s["masterLinkStatus"] = o->info.link_up ? "up" : "down";
        if (master_known && o->info.master_host == m->host && o->info.master_port == static_cast<int64_t>(m->port) &&
            m->info.master_repl_offset >= 0 && o->info.replica_offset >= 0)
          s["lagBytes"] = std::max<int64_t>(0, m->info.master_repl_offset - o->info.replica_offset);
      }
    }
    sites.push_back(std::move(s));
  }
  out["sites"] = std::move(sites);
  if (f.takeover_supported) {
    out["replTakeoverSupported"] = *f.takeover_supported;
    out["replTakeoverProbeMessage"] = f.takeover_message;
    out["replTakeoverProbeTime"] = f.takeover_probe_time;
  }
  if (f.last_failover) {
    const auto& l = *f.last_failover;
    out["lastFailover"] = {{"time", l.time},       {"fromSite", l.from},     {"toSite", l.to},
                           {"method", l.method},   {"reason", l.reason},     {"sessionsPreserved", l.sessions_preserved}};
  }
  return out;
}

}  // namespace br::dragonfly
