// status_hub actor: forwards status publications, reshapes them for /ws/status, re-sends per cycle.
#include "actors/operator/api/status_hub.hpp"

#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include <map>

#include <nlohmann/json.hpp>

#include "actors/operator/group/operator_metrics.hpp"
#include "actors/operator/api/status_shapes.hpp"
#include "config/group_status.hpp"
#include "io/log/log.hpp"
#include "actors/common/wall_clock.hpp"

namespace br {

namespace {


struct hub_group {
  nlohmann::json status;
  caf::actor_clock::time_point last_sent;
};

struct status_hub_state {
  status_hub_config cfg;
  std::map<std::string, hub_group> groups;
  static inline const char* name = "status_hub";
};

using hub_ptr = status_hub_actor::stateful_pointer<status_hub_state>;


void send_group(hub_ptr self, const std::string& group, hub_group& g) {
  auto& cfg = self->state.cfg;
  g.last_sent = self->clock().now();
  if (!cfg.ws) return;
  auto events = cfg.events ? cfg.events() : std::vector<group_event>{};
  auto msg = ws_status_message(cfg.namespace_name, group, g.status, unix_ms(cfg.wall_clock), events);
  cfg.ws->publish(cfg.namespace_name + "/" + group, msg.dump());
  opmetrics::websocket_messages().Increment();
}

/// Followers' lag from the published status (-1 when the source lag is NULL / not replicating).
void update_lag(const status_hub_config& cfg, const std::string& group, const nlohmann::json& st) {
  opmetrics::group_labels gl{cfg.namespace_name, group};
  auto active = st.value("activeSite", std::string{});
  if (!st.contains("sites") || !st["sites"].is_array()) return;
  for (const auto& s : st["sites"]) {
    if (!s.is_object() || !s.contains("name") || !s["name"].is_string()) continue;
    auto name = s["name"].get<std::string>();
    auto role = s.value("role", std::string{});
    double lag = -1;
    if (s.contains("secondsBehindSource") && s["secondsBehindSource"].is_number())
      lag = s["secondsBehindSource"].get<double>();
    // Without an active site every site is a follower candidate; the lag then says how far
    // behind each is, which is what an operator looks at during an outage.
    opmetrics::set_replication_lag(gl, name, role, name != active, lag);
  }
}

status_hub_actor::behavior_type status_hub(hub_ptr self, status_hub_config cfg) {
  self->state.cfg = std::move(cfg);
  self->delayed_send(self, self->state.cfg.interval / 2, tick_atom::value);
  return {
      [=](status_atom, const std::string& group, const config::group_status& status) {
        auto& st = self->state;
        if (st.cfg.forward) self->send(st.cfg.forward, status_atom::value, group, status);
        nlohmann::json parsed = status;  // /ws/status is an edge: the value becomes JSON here
        update_lag(st.cfg, group, parsed);
        auto& g = st.groups[group];
        g.status = std::move(parsed);
        send_group(self, group, g);
      },
      [=](tick_atom) {
        auto& st = self->state;
        auto now = self->clock().now();
        for (auto& [group, g] : st.groups)
          if (now - g.last_sent >= st.cfg.interval) send_group(self, group, g);
        self->delayed_send(self, st.cfg.interval / 2, tick_atom::value);
      },
  };
}

}  // namespace

status_writer_actor spawn_status_hub(caf::actor_system& sys, status_hub_config cfg) {
  return sys.spawn(status_hub, std::move(cfg));
}

}  // namespace br
