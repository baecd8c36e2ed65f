// The Dragonfly manager's series (see dragonfly_metrics.hpp).
#include "actors/operator/dragonfly/dragonfly_metrics.hpp"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>

#include "io/metrics/metrics.hpp"

namespace br::dragonfly::metrics {
namespace {

prometheus::Family<prometheus::Gauge>& gauge(const char* name, const char* help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(*br::metrics::process_registry());
}

prometheus::Family<prometheus::Counter>& counter(const char* name, const char* help) {
  return prometheus::BuildCounter().Name(name).Help(help).Register(*br::metrics::process_registry());
}

prometheus::Labels base(const labels& l) { return {{"namespace", l.namespace_name}, {"group", l.group}}; }

}  // namespace

std::string_view action_name(action_kind k) {
  switch (k) {
    case action_kind::replicaof: return "replicaof";
    case action_kind::takeover: return "takeover";
    case action_kind::promote: return "promote";
    case action_kind::strip_traffic: return "strip_traffic";
    case action_kind::wait_sync: return "wait_sync";
    case action_kind::client_kill: return "client_kill";
    case action_kind::pause_writes: return "pause_writes";
    case action_kind::unpause_writes: return "unpause_writes";
    case action_kind::label_master: return "label_master";
    case action_kind::event: return "event";
  }
  return "event";
}

void observe_plan(const labels& l, const steer_plan& p) {
  static auto& up = gauge("bloodraven_dragonfly_site_up", "1 when the site's cache server answered the last poll.");
  static auto& role = gauge("bloodraven_dragonfly_site_role", "The class of each site's cache server (state set).");
  static auto& ready = gauge("bloodraven_dragonfly_ready", "1 when the cache servers are Ready.");
  auto b = base(l);
  for (const auto& v : p.sites) {
    auto s = b;
    s["site"] = v.site;
    up.Add(s).Set(v.cls == site_class::unreachable ? 0 : 1);
    for (auto c : {site_class::master, site_class::replica, site_class::stale_master, site_class::unconfigured,
                   site_class::unreachable, site_class::unknown}) {
      auto r = s;
      r["role"] = std::string(to_string(c));
      role.Add(r).Set(c == v.cls ? 1 : 0);
    }
  }
  ready.Add(b).Set(p.phase == "Ready" ? 1 : 0);
}

void set_takeover_supported(const labels& l, bool supported) {
  static auto& g = gauge("bloodraven_dragonfly_repl_takeover_supported",
                         "1 when the cache servers advertise REPLTAKEOVER (else promotions use REPLICAOF NO ONE).");
  g.Add(base(l)).Set(supported ? 1 : 0);
}

void count_promotion(const labels& l, const std::string& site, const char* kind, bool success) {
  static auto& c = counter("bloodraven_dragonfly_promotions_total", "Cache master promotions the manager ran.");
  auto s = base(l);
  s["target_site"] = site;
  s["kind"] = kind;
  s["result"] = success ? "success" : "failed";
  c.Add(s).Increment();
}

void count_action_failure(const labels& l, const char* action) {
  static auto& c = counter("bloodraven_dragonfly_action_failures_total", "Steering commands that failed.");
  auto s = base(l);
  s["action"] = action;
  c.Add(s).Increment();
}

void count_poll_error(const labels& l) {
  static auto& c = counter("bloodraven_dragonfly_manager_panics_total", "Manager polls that threw.");
  c.Add(base(l)).Increment();
}

}  // namespace br::dragonfly::metrics
