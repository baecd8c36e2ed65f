// site_poller: drift-free ticks, one probe in flight at most, debounce, report to the coordinator.
#include "actors/operator/group/site_poller.hpp"

#include <caf/all.hpp>

#include <algorithm>

#include "actors/common/registry.hpp"
#include "actors/operator/decide/debounce.hpp"
#include "actors/operator/group/operator_metrics.hpp"
#include "config/saturating.hpp"
#include "io/log/log.hpp"

namespace br {

namespace {

using namespace std::chrono;
using self_ptr = site_poller_self;

int64_t percentile(std::vector<int64_t> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  auto idx = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(idx, v.size() - 1)];
}

void record_jitter(self_ptr self, int64_t us) {
  auto& st = self->state;
  if (st.cfg.jitter_samples == 0) return;
  if (st.jitter_ring.size() < st.cfg.jitter_samples) {
    st.jitter_ring.push_back(us);
  } else {
    st.jitter_ring[st.jitter_next] = us;
    st.jitter_next = (st.jitter_next + 1) % st.cfg.jitter_samples;
  }
}

void report(self_ptr self, const mysql_outcome& out) {
  auto& st = self->state;
  auto step = debounce(st.debounced, classify_poll(out), st.cfg.failure_threshold,
                       st.cfg.recovery_threshold);
  st.debounced = step.next;
  site_report r;
  r.site = st.cfg.site;
  r.step = step;
  r.probe_ok = out.ok;
  if (out.ok) r.probe = out.probe;
  r.error_kind = out.error_kind;
  r.error = out.error;
  r.polled_at_ms = unix_ms(st.cfg.wall_clock);
  r.probe_sent = st.probe_sent;
  r.probe_done = self->clock().now();
  st.coordinator.with(self, [self, r](const coordinator_actor& c) {
    self->send(c, observe_atom::value, r);
  });
  auto text = poller_step_text(st.debounced);
  if (text != st.last_step) {
    st.last_step = text;
    report_step(self, st.cfg.path, text);
  }
  if (!out.ok) report_error(self, st.cfg.path, out.error_kind + ": " + out.error);
}

void on_wake(self_ptr self, bool waiting);

void start_probe(self_ptr self) {
  auto& st = self->state;
  st.in_flight = true;
  st.missed_tick = false;
  ++st.probes;
  mysql_command cmd;
  cmd.op = st.cfg.probe;
  cmd.target = st.cfg.target;
  cmd.timeout = st.cfg.command_timeout;
  cmd.leader_generation = st.cfg.leader_generation;
  auto sent = self->clock().now();
  auto request_timeout = poll_request_timeout(st.cfg.command_timeout);
  cmd.deadline = sent + request_timeout;  // not run at all once this request has timed out
  st.probe_sent = sent;
  auto done = [=](const mysql_outcome& out) {
    auto& s = self->state;
    s.in_flight = false;
    auto took = duration<double>(self->clock().now() - sent).count();
    opmetrics::poll_latency({s.cfg.namespace_name, s.cfg.group}, s.cfg.site).Observe(took);
    report(self, out);
    if (s.missed_tick) {
      start_probe(self);  // the slow probe delayed this one; do not skip it
      return;
    }
    if (s.wake_waits_for_probe) {  // a wake came while it ran: it may predate the change
      s.wake_waits_for_probe = false;
      on_wake(self, true);
    }
  };
  self->request(st.io, request_timeout, std::move(cmd))
      .then([=](mysql_outcome& out) { done(out); },
            [=](caf::error& err) {
              mysql_outcome out;
              out.error_kind = "timeout";
              out.error = "probe request: " + self->system().render(err);
              done(out);
            });
}

void on_tick(self_ptr self) {
  auto& st = self->state;
  auto now = self->clock().now();
  ++st.ticks;
  record_jitter(self, duration_cast<microseconds>(now - st.next_due).count());
  // The next tick is scheduled from this tick's due time, not from "now", so the cadence does not
  // drift by the handling delay; if we fell a whole interval behind, restart from now.
  st.next_due = config::sat_add(st.next_due, st.cfg.interval);
  if (st.next_due <= now) st.next_due = config::sat_add(now, st.cfg.interval);
  self->delayed_send(self, st.next_due - now, tick_atom::value);
  if (st.in_flight) {
    ++st.overlaps;
    st.missed_tick = true;
    auto running = now - st.probe_sent;
    if (running >= probe_overdue_after(st.cfg.interval)) {
      mysql_outcome out;
      out.error_kind = "timeout";
      out.error = "probe still unanswered after " +
                  std::to_string(duration_cast<milliseconds>(running).count()) + " ms";
      report(self, out);
    }
    return;
  }
  start_probe(self);
}

/// A wake (`waiting`: the coalesced one, now due again) through the gate.
void on_wake(self_ptr self, bool waiting) {
  auto& st = self->state;
  if (waiting) st.wake.pending = false;
  auto now = self->clock().now();
  auto d = decide_wake(st.wake, st.in_flight, now, st.cfg.wake_min_gap);
  st.wake = after_wake(st.wake, d, now);
  switch (d.action) {
    case wake_action::probe_now:
      ++st.wake_probes;
      start_probe(self);
      break;
    case wake_action::later:
      self->delayed_send(self, d.delay, deadline_atom::value);
      break;
    case wake_action::after_probe:  // the probe's completion asks again
      st.wake_waits_for_probe = true;
      break;
    case wake_action::coalesced:
      break;
  }
}

}  // namespace

caf::timespan poll_request_timeout(caf::timespan command_timeout) {
  auto slack = std::max<caf::timespan>(milliseconds(500), command_timeout / 10);
  return command_timeout + slack;
}

caf::timespan probe_overdue_after(caf::timespan interval) {
  // 90%: the next tick comes one interval after the probe's tick, give or take the scheduling
  // jitter, so a probe started by the previous tick is overdue at this one.
  return std::max<caf::timespan>(interval, seconds(1)) * 9 / 10;
}

poll_result classify_poll(const mysql_outcome& out) {
  if (!out.ok) return poll_result::failed;
  return out.probe.writable() ? poll_result::writable : poll_result::read_only;
}

std::string poller_step_text(const debounce_state& d) {
  std::string text(to_string(d.state));
  if (d.consecutive_failures > 0)
    text += " (" + std::to_string(d.consecutive_failures) +
            (d.consecutive_failures == 1 ? " failure)" : " failures)");
  return text;
}

site_poller_actor::behavior_type site_poller(site_poller_self self, site_poller_config cfg,
                                             site_io_actor io, caf::actor supervisor) {
  auto& st = self->state;
  st.cfg = std::move(cfg);
  st.io = std::move(io);
  st.coordinator = child_ref<coordinator_actor>(std::move(supervisor), "coordinator");
  self->set_down_handler([=](caf::down_msg& dm) { self->state.coordinator.on_down(dm); });
  if (st.cfg.interval <= caf::timespan{0}) st.cfg.interval = seconds(2);
  announce(self, st.cfg.path, "site_poller");
  st.last_step = "polling";
  report_step(self, st.cfg.path, st.last_step);
  st.next_due = self->clock().now();
  self->send(self, tick_atom::value);
  return {
      [=](tick_atom) { on_tick(self); },
      [=](wake_atom) { on_wake(self, false); },
      [=](deadline_atom) { on_wake(self, true); },
      [=](poll_stats_atom) {
        auto& s = self->state;
        poll_stats out;
        out.ticks = s.ticks;
        out.probes = s.probes;
        out.overlaps = s.overlaps;
        out.jitter_us = s.jitter_ring;
        out.p50_us = percentile(s.jitter_ring, 0.50);
        out.p99_us = percentile(s.jitter_ring, 0.99);
        out.max_us = s.jitter_ring.empty()
                         ? 0
                         : *std::max_element(s.jitter_ring.begin(), s.jitter_ring.end());
        return out;
      },
  };
}

}  // namespace br
