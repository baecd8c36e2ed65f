// MysqlFailoverGroup spec to canonical JSON (camelCase; empty strings, maps and optionals omitted).
#include "config/group_spec.hpp"

namespace br::config {
namespace {

using json = nlohmann::json;

void put(json& j, const char* key, const std::string& s) {
  if (!s.empty()) j[key] = s;
}

void put(json& j, const char* key, const string_map& m) {
  if (!m.empty()) j[key] = m;
}

void put(json& j, const char* key, duration d) {
  j[key] = format_duration(d);
}

json site_json(const site_spec& s) {
  json j = json::object();
  put(j, "name", s.name);
  j["role"] = std::string{to_string(s.role)};
  put(j, "zone", s.zone);
  put(j, "lbIP", s.lb_ip);
  put(j, "taintNodeSelector", s.taint_node_selector);
  json storage = json::object();
  put(storage, "storageClassName", s.storage.storage_class_name);
  put(storage, "size", s.storage.size);
  if (!storage.empty()) j["storage"] = storage;
  put(j, "mysqlConf", s.mysql_conf);
  if (s.address) j["address"] = {{"host", s.address->host}, {"port", s.address->port}};
  put(j, "sidecarAddress", s.sidecar_address);
  put(j, "dragonflyAddress", s.dragonfly_address);
  if (s.resources) j["resources"] = to_json(*s.resources);
  if (s.service_template) j["serviceTemplate"] = to_json(*s.service_template);
  if (s.group_replication) j["groupReplication"] = to_json(*s.group_replication);
  return j;
}

}  // namespace

json to_json(const object_meta& m) {
  json j = json::object();
  put(j, "name", m.name);
  put(j, "namespace", m.namespace_name);
  put(j, "annotations", m.annotations);
  put(j, "labels", m.labels);
  if (m.generation != 0) j["generation"] = m.generation;
  put(j, "resourceVersion", m.resource_version);
  put(j, "uid", m.uid);
  return j;
}

json to_json(const group_spec& s) {
  json j = json::object();
  put(j, "image", s.image);
  put(j, "sidecarImage", s.sidecar_image);
  j["sites"] = json::array();
  for (const auto& site : s.sites) j["sites"].push_back(site_json(site));
  put(j, "secretName", s.secret_name);
  if (s.credentials) {
    json c = json::object();
    put(c, "operatorSecret", s.credentials->operator_secret);
    put(c, "appSecret", s.credentials->app_secret);
    put(c, "readOnlySecret", s.credentials->read_only_secret);
    put(c, "monitorSecret", s.credentials->monitor_secret);
    put(c, "backupSecret", s.credentials->backup_secret);
    j["credentials"] = c;
  }
  j["dns"] = {{"ttl", s.dns.ttl}};
  put(j["dns"], "hostname", s.dns.hostname);
  put(j, "pollInterval", s.poll_interval);
  j["failureThreshold"] = s.failure_threshold;
  j["recoveryThreshold"] = s.recovery_threshold;
  put(j, "failoverCooldown", s.failover_cooldown);
  put(j, "connectionDrainTimeout", s.connection_drain_timeout);
  put(j, "relayDrainTimeout", s.relay_drain_timeout);
  put(j, "mysqlConf", s.mysql_conf);
  json& r = j["replication"] = {{"maxLagSeconds", s.replication.max_lag_seconds},
                                {"tls", s.replication.tls}};
  if (s.replication.read_only_max_lag_seconds)
    r["readOnlyMaxLagSeconds"] = *s.replication.read_only_max_lag_seconds;
  put(r, "user", s.replication.user);
  put(r, "password", s.replication.password);
  put(r, "secretName", s.replication.secret_name);
  // The async default is left out, so the canonical JSON of every async group stays as it was.
  if (s.replication.mode != replication_mode::async)
    r["mode"] = std::string{to_string(s.replication.mode)};
  if (s.replication.group_replication)
    r["groupReplication"] = to_json(*s.replication.group_replication);
  // Left out at its default, so the canonical JSON of a group without semi-sync stays as it was.
  if (!(s.replication.semi_sync == semi_sync_spec{}))
    r["semiSync"] = {{"enabled", s.replication.semi_sync.enabled},
                     {"waitForReplicaCount", s.replication.semi_sync.wait_for_replica_count}};
  j["updateStrategy"] = std::string{to_string(s.update_strategy)};
  j["cloneTimeout"] = s.clone_timeout;
  json sb = json::object();
  put(sb, "preferSite", s.split_brain_policy.prefer_site);
  if (!s.split_brain_policy.site_priorities.empty())
    sb["sitePriorities"] = s.split_brain_policy.site_priorities;
  if (!sb.empty()) j["splitBrainPolicy"] = sb;
  json& sc = j["sidecar"] = json::object();
  put(sc, "leaseTimeout", s.sidecar.lease_timeout);
  put(sc, "peerCheckInterval", s.sidecar.peer_check_interval);
  put(sc, "bloodravenAddress", s.sidecar.bloodraven_address);
  put(sc, "fenceTimeout", s.sidecar.fence_timeout);
  put(sc, "requestTimeout", s.sidecar.request_timeout);
  j["promotionPolicy"] = std::string{to_string(s.promotion_policy)};
  put(j, "promotionGateTimeout", s.promotion_gate_timeout);
  json& pf = j["plannedFailover"] = json::object();
  put(pf, "maxLagWait", s.planned_failover.max_lag_wait);
  put(pf, "drainTimeout", s.planned_failover.drain_timeout);
  pf["onCooldown"] = std::string{to_string(s.planned_failover.on_cooldown)};
  const auto& d = s.dragonfly;
  json& df =
      j["dragonfly"] = {{"enabled", d.enabled}, {"port", d.port}, {"adminPort", d.admin_port}};
  put(df, "image", d.image);
  if (d.max_memory_mb != 0) df["maxMemoryMb"] = d.max_memory_mb;
  if (d.proactor_threads != 0) df["proactorThreads"] = d.proactor_threads;
  if (!d.args.empty()) df["args"] = d.args;
  if (d.auth)
    df["auth"] = {{"secretName", d.auth->secret_name}, {"passwordKey", d.auth->password_key}};
  df["plannedFailover"] = {
      {"maxSyncWait", format_duration(d.planned_failover.max_sync_wait)},
      {"onSyncTimeout", std::string{to_string(d.planned_failover.on_sync_timeout)}}};
  if (s.backup) j["backup"] = to_json(*s.backup);
  if (!s.bootstrap.seed_site.empty()) j["bootstrap"] = {{"seedSite", s.bootstrap.seed_site}};
  if (s.init_from_backup) j["initFromBackup"] = to_json(*s.init_from_backup);
  if (s.restore_in_place) j["restoreInPlace"] = to_json(*s.restore_in_place);
  if (s.resources) j["resources"] = to_json(*s.resources);
  if (s.sidecar_resources) j["sidecarResources"] = to_json(*s.sidecar_resources);
  put(j, "podLabels", s.pod_labels);
  put(j, "podAnnotations", s.pod_annotations);
  if (!s.tolerations.empty()) {
    json& t = j["tolerations"] = json::array();
    for (const auto& x : s.tolerations) t.push_back(to_json(x));
  }
  if (!s.affinity.is_null()) j["affinity"] = s.affinity;
  put(j, "priorityClassName", s.priority_class_name);
  if (!s.pod_security_context.is_null()) j["podSecurityContext"] = s.pod_security_context;
  if (!s.container_security_context.is_null())
    j["containerSecurityContext"] = s.container_security_context;
  if (s.primary_service_template)
    j["primaryServiceTemplate"] = to_json(*s.primary_service_template);
  if (s.replica_service_template)
    j["replicaServiceTemplate"] = to_json(*s.replica_service_template);
  if (s.tls) j["tls"] = to_json(*s.tls);
  return j;
}

}  // namespace br::config
