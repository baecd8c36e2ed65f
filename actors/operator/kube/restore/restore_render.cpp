// The restore Job (see restore_render.hpp).
#include "actors/operator/kube/restore/restore_render.hpp"

#include "config/render/names.hpp"
#include "config/render/pitr_sidecar.hpp"
#include "config/render/workload.hpp"

namespace br::restore_ctl {

namespace {

/// The Job of either restore: `name`, its component label, the point in time to replay to,
/// `--replace` or not.
json restore_job(const config::failover_group& g, const std::string& name, const char* component,
                 const restore_source& src, const std::string& target,
                 const std::optional<config::point_in_time_spec>& pit, bool replace,
                 const backup_ctl::render_settings& r) {
  const auto& spec = g.spec;
  json labels = render::standard_labels(g.metadata.name);
  labels[std::string{backup_ctl::label_component}] = component;
  labels[std::string{label_restore}] = g.metadata.name;
  json args = json::array({"restore", "--name", src.backup_name, "--target",
                           backup_ctl::site_mysql_address(g, target, r), "--creds-dir",
                           backup_ctl::mysql_creds_dir, "--user", "root", "--result-file",
                           "/dev/termination-log"});
  if (replace) args.push_back("--replace");
  const bool bounded = pit && (!pit->stop_datetime.empty() || !pit->stop_gtid.empty());
  if (bounded && !pit->stop_datetime.empty()) {
    args.push_back("--stop-datetime");
    args.push_back(pit->stop_datetime);
  } else if (bounded) {
    args.push_back("--stop-gtid");
    args.push_back(pit->stop_gtid);
  }
  const std::int64_t deadline = spec.backup ? spec.backup->active_deadline_seconds : 7200;
  json job = backup_ctl::bloodraven_job(g, name, labels,
                                        render::owner_reference(g), std::move(args), 0, deadline, r);
  json& pod = job["spec"]["template"]["spec"];
  json& c = pod["containers"][0];
  c["name"] = "restore";
  for (const auto& e : backup_ctl::storage_env(src.storage, "BLOODRAVEN_BACKUP")) c["env"].push_back(e);
  backup_ctl::add_storage_volume(src.storage, pod, c, "backup-storage");
  if (bounded) {
    // The archive the sidecars upload to (validation requires spec.backup.pitr with a profile).
    if (const auto* p = render::pitr_profile(spec)) {
      for (const auto& e : render::storage_env(p->storage, "BLOODRAVEN_PITR", pitr_mount, pitr_creds_dir))
        c["env"].push_back(e);
      backup_ctl::add_storage_volume(p->storage, pod, c, "pitr-archive", pitr_mount, pitr_creds_dir);
    }
  }
  // As root (MYSQL_ROOT_PASSWORD of the group's credentials Secret; `--user root`): the dump
  // creates schemas, tables, views, routines and events with their definers and sets
  // GTID_PURGED, which the least-privilege operator and backup accounts cannot.
  pod["volumes"].push_back(
      {{"name", "mysql-creds"},
       {"secret",
        {{"secretName", render::credentials_secret(spec)},
         {"defaultMode", 0400},
         {"items", json::array({{{"key", "MYSQL_ROOT_PASSWORD"}, {"path", "password"}}})}}}});
  c["volumeMounts"].push_back(
      {{"name", "mysql-creds"}, {"mountPath", backup_ctl::mysql_creds_dir}, {"readOnly", true}});
  backup_ctl::add_mysql_tls(g, pod, c);
  return job;
}

}  // namespace

json render_restore_job(const config::failover_group& g, const restore_source& src,
                        const std::string& target, const backup_ctl::render_settings& r) {
  return restore_job(g, restore_job_name(g.metadata.name), "restore", src, target,
                     g.spec.init_from_backup->point_in_time, false, r);
}

json render_replace_job(const config::failover_group& g, const restore_source& src,
                        const std::string& target, const backup_ctl::render_settings& r) {
  return restore_job(g, replace_job_name(g.metadata.name, g.spec.restore_in_place->confirm), "restore-in-place", src, target,
                     g.spec.restore_in_place->point_in_time, true, r);
}

}  // namespace br::restore_ctl
