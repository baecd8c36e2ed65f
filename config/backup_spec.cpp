// spec.backup: enum names, helpers, strict JSON reading and canonical JSON.
#include "config/backup_spec.hpp"

#include <charconv>

#include "config/json_reader.hpp"

namespace br::config {

std::string_view to_string(backup_storage_type t) {
  switch (t) {
    case backup_storage_type::s3: return "S3";
    case backup_storage_type::pvc: return "PVC";
    default: return "";
  }
}

std::string_view to_string(concurrency_policy p) {
  switch (p) {
    case concurrency_policy::allow: return "Allow";
    case concurrency_policy::replace: return "Replace";
    default: return "Forbid";
  }
}

retention_policy_spec effective_retention(const backup_profile_spec& p) {
  if (p.retention_policy) return *p.retention_policy;
  retention_policy_spec r;
  r.count = p.retention.value_or(7);
  r.min_keep = 1;
  r.max_failed_keep = 10;
  return r;
}

const backup_profile_spec* find_profile(const backup_spec& spec, std::string_view name) {
  for (const auto& p : spec.profiles)
    if (p.name == name) return &p;
  return nullptr;
}

std::optional<std::int64_t> parse_binlog_size(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t mult = 1;
  switch (text.back()) {
    case 'K': case 'k': mult = 1024; break;
    case 'M': case 'm': mult = 1024 * 1024; break;
    case 'G': case 'g': mult = 1024 * 1024 * 1024; break;
    default: break;
  }
  if (mult != 1) text.remove_suffix(1);
  std::int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || n < 0 ||
      n > (std::int64_t{1} << 40))
    return std::nullopt;
  return n * mult;
}

// ---- reading -------------------------------------------------------------------------------

void read(const json& v, const std::string& path, backup_storage_type& out, field_errors& errs) {
  read_enum(v, path, out, {{"S3", backup_storage_type::s3}, {"PVC", backup_storage_type::pvc}},
            errs);
}

void read(const json& v, const std::string& path, concurrency_policy& out, field_errors& errs) {
  read_enum(v, path, out,
            {{"Allow", concurrency_policy::allow},
             {"Forbid", concurrency_policy::forbid},
             {"Replace", concurrency_policy::replace}},
            errs);
}

void read(const json& v, const std::string& path, s3_storage_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("bucket", out.bucket)
      .field("prefix", out.prefix)
      .field("region", out.region)
      .field("endpointURL", out.endpoint_url)
      .field("forcePathStyle", out.force_path_style)
      .field("credentialsSecret", out.credentials_secret)
      .field("storageClass", out.storage_class)
      .done();
}

void read(const json& v, const std::string& path, pvc_storage_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("claimName", out.claim_name)
      .field("subPath", out.sub_path)
      .field("storageClassName", out.storage_class_name)
      .field("size", out.size)
      .done();
}

void read(const json& v, const std::string& path, backup_storage_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("type", out.type).field("s3", out.s3).field("pvc", out.pvc).done();
}

void read(const json& v, const std::string& path, retention_policy_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("count", out.count)
      .field("maxAgeDays", out.max_age_days)
      .field("minKeep", out.min_keep)
      .field("maxFailedKeep", out.max_failed_keep)
      .done();
}

void read(const json& v, const std::string& path, backup_profile_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("name", out.name)
      .field("storage", out.storage)
      .field("retention", out.retention)
      .field("retentionPolicy", out.retention_policy)
      .field("dump", out.dump)
      .field("verification", out.verification)
      .field("encryption", out.encryption)
      .done();
}

void read(const json& v, const std::string& path, backup_schedule_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("name", out.name)
      .field("profileName", out.profile_name)
      .field("schedule", out.schedule)
      .field("timeZone", out.time_zone)
      .field("suspend", out.suspend)
      .field("startingDeadlineSeconds", out.starting_deadline_seconds)
      .field("concurrencyPolicy", out.concurrency)
      .field("successfulJobsHistoryLimit", out.successful_jobs_history_limit)
      .field("failedJobsHistoryLimit", out.failed_jobs_history_limit)
      .done();
}

void read(const json& v, const std::string& path, pitr_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("enabled", out.enabled)
      .field("profileName", out.profile_name)
      .field("maxBinlogSize", out.max_binlog_size)
      .field("archivePollInterval", out.archive_poll_interval)
      .done();
}

void read(const json& v, const std::string& path, backup_spec& out, field_errors& errs) {
  json_reader r{v, path, errs};
  r.field("image", out.image)
      .field("profiles", out.profiles)
      .field("schedules", out.schedules)
      .field("maxLagSecondsForSource", out.max_lag_seconds_for_source)
      .field("activeDeadlineSeconds", out.active_deadline_seconds)
      .field("backoffLimit", out.backoff_limit)
      .field("pitr", out.pitr)
      .field("imagePullSecrets", out.image_pull_secrets)
      .field("resources", out.resources)
      .field("retry", out.retry)
      .field("podSecurityContext", out.pod_security_context)
      .field("containerSecurityContext", out.container_security_context)
      .field("stagingVolumeSizeLimit", out.staging_volume_size_limit)
      .done();
}

// ---- canonical JSON ------------------------------------------------------------------------

namespace {

void put(json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}
void put_raw(json& j, const char* key, const json& v) {
  if (!v.is_null()) j[key] = v;
}

json storage_json(const backup_storage_spec& s) {
  json j = json::object();
  put(j, "type", std::string{to_string(s.type)});
  if (s.s3) {
    json o = json::object();
    put(o, "bucket", s.s3->bucket);
    put(o, "prefix", s.s3->prefix);
    put(o, "region", s.s3->region);
    put(o, "endpointURL", s.s3->endpoint_url);
    if (s.s3->force_path_style) o["forcePathStyle"] = true;
    put(o, "credentialsSecret", s.s3->credentials_secret);
    put(o, "storageClass", s.s3->storage_class);
    j["s3"] = o;
  }
  if (s.pvc) {
    json o = json::object();
    put(o, "claimName", s.pvc->claim_name);
    put(o, "subPath", s.pvc->sub_path);
    put(o, "storageClassName", s.pvc->storage_class_name);
    put(o, "size", s.pvc->size);
    j["pvc"] = o;
  }
  return j;
}

}  // namespace

json to_json(const backup_spec& s) {
  json j = json::object();
  put(j, "image", s.image);
  json profiles = json::array();
  for (const auto& p : s.profiles) {
    json o = {{"name", p.name}, {"storage", storage_json(p.storage)}};
    if (p.retention) o["retention"] = *p.retention;
    if (p.retention_policy)
      o["retentionPolicy"] = {{"count", p.retention_policy->count},
                              {"maxAgeDays", p.retention_policy->max_age_days},
                              {"minKeep", p.retention_policy->min_keep},
                              {"maxFailedKeep", p.retention_policy->max_failed_keep}};
    put_raw(o, "dump", p.dump);
    put_raw(o, "verification", p.verification);
    put_raw(o, "encryption", p.encryption);
    profiles.push_back(o);
  }
  if (!profiles.empty()) j["profiles"] = profiles;
  json schedules = json::array();
  for (const auto& c : s.schedules) {
    json o = {{"name", c.name},
              {"profileName", c.profile_name},
              {"schedule", c.schedule},
              {"timeZone", c.time_zone},
              {"suspend", c.suspend},
              {"concurrencyPolicy", std::string{to_string(c.concurrency)}},
              {"successfulJobsHistoryLimit", c.successful_jobs_history_limit},
              {"failedJobsHistoryLimit", c.failed_jobs_history_limit}};
    if (c.starting_deadline_seconds) o["startingDeadlineSeconds"] = *c.starting_deadline_seconds;
    schedules.push_back(o);
  }
  if (!schedules.empty()) j["schedules"] = schedules;
  j["maxLagSecondsForSource"] = s.max_lag_seconds_for_source;
  j["activeDeadlineSeconds"] = s.active_deadline_seconds;
  j["backoffLimit"] = s.backoff_limit;
  json pitr = {{"enabled", s.pitr.enabled},
               {"maxBinlogSize", s.pitr.max_binlog_size},
               {"archivePollInterval", format_duration(s.pitr.archive_poll_interval)}};
  put(pitr, "profileName", s.pitr.profile_name);
  j["pitr"] = pitr;
  put_raw(j, "imagePullSecrets", s.image_pull_secrets);
  put_raw(j, "resources", s.resources);
  put_raw(j, "retry", s.retry);
  put_raw(j, "podSecurityContext", s.pod_security_context);
  put_raw(j, "containerSecurityContext", s.container_security_context);
  put_raw(j, "stagingVolumeSizeLimit", s.staging_volume_size_limit);
  return j;
}

}  // namespace br::config
