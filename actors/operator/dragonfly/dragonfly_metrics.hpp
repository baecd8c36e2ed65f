// The Dragonfly manager's Prometheus series (labels namespace, group; registered once on the
// process registry):
//   bloodraven_dragonfly_site_up{site}              1 when the site's cache server answered this poll
//   bloodraven_dragonfly_site_role{site, role}      state set: master, replica, stale-master,
//                                                   unconfigured, unreachable, unknown
//   bloodraven_dragonfly_ready                      1 when the phase is Ready
//   bloodraven_dragonfly_repl_takeover_supported    1 when the servers advertise REPLTAKEOVER
//   bloodraven_dragonfly_promotions_total{target_site, kind, result}  kind: promote (REPLICAOF NO
//                                                   ONE) | takeover; result: success | failed
//   bloodraven_dragonfly_action_failures_total{action}  a plan command that failed
//   bloodraven_dragonfly_manager_panics_total       a poll that threw (the next one comes anyway)
#pragma once

#include <string>

#include "actors/operator/decide/dragonfly_steer.hpp"

namespace br::dragonfly::metrics {

struct labels {
  std::string namespace_name;
  std::string group;
};

void observe_plan(const labels& l, const steer_plan& p);
void set_takeover_supported(const labels& l, bool supported);
void count_promotion(const labels& l, const std::string& site, const char* kind, bool success);
void count_action_failure(const labels& l, const char* action);
void count_poll_error(const labels& l);

std::string_view action_name(action_kind k);

}  // namespace br::dragonfly::metrics
