// Standalone router: haproxy.cfg with `primary` and `replicas` TCP frontends steered by sidecar checks.
#pragma once

#include <chrono>
#include <string>

#include "config/failover_group.hpp"
#include "config/field_error.hpp"

namespace br::render {

/// Where the router listens and how fast it follows the sidecars. Ports must be 1..65535
/// (stats_port 0 = no stats listener).
struct haproxy_options {
  std::string bind_host = "127.0.0.1";
  int primary_port = 0;
  int replicas_port = 0;
  int readers_port = 0;  ///< Group Replication only (required there): every ONLINE member
  int stats_port = 0;  ///< HTTP stats page (CSV at /;csv), bound on bind_host
  int cache_port = 0;  ///< spec.dragonfly.enabled only (required there): the active cache endpoint
  /// Short check cadence with fall 1 / rise 1: the sidecar already debounces (it answers 200 on
  /// /primary only when MySQL is writable), so the router must follow it within one interval.
  std::chrono::milliseconds check_interval{500};
  std::chrono::milliseconds check_timeout{1000};
  int fall = 1;
  int rise = 1;
  std::chrono::milliseconds connect_timeout{2000};
  std::chrono::milliseconds session_timeout{std::chrono::hours{1}};  ///< client/server idle
  std::string log_target = "stdout format iso local0";  ///< empty: no logging
  /// The sidecars serve their API over TLS (issue 26): the checks use check-ssl, verify the
  /// sidecar against check_ca_file (its CA only: HAProxy matches no IP subjectAltName, so no host
  /// name) and present check_crt as the client certificate (one PEM file: the certificate, then
  /// its key; "" = none, for sidecars with --tls-client-auth request). "" = plain HTTP checks.
  std::string check_ca_file;
  std::string check_crt;
};

struct haproxy_result {
  std::string text;             ///< the whole haproxy.cfg; empty when errors is not
  config::field_errors errors;  ///< e.g. a site without address or sidecarAddress
  bool ok() const { return errors.empty(); }
};

/// The router of one standalone group. Frontend `primary` forwards to every site that can ever be
/// writable (role other than read-only), checked with GET /primary on the site's sidecar; clients
/// of a server marked down are cut (on-marked-down shutdown-sessions) so a fenced primary keeps no
/// writers, and `balance first` sends everything to one server even if two ever answered 200.
/// Frontend `replicas` forwards to every site, checked with GET /replica, round robin.
/// Every site needs `address` and `sidecarAddress` (host:port); options are validated too.
/// Group Replication groups (spec.replication.mode): the checks are the sidecar's GET
/// /gr/primary, /gr/replica (ONLINE SECONDARY) and a third frontend `readers` (/gr/reader, every
/// ONLINE member) on readers_port; each answers from the member's own quorate view.
/// spec.dragonfly.enabled: a frontend `cache` on cache_port to the site whose cache server is the
/// master the Dragonfly manager chose: the TCP check logs in as messages/dragonfly.hpp's
/// traffic_check_user (on only there) and expects ROLE to answer master; every site needs
/// `dragonflyAddress`.
haproxy_result render_haproxy_cfg(const config::failover_group& g, const haproxy_options& o);

}  // namespace br::render
