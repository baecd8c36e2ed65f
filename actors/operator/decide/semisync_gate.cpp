// Gate rule 4 and the no-loss candidate under semi-synchronous replication (semisync_gate.hpp).
#include "actors/operator/decide/semisync_gate.hpp"

#include <algorithm>

#include "actors/operator/decide/site_order.hpp"

namespace br {

bool semisync_source_confirmed(const site_semisync& s, uint32_t k, size_t other_sites,
                               uint64_t timeout_max_ms, std::string* why) {
  auto no = [&](std::string text) {
    if (why) *why = std::move(text);
    return false;
  };
  if (!s.source_loaded) return no("the semisync_source plugin is not loaded");
  if (!s.source_enabled) return no("rpl_semi_sync_source_enabled is OFF");
  if (!s.source_on) return no("Rpl_semi_sync_source_status is OFF (fallen back to asynchronous)");
  if (s.no_tx != 0)
    return no(std::to_string(s.no_tx) + " commits were answered without acknowledgements "
              "(Rpl_semi_sync_source_no_tx)");
  if (s.wait_point != "AFTER_SYNC") return no("wait point " + s.wait_point + ", not AFTER_SYNC");
  if (!s.wait_no_replica) return no("rpl_semi_sync_source_wait_no_replica is OFF");
  if (s.timeout_ms < timeout_max_ms)
    return no("rpl_semi_sync_source_timeout " + std::to_string(s.timeout_ms) +
              " ms is not the maximum");
  if (s.wait_count != k)
    return no("wait_for_replica_count " + std::to_string(s.wait_count) + ", not " +
              std::to_string(k));
  if (s.clients > other_sites)
    return no(std::to_string(s.clients) + " semi-sync receivers for " +
              std::to_string(other_sites) + " other sites");
  if (why) why->clear();
  return true;
}

uint32_t semisync_quorum(size_t others, uint32_t k) {
  if (k == 0 || k > others) return 0;
  return static_cast<uint32_t>(others) - k + 1;
}

semisync_gate_result semisync_gate(const semisync_gate_input& in) {
  semisync_gate_result r;
  if (!in.enabled) {
    r.reason = "semi-synchronous replication is off";
    return r;
  }
  auto need = semisync_quorum(in.others.size(), in.wait_for_replica_count);
  if (need == 0) {
    r.reason = "waitForReplicaCount " + std::to_string(in.wait_for_replica_count) +
               " is not between 1 and the " + std::to_string(in.others.size()) +
               " other sites";
    return r;
  }
  if (!in.old_primary_confirmed) {
    r.reason =
        "the old primary was not last seen waiting for semi-synchronous acknowledgements "
        "(it may have acknowledged writes no replica received)";
    return r;
  }
  uint32_t stopped = 0;
  uint32_t counted = 0;
  gtid_set held;
  for (const auto& f : in.others) {
    bool off = f.reached && f.receiver_stopped;
    if (off)
      ++stopped;
    else
      r.still_receiving.push_back(f.site);
    // Counted: its received set is final (stopped) and complete (in step). A site still
    // receiving may get a commit after its probe that then collects K acknowledgements with a
    // stopped site that is not in step: the candidate would lack it (review V4).
    if (off && f.in_step && f.received) {
      ++counted;
      held = held.unite(*f.received);
    }
  }
  r.cannot_ack = stopped >= need;
  if (counted < need) {
    r.reason = std::to_string(counted) + " of the " + std::to_string(need) +
               " in-step sites needed were reached";
    if (!r.cannot_ack)
      r.reason += "; still receiving from the old primary: " + join_names(r.still_receiving);
    return r;
  }
  for (const auto& name : in.eligible) {
    auto it = std::find_if(in.others.begin(), in.others.end(),
                           [&](const semisync_site_fact& f) { return f.site == name; });
    if (it == in.others.end() || !it->reached || !it->receiver_stopped || !it->received) continue;
    if (!it->received->contains(held)) continue;
    r.candidate = name;
    break;
  }
  if (r.candidate.empty()) {
    r.reason = "no eligible site with a stopped receiver holds every transaction the " +
               std::to_string(counted) + " in-step sites received";
    return r;
  }
  r.reason = r.candidate + " holds every transaction received by " + std::to_string(counted) +
             " in-step sites (" + std::to_string(need) + " needed)";
  if (!r.cannot_ack)
    r.reason += "; still receiving from the old primary: " + join_names(r.still_receiving);
  return r;
}

}  // namespace br
