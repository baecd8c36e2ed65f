// group_supervisor: builds the coordinator and site pollers of one group from its spec.
#include "actors/operator/group/group_supervisor.hpp"

#include <caf/all.hpp>

#include "actors/operator/group/failover_executor.hpp"
#include "config/sidecar_config.hpp"

namespace br {

namespace {

/// spec.tls: the target's sessions verified; no CA file known yet fails the connect (never plain
/// text).
void apply_tls(mysql_target& t, const group_credentials& creds,
               const std::optional<config::tls_spec>& tls) {
  if (!tls) return;
  t.tls_verify = true;
  t.tls_ca_file = creds.mysql_tls_ca_file.empty() ? tls->ca_file : creds.mysql_tls_ca_file;
  t.tls_cert_file = tls->cert_file;
  t.tls_key_file = tls->key_file;
}

mysql_target target_of(const std::string& site, const std::optional<config::address_spec>& address,
                       const group_credentials& creds, const std::optional<config::tls_spec>& tls) {
  mysql_target t;
  apply_tls(t, creds, tls);
  t.site = site;
  t.host = address ? address->host : site;
  t.port = static_cast<uint16_t>(address ? address->port : 3306);
  t.user = creds.operator_user;
  t.password = creds.operator_password;
  return t;
}

/// The declared sites' targets plus the leaving Group Replication members' (rt.gr_leaving).
std::map<std::string, mysql_target> all_targets(const config::group_spec& spec,
                                                const group_credentials& creds,
                                                const group_runtime& rt) {
  auto out = site_targets(spec, creds);
  if (spec.replication.mode == config::replication_mode::group_replication)
    for (const auto& [site, address] : rt.gr_leaving)
      if (!out.count(site)) out[site] = target_of(site, address, creds, spec.tls);
  return out;
}

}  // namespace

std::map<std::string, mysql_target> site_targets(const config::group_spec& spec,
                                                 const group_credentials& creds) {
  std::map<std::string, mysql_target> out;
  for (const auto& s : spec.sites) out[s.name] = target_of(s.name, s.address, creds, spec.tls);
  return out;
}

gr_rules gr_rules_of(const config::group_spec& spec) {
  gr_rules g;
  g.enabled = true;
  g.designated = config::effective_seed_site(spec);
  const auto gr = spec.replication.group_replication.value_or(config::group_replication_spec{});
  g.spec_group_name = gr.group_name;
  g.generated_name = config::random_uuid();
  for (const auto& s : spec.sites)
    // Kubernetes: the resolver fills it in (render::gr_member_address); else the site on the
    // MySQL port (the MySQL communication stack).
    g.local_address[s.name] = s.group_replication && !s.group_replication->local_address.empty()
                                  ? s.group_replication->local_address
                                  : s.name + ":3306";
  g.consistency = std::string{config::to_string(gr.consistency)};
  g.exit_state_action = std::string{config::to_string(gr.exit_state_action)};
  g.auto_rejoin_tries = gr.auto_rejoin_tries;
  g.recovery_ssl = spec.replication.tls;  // recovery channel and group communication
  // spec.tls: both verified against the group's CA (Kubernetes: the Secret's mount point).
  if (spec.tls) g.ssl_ca = config::effective_mysql_ca_file(*spec.tls);
  g.max_switchover_delay = gr.max_switchover_delay;
  return g;
}

coordinator_config make_coordinator_config(const std::string& group, const config::group_spec& spec,
                                           const group_credentials& creds,
                                           const group_runtime& rt, const std::string& path) {
  coordinator_config c;
  c.topo = rt.topo ? rt.topo : &async_replication_topology();
  auto& r = c.rules;
  if (spec.replication.mode == config::replication_mode::group_replication) {
    c.topo = &group_replication_topology();
    r.gr = gr_rules_of(spec);
    for (const auto& [site, address] : rt.gr_leaving)
      if (!config::find_site(spec, site)) r.gr.leaving.push_back(site);
  }
  r.group = group;
  c.namespace_name = rt.namespace_name;
  c.path = path + "/coordinator";
  for (const auto& s : spec.sites) {
    r.sites.push_back(s.name);
    r.roles[s.name] = s.role;
  }
  r.site_priorities = spec.split_brain_policy.site_priorities;
  if (r.site_priorities.empty() && !spec.split_brain_policy.prefer_site.empty())
    r.site_priorities.push_back(spec.split_brain_policy.prefer_site);
  r.seed_site = config::effective_seed_site(spec);
  r.restore_hold = rt.restore_hold;
  r.poll_interval = spec.poll_interval;
  r.failover_cooldown = spec.failover_cooldown;
  if (spec.replication.semi_sync.enabled)
    r.semisync_k = spec.replication.semi_sync.wait_for_replica_count;
  c.status_coalesce = rt.status_coalesce;
  r.policy = spec.promotion_policy == config::promotion_policy::fast ? gate_policy::fast
                                                                     : gate_policy::safe;
  r.drain_timeout = spec.relay_drain_timeout;
  r.gate_timeout = spec.promotion_gate_timeout;
  r.max_lag_wait = spec.planned_failover.max_lag_wait;
  r.session_drain_timeout = spec.planned_failover.drain_timeout;
  r.defer_on_cooldown = spec.planned_failover.on_cooldown == config::cooldown_action::defer;
  r.dragonfly.enabled = spec.dragonfly.enabled;
  r.dragonfly.max_sync_wait = spec.dragonfly.planned_failover.max_sync_wait;
  r.dragonfly.fail_on_sync_timeout =
      spec.dragonfly.planned_failover.on_sync_timeout == config::sync_timeout_action::fail;
  c.command_timeout = rt.command_timeout;
  c.make_executor = rt.make_executor ? rt.make_executor : executor_factory(spawn_failover_executor);
  c.wall_clock = rt.wall_clock;
  auto& d = c.deps;
  d.site_io = rt.site_io;
  d.platform = rt.platform;
  d.group = group;
  d.namespace_name = rt.namespace_name;
  d.targets = all_targets(spec, creds, rt);
  d.replication.user = creds.replication_user.empty() ? creds.operator_user : creds.replication_user;
  d.replication.password =
      creds.replication_user.empty() ? creds.operator_password : creds.replication_password;
  if (!spec.replication.user.empty()) {
    d.replication.user = spec.replication.user;
    d.replication.password = spec.replication.password;
  }
  apply_tls(d.replication, creds, spec.tls);  // the operator also connects as it (account checks)
  d.replication_ssl = spec.replication.tls;
  if (spec.tls) d.replication_ssl_ca = config::effective_mysql_ca_file(*spec.tls);
  for (const auto& s : spec.sites) {
    d.lb_ips[s.name] = s.lb_ip;
    d.sites.push_back(s.name);
    d.roles[s.name] = s.role;
  }
  d.command_timeout = rt.command_timeout;
  d.leader_generation = rt.leader_generation;
  d.request_timeout = rt.command_timeout + std::chrono::seconds(1);
  d.clone_timeout = std::chrono::seconds(spec.clone_timeout);
  d.registry_path = c.path;
  for (const auto& s : spec.sites)
    if (!s.sidecar_address.empty()) d.sidecars[s.name] = s.sidecar_address;
  d.keys = creds.keys ? creds.keys : rt.keys;
  d.authority_group = auth::group_key(rt.namespace_name, group);
  d.http_worker = rt.http_worker;
  // Rule 3 must wait for the lease the sidecars actually run: they clamp it up, so do we.
  std::chrono::nanoseconds interval = spec.sidecar.peer_check_interval;
  std::chrono::nanoseconds lease = spec.sidecar.lease_timeout;
  config::clamp_intervals(interval, lease);
  d.lease_timeout = lease;
  d.peer_check_interval = interval;
  d.sidecar_fence_timeout = spec.sidecar.fence_timeout;
  // The same value the sidecars run with (rendered as REQUEST_TIMEOUT): rule 3 counts it.
  d.sidecar_request_timeout = spec.sidecar.request_timeout;
  return c;
}

dragonfly::manager_config dragonfly_config(const std::string& group, const config::group_spec& spec,
                                           const group_credentials& creds, const group_runtime& rt) {
  dragonfly::manager_config c;
  c.namespace_name = rt.namespace_name;
  c.group = group;
  for (const auto& s : spec.sites) {
    dragonfly::cache_endpoint e;
    e.site = s.name;
    // Standalone: validated from the group file; Kubernetes: the site's Dragonfly Service, filled
    // in by the group source (runtime_spec).
    if (auto hp = config::parse_host_port(s.dragonfly_address)) {
      e.host = hp->host;
      e.port = static_cast<uint16_t>(hp->port);
    } else {
      e.host = s.name;
      e.port = static_cast<uint16_t>(spec.dragonfly.port);
    }
    c.sites.push_back(std::move(e));
  }
  c.password = creds.dragonfly_password;
  c.interval = spec.poll_interval;
  c.takeover_timeout = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::nanoseconds(spec.dragonfly.planned_failover.max_sync_wait));
  c.events = rt.platform.events;
  c.pods = rt.dragonfly_pods;
  c.status = rt.dragonfly_status;
  return c;
}

std::vector<child_spec> group_children(const std::string& group, const config::group_spec& spec,
                                       const group_credentials& creds, const group_runtime& rt,
                                       const std::string& path) {
  std::vector<child_spec> out;
  auto ccfg = make_coordinator_config(group, spec, creds, rt, path);
  out.push_back({"coordinator", "coordinator",
                 [ccfg](caf::local_actor* sup, const std::string& p) -> caf::actor {
                   auto cfg = ccfg;
                   cfg.path = p;
                   cfg.deps.registry_path = p;
                   cfg.supervisor = supervisor_handle(sup);  // to find the Dragonfly manager
                   return as_child(sup->spawn(coordinator, cfg));
                 }});
  auto targets = all_targets(spec, creds, rt);
  // One poller per declared site, and per leaving Group Replication member (its scale-down).
  std::vector<std::string> polled;
  for (const auto& s : spec.sites) polled.push_back(s.name);
  for (const auto& site : ccfg.rules.gr.leaving) polled.push_back(site);
  for (const auto& site : polled) {
    site_poller_config pc;
    pc.probe = ccfg.topo->probe;
    pc.wall_clock = rt.wall_clock;
    pc.group = group;
    pc.namespace_name = rt.namespace_name;
    pc.site = site;
    pc.target = targets[site];
    pc.interval = spec.poll_interval;
    pc.command_timeout = rt.command_timeout;
    pc.leader_generation = rt.leader_generation;
    pc.failure_threshold = static_cast<uint32_t>(std::max(1, spec.failure_threshold));
    pc.recovery_threshold = static_cast<uint32_t>(std::max(1, spec.recovery_threshold));
    auto io = rt.site_io;
    out.push_back({"poller:" + site, "site_poller",
                   [pc, io](caf::local_actor* sup, const std::string& p) -> caf::actor {
                     auto cfg = pc;
                     cfg.path = p;
                     // The poller finds the coordinator by asking this supervisor.
                     return as_child(sup->spawn(site_poller, cfg, io, supervisor_handle(sup)));
                   }});
  }
  if (spec.dragonfly.enabled) out.push_back(dragonfly::manager_child(dragonfly_config(group, spec, creds, rt)));
  if (rt.extra_children)
    for (auto& c : rt.extra_children()) out.push_back(std::move(c));
  return out;
}

caf::actor spawn_group_supervisor(caf::actor_system& sys, const std::string& path,
                                  const std::string& group, const config::group_spec& spec,
                                  const group_credentials& creds, const group_runtime& rt,
                                  restart_policy policy) {
  return spawn_supervisor(sys, path, policy, group_children(group, spec, creds, rt, path));
}

child_spec group_supervisor_child(const std::string& group, const config::group_spec& spec,
                                  const group_credentials& creds, const group_runtime& rt,
                                  restart_policy policy) {
  // The nested supervisor's own path is only known at start; build the children then.
  child_spec c;
  c.name = "group:" + group;
  c.kind = "group_supervisor";
  c.start = [=](caf::local_actor* sup, const std::string& p) -> caf::actor {
    auto inner = supervisor_child(c.name, policy, group_children(group, spec, creds, rt, p));
    return inner.start(sup, p);
  };
  return c;
}

}  // namespace br
