// gr_watcher: read the member's view every interval, report each change once, rate-limited.
#include "actors/sidecar/runtime/gr_watcher.hpp"

#include <caf/all.hpp>

#include <algorithm>

#include "io/log/log.hpp"

namespace br::sidecar {

namespace {

using self_ptr = gr_watcher_self;
using ms = std::chrono::milliseconds;

int64_t wall_ms() {
  return std::chrono::duration_cast<ms>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void maybe_report(self_ptr self);

/// Sets the annotation to the newest token, one patch at a time.
void ring_pod(self_ptr self, std::string token) {
  auto& st = self->state;
  if (!st.pod) return;
  if (st.pod_inflight) {
    st.pod_pending = std::move(token);
    return;
  }
  st.pod_inflight = true;
  auto deadline = st.opts.pod.timeout + ms(1000);
  auto done = [self, token](std::string result) {
    auto& s = self->state;
    s.pod_inflight = false;
    // A failure is retried with backoff (on the tick) unless a newer token replaces it.
    s.pod_failures = result.empty() ? 0 : s.pod_failures + 1;
    s.pod_retry.reset();
    if (!result.empty() && !s.pod_pending) {
      s.pod_retry = token;
      s.pod_retry_at = self->clock().now() + pod_doorbell_retry_delay(s.pod_failures);
    }
    if (result != s.pod_result) {
      s.pod_result = result;
      if (result.empty())
        log::info("group replication doorbell: Pod annotation set", {{"pod", s.opts.pod.pod_name}});
      else
        log::warn("group replication doorbell: Pod annotation failed",
                  {{"pod", s.opts.pod.pod_name}, {"error", result}});
    }
    if (s.pod_pending) {
      auto next = std::move(*s.pod_pending);
      s.pod_pending.reset();
      ring_pod(self, std::move(next));
    }
  };
  self->request(st.pod, deadline, annotate_atom::value, token)
      .then([done](const std::string& r) { done(r); },
            [done, self](caf::error& e) { done(self->system().render(e)); });
}

void post(self_ptr self) {
  auto& st = self->state;
  if (!st.last) return;
  st.unreported = false;
  st.last_sent = self->clock().now();
  ++st.reports;
  ring_pod(self, gr_observation_token(*st.last));
  auto w = st.h->operator_http();
  if (st.opts.operator_address.empty() || !w) return;  // no worker (restarting): the next change reports
  st.last_sent_at_ms = std::max(wall_ms(), st.last_sent_at_ms + 1);
  http_call c;
  c.method = "POST";
  c.url = "http://" + st.opts.operator_address + "/sidecar/report";
  c.body = gr_report_body(st.opts, *st.last, st.last_sent_at_ms).dump();
  c.signature = sign(st.opts.auth, auth::purpose::report, c.body);
  c.timeout_ms = std::chrono::duration_cast<ms>(st.opts.request_timeout).count();
  st.post_inflight = true;
  auto done = [self](const std::string& result) {
    auto& s = self->state;
    s.post_inflight = false;
    if (!result.empty())
      log::warn("group replication doorbell: the operator did not take the report",
                {{"site", s.opts.site}, {"result", result}});
    maybe_report(self);  // a change seen while it was in flight
  };
  self->request(w, st.opts.request_timeout + ms(1000), http_call_atom::value, c)
      .then(
          [done](const http_reply& r) {
            done(r.status == 200 ? std::string{}
                                 : "HTTP " + std::to_string(r.status) + " " + r.error +
                                       r.body.substr(0, 200));
          },
          [done, self](caf::error& e) { done(self->system().render(e)); });
}

void maybe_report(self_ptr self) {
  auto& st = self->state;
  if (!st.unreported || st.post_inflight || st.report_timer) return;
  auto now = self->clock().now();  // the actor clock: virtual time in tests
  auto due = next_report_at(st.last_sent, now, st.opts.min_report_gap);
  if (due > now) {
    st.report_timer = true;
    self->delayed_send(self, due - now, deadline_atom::value);
    return;
  }
  post(self);
}

void observed(self_ptr self, const gr_observation& obs) {
  auto& st = self->state;
  if (!gr_changed(st.last, obs)) return;
  ++st.changes;
  log::info("group replication: the member's view changed",
            {{"site", st.opts.site}, {"gr", gr_observation_json(obs)}});
  st.last = obs;
  st.unreported = true;
  maybe_report(self);
}

void on_tick(self_ptr self) {
  auto& st = self->state;
  self->delayed_send(self, st.opts.interval, tick_atom::value);
  if (st.pod_retry && !st.pod_inflight && self->clock().now() >= st.pod_retry_at) {
    auto token = std::move(*st.pod_retry);
    st.pod_retry.reset();
    ring_pod(self, std::move(token));
  }
  if (st.probe_inflight) return;  // a slow server: one read at a time
  auto m = st.h->mysql();
  if (!m) return;
  st.probe_inflight = true;
  self->request(m, st.opts.probe_timeout + ms(1000), probe_atom::value)
      .then(
          [self](const mysql_outcome& out) {
            self->state.probe_inflight = false;
            observed(self, observe_gr(out));
          },
          [self](caf::error&) {
            self->state.probe_inflight = false;
            observed(self, gr_observation{});  // no answer in time: unreachable
          });
}

}  // namespace

nlohmann::json gr_report_body(const gr_watcher_options& o, const gr_observation& obs,
                              int64_t sent_at_ms) {
  return {{"kind", "gr-observed"},
          {"site", o.site},
          {"namespace", o.pod_namespace},
          {"group", o.group},
          {"sentAtMs", sent_at_ms},
          {"gr", gr_observation_json(obs)}};
}

gr_watcher_actor::behavior_type gr_watcher(self_ptr self, gr_watcher_options opts,
                                           std::shared_ptr<sidecar_handles> handles) {
  auto& st = self->state;
  st.opts = std::move(opts);
  st.h = std::move(handles);
  if (st.opts.pod.client) {
    st.pod = spawn_pod_doorbell(self->system(), st.opts.pod);
    self->link_to(st.pod);  // it goes down with the watcher (and the reverse)
  }
  self->send(self, tick_atom::value);
  return {
      [self](tick_atom) { on_tick(self); },
      [self](deadline_atom) {
        self->state.report_timer = false;
        maybe_report(self);
      },
  };
}

}  // namespace br::sidecar
