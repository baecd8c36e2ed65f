// Group supervisor lifecycle decisions (see group_lifecycle.hpp).
#include "actors/operator/kube/group_lifecycle.hpp"

namespace br {

bool same_running_spec(const config::group_spec& running, const config::group_spec& wanted) {
  auto a = running, b = wanted;
  a.restore_in_place.reset();
  b.restore_in_place.reset();
  return a == b;
}

resolved_decision decide_resolved(const tracked_group& g, const resolved_group& d,
                                  bool source_stopping) {
  using a = resolved_action;
  resolved_decision out;
  if (source_stopping) return out;
  if (d.deleted) {
    if (!g.exists) return out;
    out.action = g.running ? a::stop : g.finalizing ? a::ignore : a::forget;
    return out;
  }
  if (d.terminating) {
    out.action = a::finalize;
    return out;
  }
  auto entry = g;
  if (g.exists && !d.uid.empty() && g.uid != d.uid) {
    // Deleted and created again under the same name (the DELETED was missed): a new object.
    if (g.running) {
      out.action = a::stop_then_apply;
      return out;
    }
    out.drop_stale_entry = true;
    entry = tracked_group{};
  }
  if (!d.valid) {
    out.action = a::report_invalid;
    return out;
  }
  if (d.problem) {
    out.action = a::report_problem;
    return out;
  }
  if (entry.running)
    out.action = entry.same_as_running ? a::keep_running : a::restart;
  else
    out.action = entry.stopping ? a::start_when_down : a::start;
  return out;
}

down_action decide_down(const supervisor_down& d) {
  if (d.source_stopping) return down_action::finish_source_stop;
  if (d.finalizing) return down_action::finalize;
  if (d.deleted) return down_action::forget;
  if (d.pending) return down_action::start_pending;
  if (!d.requested) return down_action::restart_later;
  return down_action::none;
}

}  // namespace br
