// Standalone router: haproxy.cfg with `primary` and `replicas` TCP frontends steered by sidecar checks.
#include "config/render/haproxy_cfg.hpp"

#include <sstream>

#include "messages/dragonfly.hpp"

namespace br::render {

namespace {

std::string ms(std::chrono::milliseconds d) { return std::to_string(d.count()) + "ms"; }

/// host:port for a server line; IPv6 literals need brackets there.
std::string endpoint(const std::string& host, std::int32_t port) {
  bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

struct checked_site {
  std::string name;
  br::site_role role;
  config::address_spec mysql;
  config::address_spec sidecar;
  config::address_spec cache;  ///< spec.dragonfly.enabled only
};

void check_port(config::field_errors& errs, const char* what, int port, bool zero_ok) {
  if ((port == 0 && zero_ok) || (port >= 1 && port <= 65535)) return;
  errs.push_back({std::string{"router."} + what, "must be between 1 and 65535, got " +
                                                    std::to_string(port)});
}

/// " check-ssl verify required ca-file F [crt C]" for TLS sidecars, else "".
std::string check_tls(const haproxy_options& o) {
  if (o.check_ca_file.empty()) return {};
  std::string out = " check-ssl verify required ca-file " + o.check_ca_file;
  if (!o.check_crt.empty()) out += " crt " + o.check_crt;
  return out;
}

void backend(std::ostringstream& out, const char* name, const char* check_path,
             const char* balance, const std::vector<checked_site>& sites, bool writers_only,
             const std::string& tls) {
  out << "\nbackend " << name << "\n"
      << "  balance " << balance << "\n"
      << "  option httpchk\n"
      << "  http-check send meth GET uri " << check_path << "\n"
      << "  http-check expect status 200\n";
  for (const auto& s : sites) {
    if (writers_only && s.role == br::site_role::read_only) continue;
    out << "  server " << s.name << " " << endpoint(s.mysql.host, s.mysql.port) << " check addr "
        << s.sidecar.host << " port " << s.sidecar.port << tls << "\n";
  }
}

// The active cache endpoint: one server at a time (`first`), the one whose check user is on and
// that answers ROLE with master (a RESP array whose first element is the 6-byte "master").
void cache_backend(std::ostringstream& out, const std::vector<checked_site>& sites) {
  out << "\nbackend cache\n"
      << "  balance first\n"
      << "  option tcp-check\n"
      << "  tcp-check connect\n"
      << "  tcp-check send \"AUTH " << br::dragonfly::traffic_check_user << " check\\r\\n\"\n"
      << "  tcp-check expect string +OK\n"
      << "  tcp-check send \"ROLE\\r\\n\"\n"
      << "  tcp-check expect rstring '^\\*[0-9]+\\r\\n\\$6\\r\\nmaster'\n"
      << "  tcp-check send \"QUIT\\r\\n\"\n";
  for (const auto& s : sites) out << "  server " << s.name << " " << endpoint(s.cache.host, s.cache.port) << " check\n";
}

}  // namespace

haproxy_result render_haproxy_cfg(const config::failover_group& g, const haproxy_options& o) {
  haproxy_result r;
  check_port(r.errors, "primaryPort", o.primary_port, false);
  check_port(r.errors, "replicasPort", o.replicas_port, false);
  check_port(r.errors, "statsPort", o.stats_port, true);
  const bool gr = g.spec.replication.mode == config::replication_mode::group_replication;
  if (gr) check_port(r.errors, "readersPort", o.readers_port, false);
  const bool cache = g.spec.dragonfly.enabled;
  if (cache) check_port(r.errors, "cachePort", o.cache_port, false);
  if (o.bind_host.empty()) r.errors.push_back({"router.bindHost", "must not be empty"});
  if (o.check_interval.count() <= 0 || o.check_timeout.count() <= 0 ||
      o.connect_timeout.count() <= 0 || o.session_timeout.count() <= 0)
    r.errors.push_back({"router", "intervals and timeouts must be positive"});
  if (o.fall < 1 || o.rise < 1) r.errors.push_back({"router", "fall and rise must be at least 1"});
  if (o.check_ca_file.empty() && !o.check_crt.empty())
    r.errors.push_back({"router.checkCrt", "needs the CA file the sidecars are verified against"});

  std::vector<checked_site> sites;
  for (std::size_t i = 0; i < g.spec.sites.size(); ++i) {
    const auto& s = g.spec.sites[i];
    auto path = "spec.sites[" + std::to_string(i) + "]";
    checked_site c{s.name, s.role, {}, {}, {}};
    bool ok = true;
    if (!s.address || s.address->host.empty()) {
      r.errors.push_back({path + ".address", "required for the standalone router"});
      ok = false;
    } else {
      c.mysql = *s.address;
    }
    auto side = config::parse_host_port(s.sidecar_address);
    if (!side || side->host.empty()) {
      r.errors.push_back({path + ".sidecarAddress",
                          s.sidecar_address.empty() ? "required for the standalone router"
                                                    : "must be host:port, got \"" +
                                                          s.sidecar_address + "\""});
      ok = false;
    } else {
      c.sidecar = *side;
    }
    if (cache) {
      auto df = config::parse_host_port(s.dragonfly_address);
      if (!df || df->host.empty()) {
        r.errors.push_back({path + ".dragonflyAddress", s.dragonfly_address.empty()
                                                            ? "required for the standalone router's cache frontend"
                                                            : "must be host:port, got \"" + s.dragonfly_address + "\""});
        ok = false;
      } else {
        c.cache = *df;
      }
    }
    if (ok) sites.push_back(std::move(c));
  }
  if (!r.errors.empty()) return r;

  std::ostringstream out;
  out << "# haproxy.cfg of failover group "
      << (g.metadata.namespace_name.empty() ? "default" : g.metadata.namespace_name) << "/"
      << g.metadata.name << ", rendered by bloodraven (config/render/haproxy_cfg); do not edit.\n"
      << "global\n";
  if (!o.log_target.empty()) out << "  log " << o.log_target << "\n";
  out << "  maxconn 2000\n"
      << "\ndefaults\n"
      << "  mode tcp\n";
  // Log server state changes and abnormal sessions only, not one line per client connection.
  if (!o.log_target.empty()) out << "  log global\n  option tcplog\n  option dontlog-normal\n";
  out << "  timeout connect " << ms(o.connect_timeout) << "\n"
      << "  timeout client " << ms(o.session_timeout) << "\n"
      << "  timeout server " << ms(o.session_timeout) << "\n"
      << "  timeout check " << ms(o.check_timeout) << "\n"
      // Same cadence in every state: a down server must come back as fast as it went.
      << "  default-server inter " << ms(o.check_interval) << " fastinter "
      << ms(o.check_interval) << " downinter " << ms(o.check_interval) << " fall " << o.fall
      << " rise " << o.rise << " on-marked-down shutdown-sessions\n";

  out << "\nfrontend primary\n"
      << "  bind " << endpoint(o.bind_host, o.primary_port) << "\n"
      << "  default_backend primary\n";
  // `first`: one writer at a time even if two servers were ever up together.
  backend(out, "primary", gr ? "/gr/primary" : "/primary", "first", sites, true, check_tls(o));

  out << "\nfrontend replicas\n"
      << "  bind " << endpoint(o.bind_host, o.replicas_port) << "\n"
      << "  default_backend replicas\n";
  backend(out, "replicas", gr ? "/gr/replica" : "/replica", "roundrobin", sites, false, check_tls(o));

  if (gr) {
    out << "\nfrontend readers\n"
        << "  bind " << endpoint(o.bind_host, o.readers_port) << "\n"
        << "  default_backend readers\n";
    backend(out, "readers", "/gr/reader", "roundrobin", sites, false, check_tls(o));
  }

  if (cache) {
    out << "\nfrontend cache\n"
        << "  bind " << endpoint(o.bind_host, o.cache_port) << "\n"
        << "  default_backend cache\n";
    cache_backend(out, sites);
  }

  if (o.stats_port != 0)
    out << "\nfrontend stats\n"
        << "  mode http\n"
        << "  bind " << endpoint(o.bind_host, o.stats_port) << "\n"
        << "  stats enable\n"
        << "  stats uri /\n"
        << "  stats refresh 2s\n";
  r.text = out.str();
  return r;
}

}  // namespace br::render
