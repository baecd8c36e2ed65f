// fencing_monitor: every PEER_CHECK_INTERVAL pull views, apply the fencing rules, fence, report.
#pragma once

#include <caf/actor_system.hpp>
#include <caf/stateful_actor.hpp>

#include <memory>
#include <string>
#include <vector>

#include "actors/sidecar/fencing/fencing_rules.hpp"
#include "actors/sidecar/fencing/signed_answers.hpp"
#include "actors/sidecar/common/sidecar_handles.hpp"
#include "messages/interfaces.hpp"

namespace br::sidecar {

struct monitor_options {
  std::string site, pod_namespace, group;
  std::string operator_address;     ///< host:port; "" = no operator configured
  std::vector<std::string> peers;   ///< host:port, same order as the peer HTTP workers
  caf::timespan interval = std::chrono::seconds(5);
  caf::timespan lease_timeout = std::chrono::seconds(20);
  caf::timespan request_timeout = std::chrono::seconds(2);
  caf::timespan fence_timeout = std::chrono::seconds(20);
  bool dead_mans_switch = true;  ///< heartbeat every tick while writable (docs/safety.md rule 7)
  /// Operator keys (views, operator answers), this site's key (reports, acks, peer answers) and
  /// the peers' keys. Null: nothing verifies, so no view is adopted and no lease is renewed.
  std::shared_ptr<const auth::key_ring> keys;
};

/// The monitor's identity in signed statements.
authority authority_of(const monitor_options& o);

struct monitor_state {
  static inline const char* name = "fencing_monitor";
  monitor_options opts;
  std::shared_ptr<sidecar_handles> h;
  sidecar_view view;  ///< mirror of the view cache's answer
  time_point window_start{};
  time_point last_operator_contact{};
  std::vector<peer_observation> peers;
  bool fenced = false;
  bool boot_done = false;
  bool mysql_reachable = false;
  bool mysql_writable = false;
  bool super_read_only = false;
  bool operator_reachable = false;
  bool busy = false;
  bool heartbeat_inflight = false;
  std::string heartbeat_result;  ///< last outcome, logged when it changes
  bool fencing = false;
  uint64_t ticks = 0;
  // bookkeeping of one round
  int pending = 0;
  bool refresh_round = false;
  bool operator_view_this_round = false;
  bool mysql_fresh = false;
  std::vector<view_offer> offers;
  // workers with a request still outstanding (never queue more behind a hanging remote)
  bool operator_inflight = false;
  std::vector<bool> peer_inflight;
  bool mysql_inflight = false;
};

fencing_monitor_actor::behavior_type
fencing_monitor(fencing_monitor_actor::stateful_pointer<monitor_state> self, monitor_options opts,
                std::shared_ptr<sidecar_handles> handles);

/// URL helpers (exposed for tests): the operator's /active-site for this group with `nonce`.
std::string operator_active_site_url(const monitor_options& o, const std::string& nonce);

}  // namespace br::sidecar
