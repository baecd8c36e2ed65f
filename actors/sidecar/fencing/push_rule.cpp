// The pushed-view acknowledgement rule (see push_rule.hpp).
#include "actors/sidecar/fencing/push_rule.hpp"

namespace br::sidecar {

namespace {

push_result answer(push_progress p) { return {std::move(p), push_action::answer}; }
push_result next(push_progress p, push_action a) { return {std::move(p), a}; }

push_result on_offered(push_progress p, const push_event::offered& x) {
  p.ack.epoch = x.cached.view.epoch;
  if (x.cached.view.epoch > p.pushed.epoch) {
    p.ack.stale = true;
    p.ack.error = "pushed epoch " + std::to_string(p.pushed.epoch) + " is older than cached " +
                  std::to_string(x.cached.view.epoch);
    return answer(std::move(p));
  }
  if (!p.site.empty() && p.pushed.active_site == p.site) {
    p.ack.ok = true;
    p.ack.fenced = x.fenced;
    p.ack.mysql_reachable = x.mysql_reachable;
    return answer(std::move(p));
  }
  return next(std::move(p), push_action::probe);
}

push_result on_probed(push_progress p, const push_event::probed& x) {
  if (!x.outcome) {
    p.ack.error = "probe failed: " + x.error;
    return answer(std::move(p));
  }
  const auto& o = *x.outcome;
  if (!o.ok) {
    // mysqld provably down (the worker saw a refused connection on the local address, or no
    // socket): S5 makes it boot fenced, so that is an acknowledgement. Anything else (a lost
    // connection, which an overloaded but running server also produces, a timeout, auth) leaves
    // the state unknown: no ack.
    if (o.error_kind == "down") {
      p.ack.ok = true;
      p.ack.mysql_reachable = false;
      p.ack.fenced = false;
    } else {
      p.ack.error = "cannot confirm MySQL is fenced: " + o.error;
    }
    return answer(std::move(p));
  }
  if (o.probe.super_read_only) {
    p.ack.ok = true;
    p.ack.fenced = true;
    return answer(std::move(p));
  }
  if (!p.site.empty() && p.pushed.deposing == p.site) return next(std::move(p), push_action::fence);
  return next(std::move(p), push_action::refresh);
}

push_result on_refreshed(push_progress p, const push_event::refreshed& x) {
  if (x.view && x.view->present && x.view->view.epoch > p.pushed.epoch &&
      x.view->view.active_site == p.site) {
    p.ack.stale = true;
    p.ack.epoch = x.view->view.epoch;
    p.ack.error = "pushed epoch " + std::to_string(p.pushed.epoch) + " is superseded by epoch " +
                  std::to_string(x.view->view.epoch) + ", which names this site";
    return answer(std::move(p));
  }
  return next(std::move(p), push_action::fence);
}

push_result on_fenced(push_progress p, const push_event::fence_done& x) {
  if (x.ok) {
    p.ack.ok = true;
    p.ack.fenced = true;
  } else {
    p.ack.error = x.error;
  }
  return answer(std::move(p));
}

}  // namespace

push_result push_step(push_progress p, const push_input& in) {
  if (auto x = std::get_if<push_event::offered>(&in)) return on_offered(std::move(p), *x);
  if (auto x = std::get_if<push_event::probed>(&in)) return on_probed(std::move(p), *x);
  if (auto x = std::get_if<push_event::refreshed>(&in)) return on_refreshed(std::move(p), *x);
  return on_fenced(std::move(p), std::get<push_event::fence_done>(in));
}

}  // namespace br::sidecar
