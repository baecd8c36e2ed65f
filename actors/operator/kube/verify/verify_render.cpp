// The verification Job and CronJob (see verify_render.hpp).
#include "actors/operator/kube/verify/verify_render.hpp"

#include "config/render/content_hash.hpp"
#include "config/render/names.hpp"
#include "config/render/pitr_sidecar.hpp"

namespace br::verify_ctl {

json verify_args(const config::verification_run_spec& run, const std::string& backup) {
  json a = json::array({"backup", "verify", "--name", backup, "--work-dir", scratch_mount, "--result-file",
                        "/dev/termination-log"});
  if (run.point_in_time) {
    if (run.point_in_time->mode == config::verification_pitr_mode::latest) {
      a.push_back("--pitr");
      a.push_back("latest");
    } else if (run.point_in_time->mode == config::verification_pitr_mode::timestamp) {
      a.push_back("--stop-datetime");
      a.push_back(run.point_in_time->timestamp);
    }
  }
  if (run.sanity_check) {
    a.push_back("--sanity-query");
    a.push_back(run.sanity_check->query);
    a.push_back("--expect-min-rows");
    a.push_back(std::to_string(run.sanity_check->min_rows));
    if (run.sanity_check->max_duration_seconds) {
      a.push_back("--max-duration");
      a.push_back(std::to_string(*run.sanity_check->max_duration_seconds) + "s");
    }
  }
  if (run.keep_on_failure.value_or(true)) a.push_back("--keep-on-failure");
  return a;
}

json render_verify_job(const json& verification, const config::failover_group& g,
                       const config::backup_profile_spec& p, const config::verification_run_spec& run,
                       const backup_entry& backup, const backup_ctl::render_settings& r) {
  const std::string name = verification["metadata"].value("name", "");
  json labels = render::standard_labels(g.metadata.name);
  labels[std::string{backup_ctl::label_component}] = "backup-verification";
  labels[std::string{label_verification}] = name;
  json owner = {{"apiVersion", "shipstream.io/v1alpha1"},
                {"kind", "MysqlBackupVerification"},
                {"name", name},
                {"uid", verification["metadata"].value("uid", "")},
                {"controller", true},
                {"blockOwnerDeletion", true}};
  json job = backup_ctl::bloodraven_job(g, verify_job_name(name), labels, owner, verify_args(run, backup.name), 0,
                                        g.spec.backup->active_deadline_seconds, r);
  json& pod = job["spec"]["template"]["spec"];
  json& c = pod["containers"][0];
  c["name"] = "verify";
  json scratch = {{"name", "scratch"}, {"emptyDir", json::object()}};
  if (run.storage && !run.storage->size.empty()) scratch["emptyDir"]["sizeLimit"] = run.storage->size;
  pod["volumes"].push_back(scratch);
  c["volumeMounts"].push_back({{"name", "scratch"}, {"mountPath", scratch_mount}});
  for (const auto& e : backup_ctl::storage_env(p.storage, "BLOODRAVEN_BACKUP")) c["env"].push_back(e);
  backup_ctl::add_storage_volume(p.storage, pod, c, "backup-storage");
  const bool replays = run.point_in_time && run.point_in_time->mode != config::verification_pitr_mode::none;
  if (replays)
    if (const auto* a = render::pitr_profile(g.spec)) {
      for (const auto& e : render::storage_env(a->storage, "BLOODRAVEN_PITR", pitr_mount, pitr_creds_dir))
        c["env"].push_back(e);
      backup_ctl::add_storage_volume(a->storage, pod, c, "pitr-archive", pitr_mount, pitr_creds_dir);
    }
  backup_ctl::add_mysql_tls(g, pod, c, true);
  return job;
}

json render_verify_cronjob(const config::failover_group& g, const config::backup_profile_spec& p,
                           const config::verification_spec& v, const backup_ctl::render_settings& r) {
  // The backup schedule's CronJob with the verification's timing, then made ours.
  config::backup_schedule_spec s;
  s.name = "verify-" + p.name;
  s.profile_name = p.name;
  s.schedule = v.schedule;
  s.time_zone = v.time_zone;
  s.suspend = v.suspend;
  s.starting_deadline_seconds = v.starting_deadline_seconds;
  s.concurrency = v.concurrency;
  s.successful_jobs_history_limit = v.successful_jobs_history_limit;
  s.failed_jobs_history_limit = v.failed_jobs_history_limit;
  json cj = backup_ctl::render_cronjob(g, s, r);
  json labels = render::standard_labels(g.metadata.name);
  labels[std::string{backup_ctl::label_component}] = "verify-schedule";
  labels[std::string{label_verify_profile}] = p.name;
  cj["metadata"]["name"] = verify_cronjob_name(g.metadata.name, p.name);
  cj["metadata"]["labels"] = labels;
  json& spec = cj["spec"];
  spec["jobTemplate"]["metadata"]["labels"] = labels;
  spec["jobTemplate"]["spec"]["template"]["metadata"]["labels"] = labels;
  json& c = spec["jobTemplate"]["spec"]["template"]["spec"]["containers"][0];
  c["name"] = "trigger-verification";
  c["args"] = json::array({"trigger-verification", "--namespace", g.metadata.namespace_name, "--group",
                           g.metadata.name, "--profile", p.name, "--triggered-by", "schedule/" + s.name});
  cj["metadata"]["annotations"][std::string{backup_ctl::annotation_spec_hash}] = render::content_hash(spec.dump());
  return cj;
}

}  // namespace br::verify_ctl
