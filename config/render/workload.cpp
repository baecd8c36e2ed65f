// Per-site workload objects: the single-replica Deployment (mysql + sidecar) and its PVC.
#include "config/render/workload.hpp"

#include "config/render/api_tls_pod.hpp"
#include "config/render/tls_pod.hpp"

#include "config/render/accounts.hpp"
#include "config/render/gr_member.hpp"
#include "config/render/member_rbac.hpp"
#include "config/render/names.hpp"
#include "config/render/pitr_sidecar.hpp"
#include "config/render/rollout.hpp"

namespace br::render {
namespace {

json field_env(const char* name, const char* path) {
  return {{"name", name}, {"valueFrom", {{"fieldRef", {{"fieldPath", path}}}}}};
}

json value_env(const char* name, const std::string& value) {
  return {{"name", name}, {"value", value}};
}

json mysql_container_spec(const config::group_spec& spec);
bool has_init_container(int reconciler_version);

/// Version 5: the accounts' init script and environment, writable emptyDirs under a read-only
/// root, resources (the site's, else the group's), the security context as given or secure.
/// Version 6: the accounts' environment and script go to the init container only (the image's
/// first-start path never runs: the data directory is initialised before mysqld starts).
void shape_mysql_container(json& c, const config::group_spec& spec, std::size_t site_index,
                           int reconciler_version) {
  if (!has_init_container(reconciler_version)) {
    for (auto& e : users_env(credentials_secret(spec), false)) c["env"].push_back(std::move(e));
    c["volumeMounts"].push_back({{"name", "init"}, {"mountPath", initdb_dir}, {"readOnly", true}});
  }
  c["volumeMounts"].push_back({{"name", "tmp"}, {"mountPath", "/tmp"}});
  c["volumeMounts"].push_back({{"name", "run-mysqld"}, {"mountPath", "/var/run/mysqld"}});
  const auto& site = spec.sites.at(site_index);
  if (const auto& r = site.resources ? site.resources : spec.resources)
    c["resources"] = config::to_json(*r);
  c["securityContext"] = spec.container_security_context.is_null()
                             ? json{{"runAsUser", mysql_uid},
                                    {"runAsGroup", mysql_uid},
                                    {"runAsNonRoot", true},
                                    {"allowPrivilegeEscalation", false},
                                    {"readOnlyRootFilesystem", true},
                                    {"capabilities", {{"drop", json::array({"ALL"})}}}}
                             : spec.container_security_context;
}

/// Version 5: the pod's identity, security context, scheduling and the user's labels.
void shape_pod(json& pod_spec, json& pod_labels, json& pod_annotations,
               const config::failover_group& g) {
  const auto& spec = g.spec;
  pod_spec["serviceAccountName"] = service_account_name(g.metadata.name);
  pod_spec["automountServiceAccountToken"] = false;
  pod_spec["securityContext"] =
      spec.pod_security_context.is_null()
          ? json{{"runAsNonRoot", true},
                 {"runAsUser", mysql_uid},
                 {"runAsGroup", mysql_uid},
                 {"fsGroup", mysql_uid},
                 {"seccompProfile", {{"type", "RuntimeDefault"}}}}
          : spec.pod_security_context;
  for (const auto& t : spec.tolerations) pod_spec["tolerations"].push_back(config::to_json(t));
  if (!spec.affinity.is_null()) pod_spec["affinity"] = spec.affinity;
  if (!spec.priority_class_name.empty()) pod_spec["priorityClassName"] = spec.priority_class_name;
  // Validation refuses the operator's keys, so these never replace ours.
  for (const auto& [k, v] : spec.pod_labels) pod_labels[k] = v;
  for (const auto& [k, v] : spec.pod_annotations) pod_annotations[k] = v;
  pod_spec["volumes"].push_back(
      {{"name", "init"},
       {"configMap", {{"name", init_config_map_name(g.metadata.name)}, {"defaultMode", 0555}}}});
  pod_spec["volumes"].push_back({{"name", "tmp"}, {"emptyDir", json::object()}});
  pod_spec["volumes"].push_back(
      {{"name", "run-mysqld"}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", "16Mi"}}}});
}

json mysql_container_spec(const config::group_spec& spec) {
  // preStop fences before SIGTERM so a draining primary stops taking writes first; "|| true"
  // because a mysqld that is already down is as fenced as it gets.
  std::string pre_stop =
      "MYSQL_PWD=\"$MYSQL_ROOT_PASSWORD\" mysql -uroot -h127.0.0.1 --connect-timeout=5 "
      "-e 'SET GLOBAL super_read_only=ON' || true";
  // Group Replication needs no port of its own: the members' group communication runs over
  // MySQL connections (group_replication_communication_stack MYSQL, gr_member.cpp).
  json ports =
      json::array({{{"name", "mysql"}, {"containerPort", mysql_port}, {"protocol", "TCP"}}});
  return {
      {"name", std::string{mysql_container}},
      {"image", spec.image},
      {"ports", std::move(ports)},
      {"env",
       json::array({{{"name", "MYSQL_ROOT_PASSWORD"},
                     {"valueFrom",
                      {{"secretKeyRef",
                        {{"name", credentials_secret(spec)}, {"key", "MYSQL_ROOT_PASSWORD"}}}}}}})},
      {"livenessProbe",
       {{"tcpSocket", {{"port", mysql_port}}},
        {"initialDelaySeconds", 30},
        {"periodSeconds", 10},
        {"timeoutSeconds", 5},
        {"failureThreshold", 3}}},
      {"readinessProbe",
       {{"tcpSocket", {{"port", mysql_port}}},
        {"initialDelaySeconds", 5},
        {"periodSeconds", 5},
        {"timeoutSeconds", 3},
        {"failureThreshold", 3}}},
      {"lifecycle", {{"preStop", {{"exec", {{"command", json::array({"sh", "-c", pre_stop})}}}}}}},
      {"volumeMounts",
       json::array({{{"name", "data"}, {"mountPath", data_dir}},
                    {{"name", "config"}, {"mountPath", conf_dir}, {"readOnly", true}}})},
  };
}

bool mounts_keys(int reconciler_version) { return reconciler_version >= 2; }
bool shapes_pods(int reconciler_version) { return reconciler_version >= 5; }
bool has_init_container(int reconciler_version) { return reconciler_version >= 6; }
bool has_health_port(int reconciler_version) { return reconciler_version >= 3; }
bool has_sidecar_state(int reconciler_version) { return reconciler_version >= 4; }
bool has_backup_account(int reconciler_version) { return reconciler_version >= 7; }

/// Version 6: "init-datadir", the mysql container's image running init_datadir_script() with
/// the same environment (root password + accounts), mounts (data, config, tmp, run) and
/// security context and resources as the mysql container, and the init ConfigMap at
/// init_script_dir.
json init_datadir_container(const json& mysql, const config::group_spec& spec, int reconciler_version) {
  json c = {{"name", std::string{init_datadir_container_name}},
            {"image", mysql["image"]},
            {"command", json::array({"bash", std::string{init_script_dir} + "/" + init_datadir_key})},
            {"env", mysql["env"]}};
  for (auto& e : users_env(credentials_secret(spec), has_backup_account(reconciler_version)))
    c["env"].push_back(std::move(e));
  c["volumeMounts"] = mysql["volumeMounts"];
  c["volumeMounts"].push_back({{"name", "init"}, {"mountPath", init_script_dir}, {"readOnly", true}});
  for (const char* k : {"resources", "securityContext"})
    if (mysql.contains(k)) c[k] = mysql[k];
  return c;
}

json sidecar_ports(int reconciler_version) {
  json p =
      json::array({{{"name", "sidecar"}, {"containerPort", sidecar_port}, {"protocol", "TCP"}}});
  if (has_health_port(reconciler_version))
    p.push_back({{"name", "health"}, {"containerPort", sidecar_health_port}, {"protocol", "TCP"}});
  return p;
}

// Liveness asks only whether the process answers: /health depends on mysqld, and restarting
// the sidecar because MySQL is down would drop the fencing monitor. From version 3 on it goes
// to the liveness-only listener, whose slots a flood of the API port cannot take.
json sidecar_liveness(int reconciler_version) {
  json get = has_health_port(reconciler_version)
                 ? json{{"path", "/livez"}, {"port", sidecar_health_port}}
                 : json{{"path", "/peer/ping"}, {"port", sidecar_port}};
  return {{"httpGet", get},
          {"initialDelaySeconds", 5},
          {"periodSeconds", 10},
          {"timeoutSeconds", 3},
          {"failureThreshold", 3}};
}

json sidecar_mounts(int reconciler_version) {
  json m = json::array({{{"name", "creds"}, {"mountPath", creds_dir}, {"readOnly", true}},
                        {{"name", "data"}, {"mountPath", data_dir}, {"readOnly", true}}});
  if (mounts_keys(reconciler_version))
    m.push_back({{"name", "keys"}, {"mountPath", keys_dir}, {"readOnly", true}});
  // Writable: the root filesystem is read-only, and the sidecar persists its view here.
  if (has_sidecar_state(reconciler_version))
    m.push_back({{"name", sidecar_state_volume}, {"mountPath", sidecar_state_dir}});
  return m;
}

json sidecar_container_spec(const config::failover_group& g, std::size_t site_index,
                            const render_options& opts) {
  return {
      {"name", std::string{sidecar_container}},
      {"image", sidecar_image(g.spec, opts)},
      {"ports", sidecar_ports(opts.reconciler_version)},
      {"env", sidecar_env(g, site_index, opts.reconciler_version)},
      {"livenessProbe", sidecar_liveness(opts.reconciler_version)},
      {"readinessProbe",
       {{"httpGet", {{"path", "/ready"}, {"port", sidecar_port}}},
        {"initialDelaySeconds", 2},
        {"periodSeconds", 5},
        {"timeoutSeconds", 3},
        {"failureThreshold", 3}}},
      // Runs as the image's mysql uid/gid so it can read the binlogs (archiver) and, through
      // fsGroup, the credentials files.
      {"securityContext",
       {{"runAsUser", mysql_uid},
        {"runAsGroup", mysql_uid},
        {"runAsNonRoot", true},
        {"allowPrivilegeEscalation", false},
        {"readOnlyRootFilesystem", true},
        {"capabilities", {{"drop", json::array({"ALL"})}}}}},
      {"volumeMounts", sidecar_mounts(opts.reconciler_version)},
  };
}

json shaped_sidecar_container(const config::failover_group& g, std::size_t site_index,
                       const render_options& opts) {
  json c = sidecar_container_spec(g, site_index, opts);
  if (shapes_pods(opts.reconciler_version) && g.spec.sidecar_resources)
    c["resources"] = config::to_json(*g.spec.sidecar_resources);
  return c;
}

/// The sidecar reads only `username` and `password` (MYSQL_CREDS_DIR, config/sidecar_config.cpp).
/// From version 5 the volume projects just those two keys when the Secret is the operator
/// Secret (credentials mode guarantees them), so the sidecar never holds the root password.
json creds_volume(const config::group_spec& spec, int reconciler_version) {
  json secret = {{"secretName", credentials_secret(spec)}, {"defaultMode", 0440}};
  if (shapes_pods(reconciler_version) && spec.credentials)
    secret["items"] = json::array({{{"key", "username"}, {"path", "username"}},
                                   {{"key", "password"}, {"path", "password"}}});
  return {{"name", "creds"}, {"secret", std::move(secret)}};
}

}  // namespace

std::string credentials_secret(const config::group_spec& spec) {
  return spec.credentials ? spec.credentials->operator_secret : spec.secret_name;
}

std::string sidecar_image(const config::group_spec& spec, const render_options& opts) {
  return spec.sidecar_image.empty() ? opts.default_sidecar_image : spec.sidecar_image;
}

namespace {

/// Group Replication mode: the member's state decides its readiness (sidecar /ready: ONLINE in
/// a view with a majority of GR_MEMBERS, in the group GR_GROUP_NAME when pinned). The async
/// settings (peers, lease, fencing) do not apply: the group fences itself.
json gr_sidecar_env(const config::failover_group& g, std::size_t site_index,
                    int reconciler_version) {
  const auto& spec = g.spec;
  const auto& ns = g.metadata.namespace_name;
  json env = json::array({
      field_env("MY_POD_NAME", "metadata.name"),
      field_env("POD_NAMESPACE", "metadata.namespace"),
      value_env("LISTEN_ADDR", ":" + std::to_string(sidecar_port)),
      value_env("MY_SITE", spec.sites.at(site_index).name),
      value_env("FAILOVER_GROUP", g.metadata.name),
      value_env("BLOODRAVEN_ADDRESS", config::effective_bloodraven_address(spec, ns)),
      value_env("MYSQL_CREDS_DIR", creds_dir),
      value_env("REPLICATION_MODE", "groupReplication"),
      value_env("GR_MEMBERS", std::to_string(spec.sites.size())),
      // The gr-observed annotation on its own Pod (MY_POD_NAME), as the site's member identity.
      value_env("GR_POD_DOORBELL", "true"),
  });
  const auto gr = spec.replication.group_replication.value_or(config::group_replication_spec{});
  if (!gr.group_name.empty()) env.push_back(value_env("GR_GROUP_NAME", gr.group_name));
  if (mounts_keys(reconciler_version)) env.push_back(value_env("KEYS_DIR", keys_dir));
  if (has_health_port(reconciler_version))
    env.push_back(value_env("HEALTH_LISTEN_ADDR", ":" + std::to_string(sidecar_health_port)));
  if (has_sidecar_state(reconciler_version)) {
    env.push_back(
        value_env("REQUEST_TIMEOUT", config::format_duration(spec.sidecar.request_timeout)));
    env.push_back(value_env("SIDECAR_STATE_DIR", sidecar_state_dir));
  }
  return env;
}

}  // namespace

json sidecar_env(const config::failover_group& g, std::size_t site_index, int reconciler_version) {
  if (is_group_replication(g.spec)) return gr_sidecar_env(g, site_index, reconciler_version);
  const auto& spec = g.spec;
  const auto& ns = g.metadata.namespace_name;
  std::string peers;
  for (std::size_t i = 0; i < spec.sites.size(); ++i) {
    if (i == site_index) continue;
    if (!peers.empty()) peers += ',';
    peers += sidecar_peer_address(g.metadata.name, spec.sites[i].name, ns);
  }
  json env = json::array({
      field_env("MY_POD_NAME", "metadata.name"),
      field_env("POD_NAMESPACE", "metadata.namespace"),
      value_env("LISTEN_ADDR", ":" + std::to_string(sidecar_port)),
      value_env("MY_SITE", spec.sites.at(site_index).name),
      value_env("FAILOVER_GROUP", g.metadata.name),
      value_env("PEER_ADDRESSES", peers),
      value_env("BLOODRAVEN_ADDRESS", config::effective_bloodraven_address(spec, ns)),
      value_env("LEASE_TIMEOUT", config::format_duration(spec.sidecar.lease_timeout)),
      value_env("PEER_CHECK_INTERVAL", config::format_duration(spec.sidecar.peer_check_interval)),
      value_env("MYSQL_CREDS_DIR", creds_dir),
  });
  if (mounts_keys(reconciler_version)) env.push_back(value_env("KEYS_DIR", keys_dir));
  if (has_health_port(reconciler_version))
    env.push_back(value_env("HEALTH_LISTEN_ADDR", ":" + std::to_string(sidecar_health_port)));
  if (has_sidecar_state(reconciler_version)) {
    // The operator's rule-3 wait counts these two (group_supervisor: deps.sidecar_*_timeout);
    // rendering them keeps the sidecar on the same values instead of its own defaults.
    env.push_back(value_env("FENCE_TIMEOUT", config::format_duration(spec.sidecar.fence_timeout)));
    env.push_back(
        value_env("REQUEST_TIMEOUT", config::format_duration(spec.sidecar.request_timeout)));
    env.push_back(value_env("SIDECAR_STATE_DIR", sidecar_state_dir));
  }
  return env;
}

namespace {

/// Group Replication: the pod runs as its site's member ServiceAccount (member_rbac.hpp: get and
/// patch of its own Pod only), whose token is projected into the sidecar container alone, where
/// the in-cluster client looks for it; mysqld and the init container never see it.
void add_member_identity(const config::failover_group& g, const std::string& site, json& pod_spec,
                         json& sidecar) {
  pod_spec["serviceAccountName"] = member_identity_name(g.metadata.name, site);
  pod_spec["automountServiceAccountToken"] = false;
  json sources = json::array(
      {{{"serviceAccountToken", {{"path", "token"}, {"expirationSeconds", 3607}}}},
       {{"configMap",
         {{"name", "kube-root-ca.crt"}, {"items", json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})}}}},
       {{"downwardAPI",
         {{"items", json::array({{{"path", "namespace"},
                                  {"fieldRef", {{"fieldPath", "metadata.namespace"}}}}})}}}}});
  pod_spec["volumes"].push_back(
      {{"name", std::string{member_token_volume}}, {"projected", {{"sources", sources}}}});
  sidecar["volumeMounts"].push_back({{"name", std::string{member_token_volume}},
                                     {"mountPath", std::string{member_token_dir}},
                                     {"readOnly", true}});
}

}  // namespace

json render_deployment(const config::failover_group& g, std::size_t site_index,
                       const std::string& config_map, const std::string& config_hash,
                       const render_options& opts) {
  const auto& spec = g.spec;
  const auto& site = spec.sites.at(site_index);
  const auto& group = g.metadata.name;
  json selector = standard_labels(group, site.name);
  selector.erase(std::string{label_managed_by});
  json pod_labels = standard_labels(group, site.name);
  pod_labels[std::string{label_role}] = "replica";
  pod_labels[std::string{label_healthy}] = "no";
  // Group Replication: a new pod serves no reads until the router sees it ONLINE.
  if (is_group_replication(spec)) pod_labels[std::string{label_reader}] = "no";

  json pod_spec = {
      {"terminationGracePeriodSeconds", 60},
      {"securityContext", {{"fsGroup", mysql_uid}}},
      {"containers",
       json::array({mysql_container_spec(spec), shaped_sidecar_container(g, site_index, opts)})},
      {"volumes",
       json::array(
           {{{"name", "data"},
             {"persistentVolumeClaim", {{"claimName", pvc_name(group, site.name)}}}},
            {{"name", "config"}, {"configMap", {{"name", config_map}}}},
            creds_volume(spec, opts.reconciler_version)})},
      // The site's own nodes may carry this group's readonly taint while it is not active; the
      // replica must stay put (only write-dependent apps are meant to be evicted).
      {"tolerations",
       json::array({{{"key", taint_key(group)}, {"operator", "Exists"}, {"effect", "NoExecute"}}})},
  };
  if (mounts_keys(opts.reconciler_version)) {
    // Only this site's private key: another site's pod never holds it (items project a subset).
    json items = json::array({{{"key", "operator.pub"}, {"path", "operator.pub"}},
                              {{"key", "site-" + site.name + ".key"},
                               {"path", "site-" + site.name + ".key"}}});
    for (const auto& s : spec.sites)
      items.push_back({{"key", "site-" + s.name + ".pub"}, {"path", "site-" + s.name + ".pub"}});
    pod_spec["volumes"].push_back(
        {{"name", "keys"},
         {"secret",
          {{"secretName", keys_secret(group)}, {"defaultMode", 0440}, {"items", items}}}});
  }
  add_tls_volume(g, pod_spec);  // spec.tls (issue 26): the Secret at /etc/mysql/tls
  if (opts.api_tls) add_api_tls(g, site_index, pod_spec);  // the APIs over mutual TLS (issue 26)
  if (has_sidecar_state(opts.reconciler_version)) {
    // An emptyDir lives as long as the pod: the view survives sidecar container restarts (the
    // liveness probe, a crash), not a new pod (rollout, eviction, node loss). A new pod's boot
    // guard fences first and asks the operator and peers (docs/safety.md, sidecar rule 3).
    pod_spec["volumes"].push_back(
        {{"name", sidecar_state_volume}, {"emptyDir", {{"sizeLimit", sidecar_state_size_limit}}}});
  }
  if (!site.zone.empty()) pod_spec["nodeSelector"] = {{"topology.kubernetes.io/zone", site.zone}};
  json pod_annotations = {{annotation_config_hash, config_hash}};
  if (shapes_pods(opts.reconciler_version)) {
    shape_mysql_container(pod_spec["containers"][0], spec, site_index, opts.reconciler_version);
    shape_pod(pod_spec, pod_labels, pod_annotations, g);
  }
  if (has_init_container(opts.reconciler_version))
    pod_spec["initContainers"] =
        json::array({init_datadir_container(pod_spec["containers"][0], spec, opts.reconciler_version)});
  if (is_group_replication(spec))
    add_member_identity(g, site.name, pod_spec, pod_spec["containers"][1]);
  // spec.backup.pitr.enabled: the archiver's settings, volume and mount (issue 21).
  add_pitr_archiver(spec, pod_spec, pod_spec["containers"][1]);

  json deployment = {
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata",
       object_metadata(g, site_name(group, site.name), site.name, opts.reconciler_version)},
      {"spec",
       {{"replicas", 1},
        {"strategy", {{"type", "Recreate"}}},
        {"selector", {{"matchLabels", selector}}},
        {"template",
         {{"metadata",
           {{"labels", pod_labels}, {"annotations", pod_annotations}}},
          {"spec", pod_spec}}}}},
  };
  deployment["metadata"]["annotations"][std::string{annotation_spec_hash}] =
      workload_spec_hash(deployment);
  return deployment;
}

json render_pvc(const config::failover_group& g, std::size_t site_index,
                const render_options& opts) {
  const auto& site = g.spec.sites.at(site_index);
  json spec = {{"accessModes", json::array({"ReadWriteOnce"})},
               {"resources", {{"requests", {{"storage", site.storage.size}}}}}};
  if (!site.storage.storage_class_name.empty())
    spec["storageClassName"] = site.storage.storage_class_name;
  return {{"apiVersion", "v1"},
          {"kind", "PersistentVolumeClaim"},
          {"metadata", object_metadata(g, pvc_name(g.metadata.name, site.name), site.name,
                                       opts.reconciler_version)},
          {"spec", std::move(spec)}};
}

}  // namespace br::render
