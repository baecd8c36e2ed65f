// MysqlFailoverGroup spec: enum names, helpers and strict JSON reading.
#include "config/group_spec.hpp"

#include <charconv>

#include "config/json_reader.hpp"

namespace br::config {

std::string_view to_string(promotion_policy p) {
  return p == promotion_policy::fast ? "Fast" : "Safe";
}

std::string_view to_string(update_strategy u) {
  return u == update_strategy::recreate ? "Recreate" : "OrderedUpdate";
}

std::string_view to_string(cooldown_action a) {
  return a == cooldown_action::defer ? "defer" : "reject";
}

std::string_view to_string(sync_timeout_action a) {
  return a == sync_timeout_action::fail ? "fail" : "proceed";
}

const site_spec* find_site(const group_spec& spec, std::string_view name) {
  for (const auto& s : spec.sites)
    if (s.name == name) return &s;
  return nullptr;
}

std::string effective_seed_site(const group_spec& spec) {
  if (!spec.bootstrap.seed_site.empty()) return spec.bootstrap.seed_site;
  const auto& sb = spec.split_brain_policy;
  if (!sb.prefer_site.empty()) return sb.prefer_site;
  if (!sb.site_priorities.empty()) return sb.site_priorities.front();
  for (const auto& s : spec.sites)
    if (s.role == site_role::primary_candidate) return s.name;
  return {};
}

std::string effective_bloodraven_address(const group_spec& spec, std::string_view namespace_name) {
  if (!spec.sidecar.bloodraven_address.empty()) return spec.sidecar.bloodraven_address;
  std::string ns = namespace_name.empty() ? "default" : std::string{namespace_name};
  return "bloodraven." + ns + ".svc.cluster.local:8082";
}

std::optional<address_spec> parse_host_port(std::string_view text) {
  std::string_view host, port;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':')
      return std::nullopt;
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) return std::nullopt;  // bare IPv6 needs []
  }
  int p = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
  if (host.empty() || ec != std::errc{} || end != port.data() + port.size() || p < 1 || p > 65535)
    return std::nullopt;
  return address_spec{std::string{host}, p};
}

// ---- reading -------------------------------------------------------------------------------

void read(const json& v, const std::string& path, site_role& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"primary-candidate", site_role::primary_candidate},
             {"dr-only", site_role::dr_only},
             {"read-only", site_role::read_only}},
            errs);
}

void read(const json& v, const std::string& path, promotion_policy& out, field_errors& errs) {
  read_enum(v, path, out, {{"Safe", promotion_policy::safe}, {"Fast", promotion_policy::fast}},
            errs);
}

void read(const json& v, const std::string& path, update_strategy& out, field_errors& errs) {
  read_enum(
      v, path, out,
      {{"OrderedUpdate", update_strategy::ordered_update}, {"Recreate", update_strategy::recreate}},
      errs);
}

void read(const json& v, const std::string& path, cooldown_action& out, field_errors& errs) {
  read_enum(v, path, out, {{"reject", cooldown_action::reject}, {"defer", cooldown_action::defer}},
            errs);
}

void read(const json& v, const std::string& path, sync_timeout_action& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"proceed", sync_timeout_action::proceed}, {"fail", sync_timeout_action::fail}}, errs);
}

void read(const json& v, const std::string& path, storage_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("storageClassName", out.storage_class_name).field("size", out.size).done();
}

void read(const json& v, const std::string& path, address_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("host", out.host).field("port", out.port).done();
}

void read(const json& v, const std::string& path, site_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("name", out.name)
      .field("role", out.role)
      .field("zone", out.zone)
      .field("lbIP", out.lb_ip)
      .field("taintNodeSelector", out.taint_node_selector)
      .field("storage", out.storage)
      .field("mysqlConf", out.mysql_conf)
      .field("address", out.address)
      .field("sidecarAddress", out.sidecar_address)
      .field("dragonflyAddress", out.dragonfly_address)
      .field("resources", out.resources)
      .field("serviceTemplate", out.service_template)
      .field("groupReplication", out.group_replication)
      .done();
}

void read(const json& v, const std::string& path, credentials_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("operatorSecret", out.operator_secret)
      .field("appSecret", out.app_secret)
      .field("readOnlySecret", out.read_only_secret)
      .field("monitorSecret", out.monitor_secret)
      .field("backupSecret", out.backup_secret)
      .done();
}

void read(const json& v, const std::string& path, dns_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("hostname", out.hostname).field("ttl", out.ttl).done();
}

void read(const json& v, const std::string& path, split_brain_policy_spec& out,
          field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("preferSite", out.prefer_site).field("sitePriorities", out.site_priorities).done();
}

void read(const json& v, const std::string& path, sidecar_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("leaseTimeout", out.lease_timeout)
      .field("peerCheckInterval", out.peer_check_interval)
      .field("bloodravenAddress", out.bloodraven_address)
      .field("fenceTimeout", out.fence_timeout)
      .field("requestTimeout", out.request_timeout)
      .done();
}

void read(const json& v, const std::string& path, semi_sync_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("enabled", out.enabled).field("waitForReplicaCount", out.wait_for_replica_count).done();
}

void read(const json& v, const std::string& path, replication_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("maxLagSeconds", out.max_lag_seconds)
      .field("readOnlyMaxLagSeconds", out.read_only_max_lag_seconds)
      .field("user", out.user)
      .field("password", out.password)
      .field("secretName", out.secret_name)
      .field("tls", out.tls)
      .field("mode", out.mode)
      .field("groupReplication", out.group_replication)
      .field("semiSync", out.semi_sync)
      .done();
}

void read(const json& v, const std::string& path, planned_failover_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("maxLagWait", out.max_lag_wait)
      .field("drainTimeout", out.drain_timeout)
      .field("onCooldown", out.on_cooldown)
      .done();
}

void read(const json& v, const std::string& path, dragonfly_auth_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("secretName", out.secret_name).field("passwordKey", out.password_key).done();
}

void read(const json& v, const std::string& path, dragonfly_planned_failover_spec& out,
          field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("maxSyncWait", out.max_sync_wait).field("onSyncTimeout", out.on_sync_timeout).done();
}

void read(const json& v, const std::string& path, dragonfly_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("enabled", out.enabled)
      .field("image", out.image)
      .field("port", out.port)
      .field("adminPort", out.admin_port)
      .field("maxMemoryMb", out.max_memory_mb)
      .field("proactorThreads", out.proactor_threads)
      .field("args", out.args)
      .field("auth", out.auth)
      .field("plannedFailover", out.planned_failover)
      .unsupported({"resources", "snapshot", "podSecurityContext", "containerSecurityContext"})
      .done();
}

void read(const json& v, const std::string& path, bootstrap_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("seedSite", out.seed_site).done();
}

void read(const json& v, const std::string& path, group_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("image", out.image)
      .field("sidecarImage", out.sidecar_image)
      .field("sites", out.sites)
      .field("secretName", out.secret_name)
      .field("credentials", out.credentials)
      .field("dns", out.dns)
      .field("pollInterval", out.poll_interval)
      .field("failureThreshold", out.failure_threshold)
      .field("recoveryThreshold", out.recovery_threshold)
      .field("failoverCooldown", out.failover_cooldown)
      .field("connectionDrainTimeout", out.connection_drain_timeout)
      .field("relayDrainTimeout", out.relay_drain_timeout)
      .field("mysqlConf", out.mysql_conf)
      .field("replication", out.replication)
      .field("updateStrategy", out.update_strategy)
      .field("cloneTimeout", out.clone_timeout)
      .field("splitBrainPolicy", out.split_brain_policy)
      .field("sidecar", out.sidecar)
      .field("promotionPolicy", out.promotion_policy)
      .field("promotionGateTimeout", out.promotion_gate_timeout)
      .field("plannedFailover", out.planned_failover)
      .field("dragonfly", out.dragonfly)
      .field("backup", out.backup)
      .field("bootstrap", out.bootstrap)
      .field("initFromBackup", out.init_from_backup)
      .field("restoreInPlace", out.restore_in_place)
      .field("resources", out.resources)
      .field("sidecarResources", out.sidecar_resources)
      .field("podLabels", out.pod_labels)
      .field("podAnnotations", out.pod_annotations)
      .field("tolerations", out.tolerations)
      .field("affinity", out.affinity)
      .field("priorityClassName", out.priority_class_name)
      .field("podSecurityContext", out.pod_security_context)
      .field("containerSecurityContext", out.container_security_context)
      .field("primaryServiceTemplate", out.primary_service_template)
      .field("replicaServiceTemplate", out.replica_service_template)
      .field("tls", out.tls)
      // serviceTemplate: the Services have their own templates (primary/replica/sites[]).
      .unsupported({"terminationGracePeriodSeconds", "serviceTemplate", "extraContainers",
                    "extraInitContainers", "encryptionAtRest",
                    "license"})
      .done();
}

}  // namespace br::config
