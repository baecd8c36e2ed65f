// Backup verification settings: reading, canonical JSON, validation (see verification_spec.hpp).
#include "config/verification_spec.hpp"

#include "config/cron.hpp"
#include "config/json_reader.hpp"
#include "config/pod_spec.hpp"
#include "config/rfc3339.hpp"

namespace br::config {

std::string_view to_string(verification_pitr_mode m) {
  switch (m) {
    case verification_pitr_mode::latest: return "latest";
    case verification_pitr_mode::timestamp: return "timestamp";
    default: return "none";
  }
}

namespace {

std::string in_q(std::string_view s) { return "\"" + std::string{s} + "\""; }

}  // namespace

// Defined in backup_spec.cpp (the schedules' policy).
void read(const json& v, const std::string& path, concurrency_policy& out, field_errors& errs);

void read(const json& v, const std::string& path, verification_pitr_mode& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"none", verification_pitr_mode::none},
             {"latest", verification_pitr_mode::latest},
             {"timestamp", verification_pitr_mode::timestamp}},
            errs);
}

void read(const json& v, const std::string& path, verification_sanity_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("query", out.query);
  if (const json* e = r.take("expect")) {
    json_reader x{*e, r.child("expect"), errs};
    x.field("minRows", out.min_rows).field("maxDurationSeconds", out.max_duration_seconds).done();
  }
  r.done();
}

void read(const json& v, const std::string& path, verification_pitr_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("mode", out.mode).field("timestamp", out.timestamp).done();
}

void read(const json& v, const std::string& path, verification_storage_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("storageClassName", out.storage_class_name).field("size", out.size).done();
}

void read(const json& v, const std::string& path, verification_retention_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("keepSuccessful", out.keep_successful).field("keepFailures", out.keep_failures).done();
}

namespace {

json_reader& run_fields(json_reader& r, verification_run_spec& out) {
  return r.field("storage", out.storage)
      .field("keepOnFailure", out.keep_on_failure)
      .field("ttlSecondsAfterFinished", out.ttl_seconds_after_finished)
      .field("sanityCheck", out.sanity_check)
      .field("pointInTime", out.point_in_time)
      .field("resources", out.resources);
}

void put_run(json& o, const verification_run_spec& r) {
  if (r.storage) {
    json s = json::object();
    if (!r.storage->storage_class_name.empty()) s["storageClassName"] = r.storage->storage_class_name;
    if (!r.storage->size.empty()) s["size"] = r.storage->size;
    o["storage"] = s;
  }
  if (r.keep_on_failure) o["keepOnFailure"] = *r.keep_on_failure;
  if (r.ttl_seconds_after_finished) o["ttlSecondsAfterFinished"] = *r.ttl_seconds_after_finished;
  if (r.sanity_check) {
    json e = {{"minRows", r.sanity_check->min_rows}};
    if (r.sanity_check->max_duration_seconds) e["maxDurationSeconds"] = *r.sanity_check->max_duration_seconds;
    o["sanityCheck"] = {{"query", r.sanity_check->query}, {"expect", e}};
  }
  if (r.point_in_time) {
    json p = {{"mode", std::string{to_string(r.point_in_time->mode)}}};
    if (!r.point_in_time->timestamp.empty()) p["timestamp"] = r.point_in_time->timestamp;
    o["pointInTime"] = p;
  }
  if (!r.resources.is_null()) o["resources"] = r.resources;
}

}  // namespace

void read(const json& v, const std::string& path, verification_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("enabled", out.enabled)
      .field("schedule", out.schedule)
      .field("timeZone", out.time_zone)
      .field("suspend", out.suspend)
      .field("concurrencyPolicy", out.concurrency)
      .field("startingDeadlineSeconds", out.starting_deadline_seconds)
      .field("successfulJobsHistoryLimit", out.successful_jobs_history_limit)
      .field("failedJobsHistoryLimit", out.failed_jobs_history_limit)
      .field("retentionPolicy", out.retention_policy);
  run_fields(r, out.run).done();
}

json to_json(const verification_spec& v) {
  json o = {{"enabled", v.enabled},
            {"timeZone", v.time_zone},
            {"suspend", v.suspend},
            {"concurrencyPolicy", std::string{to_string(v.concurrency)}},
            {"successfulJobsHistoryLimit", v.successful_jobs_history_limit},
            {"failedJobsHistoryLimit", v.failed_jobs_history_limit},
            {"retentionPolicy",
             {{"keepSuccessful", v.retention_policy.keep_successful},
              {"keepFailures", v.retention_policy.keep_failures}}}};
  if (!v.schedule.empty()) o["schedule"] = v.schedule;
  if (v.starting_deadline_seconds) o["startingDeadlineSeconds"] = *v.starting_deadline_seconds;
  put_run(o, v.run);
  return o;
}

backup_verification_spec parse_backup_verification(const json& spec, field_errors& errs) {
  backup_verification_spec out;
  json_reader r{spec, "spec", errs};
  if (const json* g = r.take("failoverGroupRef")) {
    json_reader gr{*g, r.child("failoverGroupRef"), errs};
    gr.field("name", out.group).done();
  }
  r.field("profileName", out.profile_name).field("triggeredBy", out.triggered_by);
  if (const json* b = r.take("backupRef")) {
    json_reader br_{*b, r.child("backupRef"), errs};
    br_.field("name", out.backup_ref).done();
  }
  run_fields(r, out.run).done();
  if (out.group.empty()) errs.push_back({"spec.failoverGroupRef.name", "required"});
  if (out.profile_name.empty()) errs.push_back({"spec.profileName", "required"});
  return out;
}

void validate_verification_run(const verification_run_spec& r, const std::string& path,
                               const std::string& pitr_profile, field_errors& errs) {
  auto fail = [&](const std::string& p, std::string m) { errs.push_back({path + p, std::move(m)}); };
  if (r.storage) {
    if (!r.storage->storage_class_name.empty())
      fail(".storage.storageClassName",
           "not implemented yet: the scratch volume is an emptyDir (storage.size limits it); remove the field");
    if (!r.storage->size.empty()) {
      auto q = parse_quantity(r.storage->size);
      if (!q || *q <= 0) fail(".storage.size", "invalid quantity " + in_q(r.storage->size) + ": expected e.g. 10Gi");
    }
  }
  if (r.ttl_seconds_after_finished && *r.ttl_seconds_after_finished != 0)
    fail(".ttlSecondsAfterFinished",
         "not implemented yet: a verification Job is deleted when it succeeded (kept on failure with "
         "keepOnFailure); remove the field or set 0");
  if (!r.resources.is_null())
    fail(".resources", "not implemented yet: the verification Job runs without resource requests or limits; remove the field");
  if (r.sanity_check) {
    const auto& s = *r.sanity_check;
    if (s.query.empty() || s.query.find_first_not_of(" \t\r\n") == std::string::npos)
      fail(".sanityCheck.query", "required in a sanityCheck");
    else if (s.query.size() > 4096)
      fail(".sanityCheck.query", "at most 4096 characters, got " + std::to_string(s.query.size()));
    if (s.min_rows < 0) fail(".sanityCheck.expect.minRows", "must be at least 0, got " + std::to_string(s.min_rows));
    if (s.max_duration_seconds && (*s.max_duration_seconds < 1 || *s.max_duration_seconds > 86400))
      fail(".sanityCheck.expect.maxDurationSeconds",
           "must be between 1 and 86400, got " + std::to_string(*s.max_duration_seconds));
  }
  if (r.point_in_time) {
    const auto& p = *r.point_in_time;
    if (p.mode != verification_pitr_mode::none && pitr_profile.empty())
      fail(".pointInTime.mode", "\"" + std::string{to_string(p.mode)} +
                                    "\" replays the binlog archive: it needs spec.backup.pitr.enabled with a profileName");
    if (p.mode == verification_pitr_mode::timestamp) {
      if (p.timestamp.empty())
        fail(".pointInTime.timestamp", "required when mode is \"timestamp\" (RFC3339, e.g. 2026-11-26T14:03:00Z)");
      else if (!parse_rfc3339(p.timestamp) || p.timestamp.find('.') != std::string::npos)
        fail(".pointInTime.timestamp", "invalid time " + in_q(p.timestamp) + ": expected RFC3339 in whole seconds");
    } else if (!p.timestamp.empty()) {
      fail(".pointInTime.timestamp", "only used when mode is \"timestamp\"; remove it");
    }
  }
}

void validate_verification(const verification_spec& v, const std::string& path,
                           const std::string& pitr_profile, field_errors& errs) {
  auto fail = [&](const std::string& p, std::string m) { errs.push_back({path + p, std::move(m)}); };
  if (!v.schedule.empty()) {
    if (auto e = check_cron(v.schedule); !e.empty()) fail(".schedule", "invalid cron " + in_q(v.schedule) + ": " + e);
  } else if (v.enabled) {
    fail(".schedule", "required when enabled (5-field cron, e.g. \"0 5 * * *\"); on demand, create a "
                      "MysqlBackupVerification (bloodraven trigger-verification) without enabling");
  }
  if (!plausible_time_zone(v.time_zone))
    fail(".timeZone", "invalid time zone " + in_q(v.time_zone) + ": expected an IANA name such as \"Etc/UTC\"");
  if (v.concurrency == concurrency_policy::allow)
    fail(".concurrencyPolicy", "\"Allow\" is not supported for verifications: use \"Forbid\" or \"Replace\"");
  if (v.starting_deadline_seconds && *v.starting_deadline_seconds < 0)
    fail(".startingDeadlineSeconds", "must be at least 0, got " + std::to_string(*v.starting_deadline_seconds));
  if (v.successful_jobs_history_limit < 0)
    fail(".successfulJobsHistoryLimit", "must be at least 0, got " + std::to_string(v.successful_jobs_history_limit));
  if (v.failed_jobs_history_limit < 0)
    fail(".failedJobsHistoryLimit", "must be at least 0, got " + std::to_string(v.failed_jobs_history_limit));
  if (v.retention_policy.keep_successful < 1)
    fail(".retentionPolicy.keepSuccessful",
         "must be at least 1 (the newest verification is kept), got " + std::to_string(v.retention_policy.keep_successful));
  if (v.retention_policy.keep_failures < 0)
    fail(".retentionPolicy.keepFailures", "must be at least 0, got " + std::to_string(v.retention_policy.keep_failures));
  validate_verification_run(v.run, path, pitr_profile, errs);
}

verification_run_spec effective_run(const verification_run_spec& object, const verification_spec* profile) {
  verification_run_spec out = profile ? profile->run : verification_run_spec{};
  if (object.storage) out.storage = object.storage;
  if (object.keep_on_failure) out.keep_on_failure = object.keep_on_failure;
  if (object.ttl_seconds_after_finished) out.ttl_seconds_after_finished = object.ttl_seconds_after_finished;
  if (object.sanity_check) out.sanity_check = object.sanity_check;
  if (object.point_in_time) out.point_in_time = object.point_in_time;
  if (!object.resources.is_null()) out.resources = object.resources;
  return out;
}

}  // namespace br::config
