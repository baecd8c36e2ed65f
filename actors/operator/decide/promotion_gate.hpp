// The promotion gate (docs/safety.md "The promotion gate", S2): may the executor make the candidate
// writable, given what is known about the old primary?
//
// Evaluated whenever a fact changes and at the returned `until`. Verdict, first match:
//   open(rule 1)  the operator fenced the old primary itself (SQL acknowledged);
//   open(rule 2)  the old primary's sidecar acknowledged the deposing view (it fences before it
//                 acks; with its mysqld down it acks too, because S5 boots mysqld fenced);
//   open(rule 4)  semi-synchronous replication: so few other sites still receive from the old
//                 primary that it cannot collect the acknowledgements a commit needs
//                 (decide/semisync_gate.*: `semisync_cannot_ack`);
//   open(Fast)    policy Fast and the old primary is unreachable: treated as isolated, as the
//                 seeds do. THIS ACCEPTS A DUAL-WRITABLE WINDOW: a primary that clients can still
//                 reach but the operator cannot keeps taking writes until its lease/switch fires
//                 (about leaseTimeout), while the candidate is already writable (S1/S2 traded for
//                 RTO). Safe (default) never does this;
//   open(rule 3)  every other site (all sites except the old primary, candidate included) has
//                 acknowledged the deposing view and now >= last_ack + rule3_wait, where
//                 rule3_wait = ceil(1.1 * (leaseTimeout + peerCheckInterval + fenceTimeout +
//                 requestTimeout)), counted from the LAST of those acknowledgements; acks from
//                 sites outside `other_sites` are ignored; an empty `other_sites` never satisfies
//                 rule 3 (no vacuous truth in a safety gate);
//   timed_out     now >= started + gate_timeout (promotionGateTimeout): alert, stay without a
//                 primary (S10). A rule satisfied at the same instant still opens the gate;
//   wait          otherwise, until min(rule-3 deadline if every ack is in, gate deadline).
// All instants are on the operator's monotonic clock.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "messages/decisions.hpp"

namespace br {

struct gate_input {
  bool operator_fenced_old_primary = false;    ///< rule 1: super_read_only=ON acknowledged
  bool old_primary_sidecar_acked = false;      ///< rule 2
  bool old_primary_unreachable = false;        ///< debounced state of the old primary
  bool semisync_cannot_ack = false;            ///< rule 4 (semisync_gate_result::cannot_ack)
  std::vector<std::string> other_sites;        ///< every site except the old primary
  std::map<std::string, mono_time> peer_acks;  ///< site -> when its sidecar acked the view
  gate_policy policy = gate_policy::safe;
  mono_time started{};
  mono_time now{};
  caf::timespan lease_timeout{0};
  caf::timespan peer_check_interval{0};
  caf::timespan fence_timeout{0};
  caf::timespan request_timeout{0};
  caf::timespan gate_timeout{0};  ///< promotionGateTimeout
};

/// ceil(1.1 * (lease + peer_check + fence + request)).
caf::timespan rule3_wait(caf::timespan lease_timeout, caf::timespan peer_check_interval,
                         caf::timespan fence_timeout, caf::timespan request_timeout);

gate_decision promotion_gate(const gate_input& in);

}  // namespace br
