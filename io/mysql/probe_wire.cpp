// probe_result -> site_probe conversion (one place, so operator and sidecar report the same fields).
#include "io/mysql/probe_wire.hpp"

namespace br::mysql {

site_probe to_wire(const probe_result& p) {
  site_probe w;
  w.read_only = p.read_only;
  w.super_read_only = p.super_read_only;
  w.gtid_executed = p.gtid_executed.to_string();
  w.server_uuid = p.server_uuid;
  w.server_id = p.server_id;
  w.version = p.version;
  w.channel_configured = p.channel.configured;
  auto state = [](thread_state s) -> std::string {
    switch (s) {
      case thread_state::on: return "ON";
      case thread_state::connecting: return "CONNECTING";
      default: return "OFF";
    }
  };
  w.io_state = state(p.channel.io);
  w.sql_state = state(p.channel.sql);
  w.source_host = p.channel.source_host;
  w.source_port = p.channel.source_port;
  w.seconds_behind = p.channel.seconds_behind_source ? *p.channel.seconds_behind_source : -1;
  w.received_gtid = p.channel.received.to_string();
  w.last_io_errno = p.channel.last_io_errno;
  w.last_io_error = p.channel.last_io_error;
  w.last_sql_errno = p.channel.last_sql_errno;
  w.last_sql_error = p.channel.last_sql_error;
  w.latency_us = p.latency.count();
  w.uptime_s = p.uptime_s;
  w.started_at = p.started_at;
  const auto& ss = p.semisync;
  w.semisync = {ss.source_loaded, ss.source_enabled, ss.source_on,     ss.wait_point,
                ss.wait_count,    ss.timeout_ms,     ss.wait_no_replica, ss.clients,
                ss.replica_loaded, ss.replica_enabled, ss.replica_on, ss.no_tx,
                ss.wait_sessions};
  w.source_uuid = p.channel.source_uuid;
  return w;
}

}  // namespace br::mysql
