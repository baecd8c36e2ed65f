// Sidecar wiring: child specs that (re)spawn each actor and publish its handle; routes.
// Children are spawned typed and handed to the supervisor as caf::actor (typed to untyped casts:
// the supervisor traps exits of children of every kind).
#include "actors/sidecar/runtime/sidecar_app.hpp"

#include <caf/all.hpp>

#include <stdexcept>

#include "actors/sidecar/archive/archive_settings.hpp"
#include "actors/sidecar/archive/binlog_archiver.hpp"
#include "actors/sidecar/fencing/boot_guard.hpp"
#include "actors/sidecar/fencing/fencing_monitor.hpp"
#include "actors/common/http_worker.hpp"
#include "actors/sidecar/fencing/mysql_worker.hpp"
#include "actors/sidecar/runtime/gr_watcher.hpp"
#include "actors/sidecar/runtime/tls_watcher.hpp"
#include "actors/sidecar/runtime/sidecar_api.hpp"
#include "actors/sidecar/fencing/view_cache.hpp"
#include "actors/common/key_dir.hpp"
#include "config/saturating.hpp"
#include "io/kube/config.hpp"
#include "io/log/log.hpp"

namespace br::sidecar {

namespace {

using ms = std::chrono::milliseconds;

ms to_ms(std::chrono::nanoseconds d) { return std::chrono::duration_cast<ms>(d); }

monitor_options monitor_opts(const config::sidecar_config& c,
                             std::shared_ptr<const auth::key_ring> keys) {
  monitor_options o;
  o.keys = std::move(keys);
  o.site = c.site;
  o.pod_namespace = c.pod_namespace;
  o.group = c.group;
  o.operator_address = c.operator_address;
  o.peers = c.peers;
  o.interval = c.peer_check_interval;
  o.lease_timeout = c.lease_timeout;
  o.request_timeout = c.request_timeout;
  o.fence_timeout = c.fence_timeout;
  o.dead_mans_switch = c.dead_mans_switch;
  return o;
}

child_spec spec(std::string name, std::string kind,
                std::function<caf::actor(caf::local_actor*)> start) {
  child_spec s;
  s.name = std::move(name);
  s.kind = std::move(kind);
  s.start = [start = std::move(start)](caf::local_actor* sup, const std::string&) {
    return start(sup);
  };
  return s;
}

}  // namespace

std::shared_ptr<const auth::key_ring> load_keys(const config::sidecar_config& cfg,
                                                std::string& error) {
  error.clear();
  if (cfg.keys_dir.empty()) return nullptr;
  auto l = auth::load_sidecar_keys(cfg.keys_dir, cfg.site);
  if (!l.ring) {
    error = "KEYS_DIR (--keys-dir): " + l.error;
    return nullptr;
  }
  return std::make_shared<const auth::key_ring>(std::move(*l.ring));
}

std::vector<child_spec> sidecar_children(const config::sidecar_config& cfg,
                                         std::shared_ptr<const auth::key_ring> keys,
                                         std::shared_ptr<sidecar_handles> h) {
  std::vector<child_spec> out;
  auto dir = cfg.state_dir;
  out.push_back(spec("view_cache", "view_cache", [h, dir](caf::local_actor* sup) {
    auto a = spawn_view_cache(sup->system(), dir);
    h->set_cache(a);
    return as_child(a);
  }));
  mysql_worker_options mo;
  mo.host = cfg.mysql_host;
  mo.port = cfg.mysql_port;
  mo.user = cfg.mysql_user;
  mo.password = cfg.mysql_password;
  mo.tls_ca_file = cfg.mysql_tls_ca;
  mo.probe_timeout = std::min(to_ms(cfg.request_timeout), ms(2000));
  mo.fence_timeout = to_ms(cfg.fence_timeout);
  mo.dead_mans_switch = cfg.dead_mans_switch;
  mo.lease = to_ms(cfg.lease_timeout);
  mo.group_replication = cfg.group_replication;
  out.push_back(spec("mysql_worker", "mysql_worker", [h, mo](caf::local_actor* sup) {
    auto a = spawn_mysql_worker(sup->system(), mo);
    h->set_mysql(a);
    return as_child(a);
  }));
  if (!cfg.mysql_tls_watch.empty()) {
    tls_watcher_options to;
    to.files = cfg.mysql_tls_watch;
    to.mysql = connect_opts(mo, mo.probe_timeout);
    to.interval = to_ms(cfg.mysql_tls_watch_interval);
    if (!dir.empty()) to.trust_file = dir + "/tls-reload-ca.pem";
    out.push_back(spec("tls_watcher", "tls_watcher", [to](caf::local_actor* sup) {
      return as_child(spawn_tls_watcher(sup->system(), to));
    }));
  }
  if (!cfg.operator_address.empty())
    out.push_back(spec("http:operator", "http_worker", [h, tls = cfg.api_tls](caf::local_actor* sup) {
      auto a = spawn_http_worker(sup->system(), tls);
      h->set_operator_http(a);
      return as_child(a);
    }));
  for (size_t i = 0; i < cfg.peers.size(); ++i)
    out.push_back(spec("http:peer:" + cfg.peers[i], "http_worker", [h, i, tls = cfg.api_tls](caf::local_actor* sup) {
      auto a = spawn_http_worker(sup->system(), tls);
      h->set_peer_http(i, a);
      return as_child(a);
    }));
  auto mopts = monitor_opts(cfg, keys);
  // Group Replication: the group fences itself (super_read_only on secondaries, exit state
  // action); the async fencing rules (views, leases, boot guard) must not touch its members.
  if (!cfg.group_replication) {
    out.push_back(spec("fencing_monitor", "fencing_monitor", [h, mopts](caf::local_actor* sup) {
      auto a = sup->spawn(fencing_monitor, mopts, h);
      h->set_monitor(a);
      return as_child(a);
    }));
    out.push_back(spec("boot_guard", "boot_guard", [h, mopts](caf::local_actor* sup) {
      return as_child(sup->spawn(boot_guard, mopts, h));
    }));
  }
  if (cfg.group_replication && (!cfg.operator_address.empty() || cfg.gr_pod_doorbell)) {
    // The doorbell: each change of the member's view is reported at once (issue 22).
    gr_watcher_options wo;
    wo.auth = authority_of(mopts);
    wo.site = cfg.site;
    wo.pod_namespace = cfg.pod_namespace;
    wo.group = cfg.group;
    wo.operator_address = cfg.operator_address;
    wo.interval = cfg.gr_watch_interval;
    wo.probe_timeout = mo.probe_timeout;
    wo.request_timeout = cfg.request_timeout;
    if (cfg.gr_pod_doorbell) {
      auto kc = kube::default_config();
      if (kc) {
        kube::client_options co;
        co.timeout = std::chrono::seconds(5);
        wo.pod.client = std::make_shared<kube::client>(*kc, co);
        wo.pod.pod_namespace = cfg.pod_namespace;
        wo.pod.pod_name = cfg.pod_name;
      } else {
        // The operator's report still rings; only the Pod annotation is missing.
        log::error("GR_POD_DOORBELL: no Kubernetes credentials; the Pod annotation is off",
                   {{"error", kc.error().describe()}});
      }
    }
    out.push_back(spec("gr_watcher", "gr_watcher", [h, wo](caf::local_actor* sup) {
      return as_child(sup->spawn(gr_watcher, wo, h));
    }));
  }
  if (cfg.pitr.enabled) {
    // main checked the settings before starting (archiver_settings); a failure here cannot happen.
    auto built = archiver_settings(cfg);
    if (!built.options) throw std::runtime_error(built.error);
    auto ao = *built.options;
    out.push_back(spec("binlog_archiver", "binlog_archiver", [h, ao](caf::local_actor* sup) {
      auto a = spawn_binlog_archiver(sup->system(), ao, h);
      h->set_archiver(a);
      return as_child(a);
    }));
  }
  return out;
}

void install_routes(http::router& r, caf::actor_system& sys, const config::sidecar_config& cfg,
                    std::shared_ptr<const auth::key_ring> keys,
                    std::shared_ptr<sidecar_handles> h) {
  api_options o;
  o.site = cfg.site;
  o.auth = authority_of(monitor_opts(cfg, std::move(keys)));
  o.push_timeout = to_ms(config::sat_add(cfg.fence_timeout, cfg.request_timeout)) + ms(5000);
  o.archiver_enabled = cfg.pitr.enabled;
  o.group_replication = cfg.group_replication;
  o.gr_members = cfg.gr_members;
  o.gr_group_name = cfg.gr_group_name;
  o.client_certificates = cfg.api_tls.on();
  o.pod_namespace = cfg.pod_namespace;
  o.group = cfg.group;
  install_sidecar_routes(r, sys, o, std::move(h));
}

std::chrono::milliseconds handler_timeout_for(const config::sidecar_config& cfg) {
  return to_ms(config::sat_add(cfg.fence_timeout, cfg.request_timeout)) + ms(6000);
}

}  // namespace br::sidecar
