// Pure sidecar fencing rules and the view adoption rule.
#include "actors/sidecar/fencing/fencing_rules.hpp"

#include <algorithm>

namespace br::sidecar {

bool should_adopt(const sidecar_view& current, const topology_view& offered, view_source source) {
  if (!current.present) return true;
  switch (source) {
    case view_source::operator_poll:
    case view_source::push:
    case view_source::boot:
      return offered.epoch >= current.view.epoch;
    case view_source::peer:
    case view_source::file:
      return offered.epoch > current.view.epoch;
  }
  return false;
}

std::string_view to_string(fence_reason r) {
  switch (r) {
    case fence_reason::none: return "none";
    case fence_reason::mismatch: return "mismatch";
    case fence_reason::transition: return "transition";
    case fence_reason::lease: return "lease";
  }
  return "none";
}

std::string_view to_string(fencing_action a) {
  switch (a) {
    case fencing_action::none: return "none";
    case fencing_action::refresh_view: return "refresh_view";
    case fencing_action::fence: return "fence";
  }
  return "none";
}

fence_reason view_conflict(const sidecar_view& v, const std::string& my_site) {
  if (!v.present) return fence_reason::none;
  if (!v.view.active_site.empty())
    return v.view.active_site == my_site ? fence_reason::none : fence_reason::mismatch;
  if (!v.view.deposing.empty() && v.view.deposing == my_site) return fence_reason::transition;
  return fence_reason::none;
}

bool peer_anchors(const peer_observation& p, const sidecar_view& mine, time_point now,
                  duration lease_timeout) {
  if (p.kind != peer_view_kind::view) return false;
  if (mine.present && p.epoch < mine.view.epoch) return false;
  return now - p.last_view_sent <= lease_timeout;
}

time_point lease_anchor(const fencing_input& in) {
  if (in.fenced && in.mysql_reachable && in.mysql_writable) return in.now;  // re-arm
  auto anchor = std::max(in.window_start, in.last_operator_contact);
  for (auto& p : in.peers)
    if (peer_anchors(p, in.view, in.now, in.lease_timeout))
      anchor = std::max(anchor, p.last_view_sent);
  return anchor;
}

fencing_decision decide_fencing(const fencing_input& in) {
  fencing_decision d;
  if (!in.mysql_reachable || !in.mysql_writable) return d;  // nothing writable to fence

  // We confirmed super_read_only=ON earlier and MySQL is writable again: someone with authority
  // (the operator) unfenced it. Start a fresh lease window (lease_anchor() is `now` then).
  if (in.fenced) d.rearm = true;

  // Rule 1: the view says another site is (or is becoming) the writer.
  auto conflict = view_conflict(in.view, in.my_site);
  if (conflict != fence_reason::none) {
    if (!in.refreshed) {
      d.action = fencing_action::refresh_view;
      d.reason = conflict;
      d.why = "cached view (epoch " + std::to_string(in.view.view.epoch) +
              ") does not name this site; refreshing it once before fencing";
      return d;
    }
    d.action = fencing_action::fence;
    d.reason = conflict;
    d.why = conflict == fence_reason::mismatch
                ? "view epoch " + std::to_string(in.view.view.epoch) + " names active site \"" +
                      in.view.view.active_site + "\""
                : "view epoch " + std::to_string(in.view.view.epoch) +
                      " deposes this site (transition)";
    return d;
  }

  // Startup grace, a fresh window after re-arm and rule 2 (lease) in one comparison: the lease
  // runs from its last renewal (window start, operator contact or an anchoring peer's view).
  if (in.now - lease_anchor(in) <= in.lease_timeout) return d;

  d.action = fencing_action::fence;
  d.reason = fence_reason::lease;
  d.why = "neither the operator nor an anchoring peer answered within the lease (" +
          std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(in.lease_timeout)
                             .count()) +
          " ms; " + std::to_string(in.peers.size()) + " peers configured)";
  return d;
}

}  // namespace br::sidecar
