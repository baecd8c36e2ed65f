// Renderers of the backup controller's CronJobs and Jobs (see backup_render.hpp).
#include "actors/operator/kube/backup/backup_render.hpp"

#include "actors/operator/kube/backup/backup_decide.hpp"
#include "config/render/content_hash.hpp"
#include "config/render/names.hpp"
#include "config/render/pitr_sidecar.hpp"
#include "config/render/tls_pod.hpp"
#include "config/tls_spec.hpp"

namespace br::backup_ctl {
namespace {

/// The group's labels, but not a MySQL pod's: app.kubernetes.io/name is "bloodraven" (see
/// job_pod_name_label), so the group's PodDisruptionBudget and Services never select these pods.
json labels(const config::failover_group& g, const char* component) {
  json l = render::standard_labels(g.metadata.name);
  l[std::string{render::label_name}] = job_pod_name_label;
  l[std::string{label_component}] = component;
  return l;
}

json pod_security() {
  return {{"runAsNonRoot", true},
          {"runAsUser", 999},
          {"runAsGroup", 999},
          {"fsGroup", 999},
          {"seccompProfile", {{"type", "RuntimeDefault"}}}};
}

json container_security() {
  return {{"allowPrivilegeEscalation", false},
          {"readOnlyRootFilesystem", true},
          {"capabilities", {{"drop", json::array({"ALL"})}}}};
}

std::string image_of(const config::failover_group& g, const render_settings& r) {
  return g.spec.backup && !g.spec.backup->image.empty() ? g.spec.backup->image : r.image;
}

json backup_owner(const json& backup) {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlBackup"},
          {"name", backup["metadata"].value("name", "")},
          {"uid", backup["metadata"].value("uid", "")},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

/// A Job of the backup controller, owned by its MysqlBackup and labelled with it.
json job(const json& backup, const config::failover_group& g, const std::string& name,
         const char* component, json args, const render_settings& r) {
  json l = labels(g, component);
  l[std::string{label_backup}] = backup["metadata"].value("name", "");
  const auto& backup_spec = *g.spec.backup;
  return bloodraven_job(g, name, l, backup_owner(backup), std::move(args),
                        backup_spec.backoff_limit, backup_spec.active_deadline_seconds, r);
}

json& the_container(json& job) {
  return job["spec"]["template"]["spec"]["containers"][0];
}

}  // namespace

json bloodraven_job(const config::failover_group& g, const std::string& name, const json& given_labels,
                    const json& owner, json args, std::int64_t backoff_limit,
                    std::int64_t active_deadline_seconds, const render_settings& r) {
  json labels = given_labels;
  labels[std::string{render::label_name}] = job_pod_name_label;  // not selected as a MySQL pod
  json container = {{"name", "backup"},
                    {"image", image_of(g, r)},
                    {"command", json::array({"bloodraven"})},
                    {"args", std::move(args)},
                    {"env", json::array({{{"name", "BLOODRAVEN_BACKUP_WORK_DIR"}, {"value", "/tmp"}}})},
                    {"terminationMessagePath", "/dev/termination-log"},
                    {"terminationMessagePolicy", "File"},
                    {"securityContext", container_security()},
                    {"volumeMounts", json::array({{{"name", "tmp"}, {"mountPath", "/tmp"}}})}};
  json pod = {{"restartPolicy", "Never"},
              {"automountServiceAccountToken", false},
              {"securityContext", pod_security()},
              {"volumes", json::array({{{"name", "tmp"}, {"emptyDir", json::object()}}})}};
  json spec = {{"backoffLimit", backoff_limit},
               {"activeDeadlineSeconds", active_deadline_seconds},
               {"template", {{"metadata", {{"labels", labels}}}, {"spec", pod}}}};
  json meta = {{"name", name},
               {"namespace", g.metadata.namespace_name},
               {"labels", labels},
               {"ownerReferences", json::array({owner})}};
  json out = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", meta}, {"spec", spec}};
  out["spec"]["template"]["spec"]["containers"] = json::array({container});
  return out;
}

std::string site_mysql_address(const config::failover_group& g, const std::string& site,
                               const render_settings& r) {
  const auto& ns = g.metadata.namespace_name;
  return r.site_address ? r.site_address(ns, g.metadata.name, site)
                        : render::site_name(g.metadata.name, site) + "." + ns +
                              ".svc.cluster.local:3306";
}

void add_mysql_creds(const config::failover_group& g, json& pod_spec, json& container,
                     const std::string& user_key, const std::string& password_key, bool optional) {
  json secret = {{"secretName", g.spec.credentials ? g.spec.credentials->operator_secret : ""},
                 {"defaultMode", 0400},
                 {"items", json::array({{{"key", user_key}, {"path", "username"}},
                                        {{"key", password_key}, {"path", "password"}}})}};
  if (optional) secret["optional"] = true;
  pod_spec["volumes"].push_back({{"name", "mysql-creds"}, {"secret", secret}});
  container["volumeMounts"].push_back(
      {{"name", "mysql-creds"}, {"mountPath", mysql_creds_dir}, {"readOnly", true}});
}

void add_mysql_tls(const config::failover_group& g, json& pod_spec, json& container, bool server_files) {
  if (!render::add_tls_volume_to(g, pod_spec, container)) return;
  auto& args = container["args"];
  args.push_back("--tls-ca");
  args.push_back(std::string{config::mysql_tls_ca_file});
  if (!server_files) return;
  args.push_back("--tls-cert");
  args.push_back(std::string{config::mysql_tls_cert_file});
  args.push_back("--tls-key");
  args.push_back(std::string{config::mysql_tls_key_file});
}

json storage_env(const config::backup_storage_spec& s, const std::string& prefix) {
  return render::storage_env(s, prefix, pvc_mount, aws_creds_dir);
}

void add_storage_volume(const config::backup_storage_spec& s, json& pod_spec, json& container,
                        const std::string& volume_name, const std::string& mount_path,
                        const std::string& creds_dir) {
  if (s.type == config::backup_storage_type::s3 && s.s3) {
    pod_spec["volumes"].push_back(
        {{"name", volume_name},
         {"secret", {{"secretName", s.s3->credentials_secret}, {"defaultMode", 0400}}}});
    container["volumeMounts"].push_back(
        {{"name", volume_name}, {"mountPath", creds_dir}, {"readOnly", true}});
  } else if (s.type == config::backup_storage_type::pvc && s.pvc) {
    pod_spec["volumes"].push_back(
        {{"name", volume_name}, {"persistentVolumeClaim", {{"claimName", s.pvc->claim_name}}}});
    json mount = {{"name", volume_name}, {"mountPath", mount_path}};
    if (!s.pvc->sub_path.empty()) mount["subPath"] = s.pvc->sub_path;
    container["volumeMounts"].push_back(mount);
  }
}

json render_cronjob(const config::failover_group& g, const config::backup_schedule_spec& s,
                    const render_settings& r) {
  const auto& ns = g.metadata.namespace_name;
  json l = labels(g, "backup-schedule");
  l[std::string{label_schedule}] = s.name;
  json container = {
      {"name", "trigger-backup"},
      {"image", image_of(g, r)},
      {"command", json::array({"bloodraven"})},
      {"args", json::array({"trigger-backup", "--namespace", ns, "--group", g.metadata.name,
                            "--profile", s.profile_name, "--triggered-by", "schedule/" + s.name})},
      {"securityContext", container_security()}};
  json pod = {{"restartPolicy", "Never"},
              {"serviceAccountName", r.trigger_service_account},
              {"securityContext", pod_security()},
              {"containers", json::array({container})}};
  json spec = {{"schedule", s.schedule},
               {"timeZone", s.time_zone},
               {"suspend", s.suspend},
               {"concurrencyPolicy", std::string{to_string(s.concurrency)}},
               {"successfulJobsHistoryLimit", s.successful_jobs_history_limit},
               {"failedJobsHistoryLimit", s.failed_jobs_history_limit},
               {"jobTemplate",
                {{"metadata", {{"labels", l}}},
                 {"spec",
                  {{"backoffLimit", 2},
                   {"activeDeadlineSeconds", 300},
                   {"template", {{"metadata", {{"labels", l}}}, {"spec", pod}}}}}}}};
  if (s.starting_deadline_seconds) spec["startingDeadlineSeconds"] = *s.starting_deadline_seconds;
  json meta = {{"name", cronjob_name(g.metadata.name, s.name)},
               {"namespace", ns},
               {"labels", l},
               {"annotations", {{std::string{annotation_spec_hash}, render::content_hash(spec.dump())}}},
               {"ownerReferences", json::array({render::owner_reference(g)})}};
  return {{"apiVersion", "batch/v1"}, {"kind", "CronJob"}, {"metadata", meta}, {"spec", spec}};
}

json render_backup_job(const json& backup, const config::failover_group& g,
                       const config::backup_profile_spec& p, const std::string& source_site,
                       const std::string& active_site, const render_settings& r) {
  const std::string bname = backup["metadata"].value("name", "");
  std::string address = site_mysql_address(g, source_site, r);
  json out = job(backup, g, backup_job_name(bname), "backup",
                 json::array({"backup", "run", "--name", bname, "--source", address, "--creds-dir",
                              mysql_creds_dir, "--result-file", "/dev/termination-log"}),
                 r);
  out["metadata"]["annotations"] = {{std::string{annotation_source}, source_site},
                                    {std::string{annotation_active}, active_site}};
  json& pod = out["spec"]["template"]["spec"];
  json& c = the_container(out);
  for (const auto& e : storage_env(p.storage, "BLOODRAVEN_BACKUP")) c["env"].push_back(e);
  add_storage_volume(p.storage, pod, c, "backup-storage");
  // The backup account (the operator account has no privilege on user schemas: its dump held
  // only `bloodraven`). Optional keys: a Secret without them fails the Job at once ("cannot
  // read .../username"), not after activeDeadlineSeconds in ContainerCreating.
  add_mysql_creds(g, pod, c, "MYSQL_BACKUP_USER", "MYSQL_BACKUP_PASSWORD", true);
  add_mysql_tls(g, pod, c);
  return out;
}

json render_cleanup_job(const json& backup, const config::failover_group& g,
                        const config::backup_profile_spec& p, const render_settings& r) {
  const std::string bname = backup["metadata"].value("name", "");
  json out = job(backup, g, cleanup_job_name(bname), "backup-cleanup",
                 json::array({"backup", "delete", "--name", bname}), r);
  json& pod = out["spec"]["template"]["spec"];
  json& c = the_container(out);
  for (const auto& e : storage_env(p.storage, "BLOODRAVEN_BACKUP")) c["env"].push_back(e);
  add_storage_volume(p.storage, pod, c, "backup-storage");
  return out;
}

}  // namespace br::backup_ctl
