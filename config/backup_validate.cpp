// Validation rules of spec.backup, each error at its field path.
#include <set>

#include "config/backup_spec.hpp"
#include "config/cron.hpp"
#include "config/group_validate.hpp"
#include "config/verification_spec.hpp"

namespace br::config {
namespace {

std::string in_q(std::string_view s) {
  return "\"" + std::string{s} + "\"";
}

const char* dns_hint =
    ": use lowercase letters, digits and '-', starting and ending with a letter or digit, at most "
    "63 characters";

struct backup_checker {
  const backup_spec& spec;
  const std::string& root;
  field_errors& errs;

  void fail(std::string path, std::string message) {
    errs.push_back({std::move(path), std::move(message)});
  }

  void not_implemented(const std::string& path, const nlohmann::json& v, const std::string& why) {
    if (!v.is_null()) fail(path, "not implemented yet: " + why + "; remove the field");
  }

  void name(const std::string& path, const std::string& n, std::set<std::string>& seen,
            const char* what) {
    if (n.empty())
      fail(path, "required");
    else if (!is_dns_label(n))
      fail(path, std::string{"invalid "} + what + " name " + in_q(n) + dns_hint);
    else if (!seen.insert(n).second)
      fail(path, std::string{"duplicate "} + what + " name " + in_q(n));
  }

  void non_negative(const std::string& path, std::int64_t v) {
    if (v < 0) fail(path, "must be at least 0, got " + std::to_string(v));
  }

  void storage(const std::string& path, const backup_storage_spec& s) {
    switch (s.type) {
      case backup_storage_type::none:
        fail(path + ".type", "required: \"S3\" or \"PVC\"");
        break;
      case backup_storage_type::s3:
        if (!s.s3) {
          fail(path + ".s3", "required when type is S3 (bucket, credentialsSecret)");
          break;
        }
        if (s.s3->bucket.empty()) fail(path + ".s3.bucket", "required");
        if (s.s3->credentials_secret.empty())
          fail(path + ".s3.credentialsSecret",
               "required: the Secret holding AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
        else if (!is_dns_label_or_subdomain(s.s3->credentials_secret))
          fail(path + ".s3.credentialsSecret",
               "invalid Secret name " + in_q(s.s3->credentials_secret));
        if (!s.s3->endpoint_url.empty() && !s.s3->endpoint_url.starts_with("http://") &&
            !s.s3->endpoint_url.starts_with("https://"))
          fail(path + ".s3.endpointURL", "must start with http:// or https://, got " +
                                             in_q(s.s3->endpoint_url));
        if (!s.s3->storage_class.empty())
          fail(path + ".s3.storageClass",
               "not implemented yet: objects are written with the bucket's default storage "
               "class; remove the field");
        if (s.pvc) fail(path + ".pvc", "only used when type is PVC; remove it");
        break;
      case backup_storage_type::pvc:
        if (!s.pvc) {
          fail(path + ".pvc", "required when type is PVC (claimName)");
          break;
        }
        if (s.pvc->claim_name.empty())
          fail(path + ".pvc.claimName",
               "required: provisioning the claim is not implemented yet; name an existing "
               "ReadWriteMany PersistentVolumeClaim");
        else if (!is_dns_label_or_subdomain(s.pvc->claim_name))
          fail(path + ".pvc.claimName", "invalid claim name " + in_q(s.pvc->claim_name));
        if (s.pvc->sub_path.starts_with("/") || s.pvc->sub_path.find("..") != std::string::npos)
          fail(path + ".pvc.subPath", "must be a relative path without \"..\", got " +
                                          in_q(s.pvc->sub_path));
        if (!s.pvc->storage_class_name.empty())
          fail(path + ".pvc.storageClassName",
               "not implemented yet: the operator does not provision backup claims; remove the "
               "field");
        if (!s.pvc->size.empty())
          fail(path + ".pvc.size",
               "not implemented yet: the operator does not provision backup claims; remove the "
               "field");
        if (s.s3) fail(path + ".s3", "only used when type is S3; remove it");
        break;
    }
  }

  void profiles() {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < spec.profiles.size(); ++i) {
      const auto& p = spec.profiles[i];
      std::string at = root + ".profiles[" + std::to_string(i) + "]";
      name(at + ".name", p.name, seen, "profile");
      storage(at + ".storage", p.storage);
      if (p.retention && p.retention_policy)
        fail(at + ".retention", "set either retention or retentionPolicy, not both");
      if (p.retention && *p.retention < 1)
        fail(at + ".retention", "must be at least 1, got " + std::to_string(*p.retention));
      if (p.retention_policy) {
        const auto& r = *p.retention_policy;
        std::string rp = at + ".retentionPolicy";
        non_negative(rp + ".count", r.count);
        non_negative(rp + ".maxAgeDays", r.max_age_days);
        non_negative(rp + ".maxFailedKeep", r.max_failed_keep);
        if (r.min_keep < 1)
          fail(rp + ".minKeep", "must be at least 1 (the newest backup is never deleted), got " +
                                    std::to_string(r.min_keep));
      }
      not_implemented(at + ".dump", p.dump,
                      "backups are taken by the operator's own method (docs/architecture.md "
                      "\"Backups\"), without mysqlsh dump options");
      if (!p.verification.is_null()) {
        verification_spec v;
        auto before = errs.size();
        read(p.verification, at + ".verification", v, errs);
        if (errs.size() == before)
          validate_verification(v, at + ".verification", spec.pitr.enabled ? spec.pitr.profile_name : "", errs);
      }
      not_implemented(at + ".encryption", p.encryption, "backups are not encrypted by the operator");
    }
  }

  void schedules() {
    std::set<std::string> seen;
    for (std::size_t i = 0; i < spec.schedules.size(); ++i) {
      const auto& s = spec.schedules[i];
      std::string at = root + ".schedules[" + std::to_string(i) + "]";
      name(at + ".name", s.name, seen, "schedule");
      if (s.profile_name.empty())
        fail(at + ".profileName", "required");
      else if (!find_profile(spec, s.profile_name))
        fail(at + ".profileName", "unknown profile " + in_q(s.profile_name) +
                                      ": not in spec.backup.profiles");
      if (s.schedule.empty())
        fail(at + ".schedule", "required (5-field cron, e.g. \"0 3 * * *\")");
      else if (auto e = check_cron(s.schedule); !e.empty())
        fail(at + ".schedule", "invalid cron " + in_q(s.schedule) + ": " + e);
      if (!plausible_time_zone(s.time_zone))
        fail(at + ".timeZone", "invalid time zone " + in_q(s.time_zone) +
                                   ": expected an IANA name such as \"Etc/UTC\"");
      if (s.starting_deadline_seconds) non_negative(at + ".startingDeadlineSeconds",
                                                    *s.starting_deadline_seconds);
      non_negative(at + ".successfulJobsHistoryLimit", s.successful_jobs_history_limit);
      non_negative(at + ".failedJobsHistoryLimit", s.failed_jobs_history_limit);
    }
  }

  void job() {
    if (spec.max_lag_seconds_for_source < 0 || spec.max_lag_seconds_for_source > 604800)
      fail(root + ".maxLagSecondsForSource",
           "must be between 0 and 604800, got " + std::to_string(spec.max_lag_seconds_for_source));
    if (spec.active_deadline_seconds < 60)
      fail(root + ".activeDeadlineSeconds",
           "must be at least 60, got " + std::to_string(spec.active_deadline_seconds));
    if (spec.backoff_limit < 0 || spec.backoff_limit > 10)
      fail(root + ".backoffLimit",
           "must be between 0 and 10, got " + std::to_string(spec.backoff_limit));
    not_implemented(root + ".imagePullSecrets", spec.image_pull_secrets,
                    "the backup Jobs use the group namespace's default pull credentials");
    not_implemented(root + ".resources", spec.resources,
                    "the backup Jobs run without resource requests or limits");
    not_implemented(root + ".retry", spec.retry,
                    "a failed backup is not retried by the operator (the Job's backoffLimit "
                    "retries its pod)");
    not_implemented(root + ".podSecurityContext", spec.pod_security_context,
                    "the backup Jobs run with the operator's fixed secure context");
    not_implemented(root + ".containerSecurityContext", spec.container_security_context,
                    "the backup Jobs run with the operator's fixed secure context");
    not_implemented(root + ".stagingVolumeSizeLimit", spec.staging_volume_size_limit,
                    "the backup Job has no staging volume");
  }

  void pitr() {
    const auto& p = spec.pitr;
    std::string at = root + ".pitr";
    if (p.enabled) {
      if (p.profile_name.empty())
        fail(at + ".profileName", "required when PITR is enabled");
      else if (!find_profile(spec, p.profile_name))
        fail(at + ".profileName",
             "unknown profile " + in_q(p.profile_name) + ": not in spec.backup.profiles");
    } else if (!p.profile_name.empty() && !find_profile(spec, p.profile_name)) {
      fail(at + ".profileName",
           "unknown profile " + in_q(p.profile_name) + ": not in spec.backup.profiles");
    }
    auto size = parse_binlog_size(p.max_binlog_size);
    if (!size)
      fail(at + ".maxBinlogSize",
           "invalid size " + in_q(p.max_binlog_size) + ": expected bytes or a K, M or G suffix");
    else if (*size < 4096 || *size > 1073741824)
      fail(at + ".maxBinlogSize",
           "must be between 4096 and 1G (MySQL's max_binlog_size range), got " +
               in_q(p.max_binlog_size));
    if (p.archive_poll_interval < std::chrono::seconds(1) ||
        p.archive_poll_interval > std::chrono::hours(1))
      fail(at + ".archivePollInterval",
           "must be between 1s and 1h, got " + format_duration(p.archive_poll_interval));
  }
};

}  // namespace

void validate_storage(const backup_storage_spec& storage, const std::string& path,
                      field_errors& errs) {
  backup_spec none;
  backup_checker c{none, path, errs};
  c.storage(path, storage);
}

void validate_backup(const backup_spec& spec, const std::string& path, field_errors& errs) {
  backup_checker c{spec, path, errs};
  c.profiles();
  c.schedules();
  c.job();
  c.pitr();
}

}  // namespace br::config
