// The promotion gate (see promotion_gate.hpp and docs/safety.md).
#include "actors/operator/decide/promotion_gate.hpp"

#include <algorithm>

#include "actors/operator/decide/site_order.hpp"
#include "config/saturating.hpp"

namespace br {

caf::timespan rule3_wait(caf::timespan lease_timeout, caf::timespan peer_check_interval,
                         caf::timespan fence_timeout, caf::timespan request_timeout) {
  // Saturating: huge configured values mean a very long wait, never a wrapped (negative) one
  // that would open the gate at once.
  auto total = config::sat_sum(lease_timeout, peer_check_interval, fence_timeout, request_timeout);
  // 10% margin for clock-rate drift, rounded up so the margin is never short.
  return config::plus_ten_percent(total);
}

namespace {

gate_decision decided(gate_verdict v, gate_rule r, std::string reason) {
  gate_decision d;
  d.verdict = v;
  d.rule = r;
  d.reason = std::move(reason);
  return d;
}

}  // namespace

gate_decision promotion_gate(const gate_input& in) {
  if (in.operator_fenced_old_primary)
    return decided(gate_verdict::open, gate_rule::operator_fenced,
                   "the operator fenced the old primary (super_read_only=ON acknowledged)");
  if (in.old_primary_sidecar_acked)
    return decided(gate_verdict::open, gate_rule::old_primary_acked,
                   "the old primary's sidecar acknowledged the deposing view");
  if (in.semisync_cannot_ack)
    return decided(gate_verdict::open, gate_rule::semisync_stopped,
                   "semi-synchronous replication: too few sites receive from the old primary for "
                   "it to acknowledge a commit");
  if (in.policy == gate_policy::fast && in.old_primary_unreachable)
    return decided(gate_verdict::open, gate_rule::fast_unreachable,
                   "promotionGatePolicy Fast: unreachable old primary treated as isolated "
                   "(a dual-writable window is possible until it self-fences)");

  std::vector<std::string> missing;
  mono_time last_ack{};
  bool any_ack = false;
  for (const auto& site : in.other_sites) {
    auto it = in.peer_acks.find(site);
    if (it == in.peer_acks.end()) {
      missing.push_back(site);
    } else if (!any_ack || it->second > last_ack) {
      last_ack = it->second;
      any_ack = true;
    }
  }
  bool all_acked = !in.other_sites.empty() && missing.empty();
  auto wait =
      rule3_wait(in.lease_timeout, in.peer_check_interval, in.fence_timeout, in.request_timeout);
  mono_time rule3_deadline = config::sat_add(last_ack, wait);
  if (all_acked && in.now >= rule3_deadline) {
    auto d = decided(gate_verdict::open, gate_rule::peers_acked_waited,
                     "every other site acknowledged the deposing view and the lease wait passed "
                     "since the last acknowledgement");
    return d;
  }
  auto gate_deadline = config::sat_add(in.started, in.gate_timeout);
  if (in.now >= gate_deadline) {
    auto d = decided(
        gate_verdict::timed_out, gate_rule::none,
        "promotion gate timed out: the old primary is not known to be fenced" +
            (missing.empty() ? std::string() : "; no acknowledgement from " + join_names(missing)));
    d.missing_acks = std::move(missing);
    return d;
  }
  auto d = decided(gate_verdict::wait, gate_rule::none, "");
  if (all_acked) {
    d.until = std::min(rule3_deadline, gate_deadline);
    d.reason =
        "every other site acknowledged; waiting out the lease since the last "
        "acknowledgement";
  } else {
    d.until = gate_deadline;
    d.reason = in.other_sites.empty()
                   ? std::string("waiting for the old primary to be fenced or to acknowledge")
                   : "waiting for acknowledgements from " + join_names(missing);
  }
  d.missing_acks = std::move(missing);
  return d;
}

}  // namespace br
