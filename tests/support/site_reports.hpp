// Test helper: a site poller's debounced report as the coordinator's rules read it.
#pragma once

#include <string>

#include "messages/operator.hpp"

namespace br::reports {

/// A debounced report: `state` with a probe (ok unless unreachable or unknown); `channel`: a
/// replica channel with both threads ON.
inline site_report rep(const std::string& site, site_state state,
                       const std::string& gtid_executed = "", bool channel = false) {
  site_report r;
  r.site = site;
  r.step.next.state = state;
  r.probe_ok = state != site_state::unreachable && state != site_state::unknown;
  r.probe.read_only = state != site_state::writable;
  r.probe.super_read_only = state != site_state::writable;
  r.probe.gtid_executed = gtid_executed;
  r.probe.channel_configured = channel;
  if (channel) r.probe.io_state = r.probe.sql_state = "ON";
  r.polled_at_ms = 1;
  return r;
}

}  // namespace br::reports
