// spec.backup (issue 21, acceptance 4): parsing, defaults, and one table row per validation rule,
// each with its exact field path; plus the 5-field cron check and the retention shorthand.
#include <boost/test/unit_test.hpp>
#include <functional>

#include "config/backup_spec.hpp"
#include "config/cron.hpp"
#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br::config;
using config_spec_test::find_error;
using json = nlohmann::json;

namespace {

std::string dump(const field_errors& errs) {
  return errs.empty() ? "(none)" : to_string(errs);
}

json s3_profile(const std::string& name) {
  return {{"name", name},
          {"storage",
           {{"type", "S3"},
            {"s3", {{"bucket", "b"}, {"credentialsSecret", "aws"}, {"endpointURL", "http://s3:9000"}}}}}};
}

/// A valid group with a valid spec.backup (two profiles, one schedule, PITR on).
json base() {
  field_errors errs;
  auto j = yaml_to_json(config_spec_test::kube_base_yaml, errs);
  BOOST_TEST_REQUIRE(errs.empty(), dump(errs));
  j["spec"]["backup"] = {
      {"profiles",
       json::array({s3_profile("s3"),
                    {{"name", "vol"},
                     {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "backups"}}}}},
                     {"retentionPolicy", {{"count", 3}, {"maxAgeDays", 7}}}}})},
      {"schedules", json::array({{{"name", "nightly"}, {"profileName", "s3"},
                                  {"schedule", "0 3 * * *"}}})},
      {"pitr", {{"enabled", true}, {"profileName", "s3"}}}};
  return j;
}

field_errors load(const json& doc) {
  auto res = parse_group(doc);
  auto more = validate(res.group, run_mode::kubernetes);
  res.errors.insert(res.errors.end(), more.begin(), more.end());
  return res.errors;
}

std::function<void(json&)> set(const char* pointer, json value) {
  return [p = json::json_pointer{pointer}, value](json& doc) { doc[p] = value; };
}

std::function<void(json&)> erase(const char* pointer) {
  return
      [p = json::json_pointer{pointer}](json& doc) { doc.at(p.parent_pointer()).erase(p.back()); };
}

struct row {
  const char* rule;
  std::vector<std::function<void(json&)>> edits;
  const char* path;      // "" = must validate cleanly
  const char* fragment;  // expected in the message
};

}  // namespace

BOOST_AUTO_TEST_SUITE(backup_spec_rules)

BOOST_AUTO_TEST_CASE(base_is_valid_and_defaults_are_the_references) {
  auto doc = base();
  BOOST_TEST(load(doc).empty(), dump(load(doc)));
  auto g = parse_group(doc).group;
  BOOST_TEST_REQUIRE(g.spec.backup.has_value());
  const auto& b = *g.spec.backup;
  BOOST_TEST(b.max_lag_seconds_for_source == 300);
  BOOST_TEST(b.active_deadline_seconds == 7200);
  BOOST_TEST(b.backoff_limit == 2);
  BOOST_TEST(b.schedules[0].time_zone == "Etc/UTC");
  BOOST_TEST((b.schedules[0].concurrency == concurrency_policy::forbid));
  BOOST_TEST(b.schedules[0].successful_jobs_history_limit == 3);
  BOOST_TEST(b.pitr.max_binlog_size == "100M");
  BOOST_TEST(b.pitr.archive_poll_interval.count() == duration{std::chrono::seconds(60)}.count());
  // Legacy retention (default 7) and the explicit policy.
  auto legacy = effective_retention(b.profiles[0]);
  BOOST_TEST(legacy.count == 7);
  BOOST_TEST(legacy.min_keep == 1);
  BOOST_TEST(legacy.max_failed_keep == 10);
  auto explicit_policy = effective_retention(b.profiles[1]);
  BOOST_TEST(explicit_policy.count == 3);
  BOOST_TEST(explicit_policy.max_age_days == 7);
  BOOST_TEST(explicit_policy.min_keep == 1);
  // Canonical JSON reads back to the same value.
  field_errors errs;
  backup_spec again;
  read(to_json(b), "spec.backup", again, errs);
  BOOST_TEST(errs.empty(), dump(errs));
  BOOST_TEST((again == b));
}

BOOST_AUTO_TEST_CASE(every_rule_reports_its_path) {
  const row rows[] = {
      {"cron with 4 fields", {set("/spec/backup/schedules/0/schedule", "0 3 * *")},
       "spec.backup.schedules[0].schedule", "expected 5 fields"},
      {"cron with 6 fields", {set("/spec/backup/schedules/0/schedule", "0 0 3 * * *")},
       "spec.backup.schedules[0].schedule", "expected 5 fields"},
      {"cron hour out of range", {set("/spec/backup/schedules/0/schedule", "0 24 * * *")},
       "spec.backup.schedules[0].schedule", "hour: 24 is out of range 0-23"},
      {"cron minute not a number", {set("/spec/backup/schedules/0/schedule", "x 3 * * *")},
       "spec.backup.schedules[0].schedule", "minute: \"x\" is not a number"},
      {"cron bad step", {set("/spec/backup/schedules/0/schedule", "*/0 3 * * *")},
       "spec.backup.schedules[0].schedule", "minute: invalid step"},
      {"cron month out of range", {set("/spec/backup/schedules/0/schedule", "0 3 1 13 *")},
       "spec.backup.schedules[0].schedule", "month: 13 is out of range 1-12"},
      {"cron reversed range", {set("/spec/backup/schedules/0/schedule", "0 5-2 * * *")},
       "spec.backup.schedules[0].schedule", "ends before it starts"},
      {"cron unknown macro", {set("/spec/backup/schedules/0/schedule", "@sometimes")},
       "spec.backup.schedules[0].schedule", "unknown macro"},
      {"cron names and lists", {set("/spec/backup/schedules/0/schedule", "0,30 1-5/2 ? JAN-MAR mon-fri")},
       "", ""},
      {"cron macro", {set("/spec/backup/schedules/0/schedule", "@daily")}, "", ""},
      {"schedule missing", {erase("/spec/backup/schedules/0/schedule")},
       "spec.backup.schedules[0].schedule", "required"},
      {"schedule unknown profile", {set("/spec/backup/schedules/0/profileName", "tape")},
       "spec.backup.schedules[0].profileName", "unknown profile \"tape\""},
      {"pitr unknown profile", {set("/spec/backup/pitr/profileName", "tape")},
       "spec.backup.pitr.profileName", "unknown profile \"tape\""},
      {"pitr enabled without profile", {erase("/spec/backup/pitr/profileName")},
       "spec.backup.pitr.profileName", "required when PITR is enabled"},
      {"pitr binlog size malformed", {set("/spec/backup/pitr/maxBinlogSize", "big")},
       "spec.backup.pitr.maxBinlogSize", "invalid size"},
      {"pitr binlog size too large", {set("/spec/backup/pitr/maxBinlogSize", "2G")},
       "spec.backup.pitr.maxBinlogSize", "between 4096 and 1G"},
      {"pitr poll interval", {set("/spec/backup/pitr/archivePollInterval", "2h")},
       "spec.backup.pitr.archivePollInterval", "between 1s and 1h"},
      {"s3 without bucket", {erase("/spec/backup/profiles/0/storage/s3/bucket")},
       "spec.backup.profiles[0].storage.s3.bucket", "required"},
      {"s3 without credentials", {erase("/spec/backup/profiles/0/storage/s3/credentialsSecret")},
       "spec.backup.profiles[0].storage.s3.credentialsSecret", "required"},
      {"s3 block missing", {erase("/spec/backup/profiles/0/storage/s3")},
       "spec.backup.profiles[0].storage.s3", "required when type is S3"},
      {"s3 endpoint scheme", {set("/spec/backup/profiles/0/storage/s3/endpointURL", "s3:9000")},
       "spec.backup.profiles[0].storage.s3.endpointURL", "http://"},
      {"s3 storageClass refused", {set("/spec/backup/profiles/0/storage/s3/storageClass", "GLACIER")},
       "spec.backup.profiles[0].storage.s3.storageClass", "not implemented yet"},
      {"storage type missing", {erase("/spec/backup/profiles/0/storage/type")},
       "spec.backup.profiles[0].storage.type", "required"},
      {"storage type unknown", {set("/spec/backup/profiles/0/storage/type", "GCS")},
       "spec.backup.profiles[0].storage.type", "unsupported value \"GCS\""},
      {"pvc without claim", {erase("/spec/backup/profiles/1/storage/pvc/claimName")},
       "spec.backup.profiles[1].storage.pvc.claimName", "required"},
      {"pvc subPath escapes", {set("/spec/backup/profiles/1/storage/pvc/subPath", "../x")},
       "spec.backup.profiles[1].storage.pvc.subPath", "relative path"},
      {"pvc size refused", {set("/spec/backup/profiles/1/storage/pvc/size", "10Gi")},
       "spec.backup.profiles[1].storage.pvc.size", "not implemented yet"},
      {"duplicate profile", {set("/spec/backup/profiles/1/name", "s3")},
       "spec.backup.profiles[1].name", "duplicate profile name \"s3\""},
      {"profile not a DNS label", {set("/spec/backup/profiles/1/name", "S3_Prof")},
       "spec.backup.profiles[1].name", "invalid profile name \"S3_Prof\""},
      {"profile name missing", {erase("/spec/backup/profiles/1/name")},
       "spec.backup.profiles[1].name", "required"},
      {"duplicate schedule",
       {set("/spec/backup/schedules/1", {{"name", "nightly"}, {"profileName", "vol"},
                                         {"schedule", "0 4 * * *"}})},
       "spec.backup.schedules[1].name", "duplicate schedule name \"nightly\""},
      {"schedule not a DNS label", {set("/spec/backup/schedules/0/name", "Nightly!")},
       "spec.backup.schedules[0].name", "invalid schedule name"},
      {"schedule name makes a long CronJob",
       {set("/spec/backup/schedules/0/name", "a-very-long-schedule-name-for-nightly-runs")},
       "spec.backup.schedules[0].name", "longer than 52 characters"},
      {"time zone", {set("/spec/backup/schedules/0/timeZone", "../etc/passwd")},
       "spec.backup.schedules[0].timeZone", "invalid time zone"},
      {"concurrency policy", {set("/spec/backup/schedules/0/concurrencyPolicy", "Sometimes")},
       "spec.backup.schedules[0].concurrencyPolicy", "unsupported value"},
      {"history limit", {set("/spec/backup/schedules/0/failedJobsHistoryLimit", -1)},
       "spec.backup.schedules[0].failedJobsHistoryLimit", "at least 0"},
      {"retention and policy", {set("/spec/backup/profiles/1/retention", 3)},
       "spec.backup.profiles[1].retention", "not both"},
      {"retention zero", {set("/spec/backup/profiles/0/retention", 0)},
       "spec.backup.profiles[0].retention", "at least 1"},
      {"minKeep zero", {set("/spec/backup/profiles/1/retentionPolicy/minKeep", 0)},
       "spec.backup.profiles[1].retentionPolicy.minKeep", "at least 1"},
      {"negative count", {set("/spec/backup/profiles/1/retentionPolicy/count", -2)},
       "spec.backup.profiles[1].retentionPolicy.count", "at least 0"},
      {"activeDeadlineSeconds", {set("/spec/backup/activeDeadlineSeconds", 30)},
       "spec.backup.activeDeadlineSeconds", "at least 60"},
      {"backoffLimit", {set("/spec/backup/backoffLimit", 11)}, "spec.backup.backoffLimit",
       "between 0 and 10"},
      {"maxLagSecondsForSource", {set("/spec/backup/maxLagSecondsForSource", -1)},
       "spec.backup.maxLagSecondsForSource", "between 0 and 604800"},
      // Members we do not implement: refused at their path.
      {"dump options", {set("/spec/backup/profiles/0/dump", {{"threads", 8}})},
       "spec.backup.profiles[0].dump", "not implemented yet"},
      {"encryption", {set("/spec/backup/profiles/0/encryption", {{"algorithm", "AES-256-GCM"}})},
       "spec.backup.profiles[0].encryption", "not implemented yet"},
      // Verification (config/verification_spec.*): each rule at its path; unimplemented refused.
      {"verification accepted",
       {set("/spec/backup/profiles/0/verification",
            {{"enabled", true}, {"schedule", "0 5 * * *"}, {"keepOnFailure", false},
             {"storage", {{"size", "20Gi"}}}, {"retentionPolicy", {{"keepSuccessful", 3}, {"keepFailures", 1}}},
             {"sanityCheck", {{"query", "SELECT 1"}, {"expect", {{"minRows", 1}, {"maxDurationSeconds", 30}}}}},
             {"pointInTime", {{"mode", "latest"}}}})},
       "", ""},
      {"verification enabled without schedule", {set("/spec/backup/profiles/0/verification", {{"enabled", true}})},
       "spec.backup.profiles[0].verification.schedule", "required when enabled"},
      {"verification cron", {set("/spec/backup/profiles/0/verification", {{"schedule", "61 * * * *"}})},
       "spec.backup.profiles[0].verification.schedule", "invalid cron"},
      {"verification time zone", {set("/spec/backup/profiles/0/verification", {{"timeZone", "../etc"}})},
       "spec.backup.profiles[0].verification.timeZone", "invalid time zone"},
      {"verification concurrency Allow",
       {set("/spec/backup/profiles/0/verification", {{"concurrencyPolicy", "Allow"}})},
       "spec.backup.profiles[0].verification.concurrencyPolicy", "not supported"},
      {"verification keepSuccessful", {set("/spec/backup/profiles/0/verification", {{"retentionPolicy", {{"keepSuccessful", 0}}}})},
       "spec.backup.profiles[0].verification.retentionPolicy.keepSuccessful", "at least 1"},
      {"verification keepFailures", {set("/spec/backup/profiles/0/verification", {{"retentionPolicy", {{"keepFailures", -1}}}})},
       "spec.backup.profiles[0].verification.retentionPolicy.keepFailures", "at least 0"},
      {"verification storageClassName",
       {set("/spec/backup/profiles/0/verification", {{"storage", {{"storageClassName", "fast"}}}})},
       "spec.backup.profiles[0].verification.storage.storageClassName", "not implemented yet"},
      {"verification storage size", {set("/spec/backup/profiles/0/verification", {{"storage", {{"size", "lots"}}}})},
       "spec.backup.profiles[0].verification.storage.size", "invalid quantity"},
      {"verification ttl", {set("/spec/backup/profiles/0/verification", {{"ttlSecondsAfterFinished", 60}})},
       "spec.backup.profiles[0].verification.ttlSecondsAfterFinished", "not implemented yet"},
      {"verification resources", {set("/spec/backup/profiles/0/verification", {{"resources", {{"limits", {{"cpu", "1"}}}}}})},
       "spec.backup.profiles[0].verification.resources", "not implemented yet"},
      {"verification sanity query", {set("/spec/backup/profiles/0/verification", {{"sanityCheck", {{"query", " "}}}})},
       "spec.backup.profiles[0].verification.sanityCheck.query", "required"},
      {"verification minRows", {set("/spec/backup/profiles/0/verification",
                                    {{"sanityCheck", {{"query", "SELECT 1"}, {"expect", {{"minRows", -1}}}}}})},
       "spec.backup.profiles[0].verification.sanityCheck.expect.minRows", "at least 0"},
      {"verification maxDurationSeconds", {set("/spec/backup/profiles/0/verification",
                                               {{"sanityCheck", {{"query", "SELECT 1"}, {"expect", {{"maxDurationSeconds", 0}}}}}})},
       "spec.backup.profiles[0].verification.sanityCheck.expect.maxDurationSeconds", "between 1 and 86400"},
      {"verification timestamp missing", {set("/spec/backup/profiles/0/verification", {{"pointInTime", {{"mode", "timestamp"}}}})},
       "spec.backup.profiles[0].verification.pointInTime.timestamp", "required"},
      {"verification timestamp malformed",
       {set("/spec/backup/profiles/0/verification", {{"pointInTime", {{"mode", "timestamp"}, {"timestamp", "noon"}}}})},
       "spec.backup.profiles[0].verification.pointInTime.timestamp", "invalid time"},
      {"verification timestamp without its mode",
       {set("/spec/backup/profiles/0/verification", {{"pointInTime", {{"mode", "none"}, {"timestamp", "2026-11-26T14:03:00Z"}}}})},
       "spec.backup.profiles[0].verification.pointInTime.timestamp", "only used"},
      {"verification replay without PITR",
       {set("/spec/backup/profiles/0/verification", {{"pointInTime", {{"mode", "latest"}}}}),
        set("/spec/backup/pitr", {{"enabled", false}})},
       "spec.backup.profiles[0].verification.pointInTime.mode", "needs spec.backup.pitr.enabled"},
      {"verification pointInTime mode", {set("/spec/backup/profiles/0/verification", {{"pointInTime", {{"mode", "sometime"}}}})},
       "spec.backup.profiles[0].verification.pointInTime.mode", "unsupported value"},
      {"verification CronJob name too long",
       {set("/spec/backup/profiles/0/name", std::string(40, 'p')), set("/spec/backup/schedules/0/profileName", std::string(40, 'p')),
        set("/spec/backup/pitr/profileName", std::string(40, 'p')),
        set("/spec/backup/profiles/0/verification", {{"enabled", true}, {"schedule", "0 5 * * *"}})},
       "spec.backup.profiles[0].name", "verification CronJob name"},
      {"verification unknown member", {set("/spec/backup/profiles/0/verification", {{"enable", true}})},
       "spec.backup.profiles[0].verification.enable", ""},
      {"retry", {set("/spec/backup/retry", {{"maxAttempts", 3}})}, "spec.backup.retry",
       "not implemented yet"},
      {"imagePullSecrets", {set("/spec/backup/imagePullSecrets", json::array({{{"name", "r"}}}))},
       "spec.backup.imagePullSecrets", "not implemented yet"},
      {"resources", {set("/spec/backup/resources", {{"limits", {{"cpu", "1"}}}})},
       "spec.backup.resources", "not implemented yet"},
      {"podSecurityContext", {set("/spec/backup/podSecurityContext", json::object())},
       "spec.backup.podSecurityContext", "not implemented yet"},
      {"stagingVolumeSizeLimit", {set("/spec/backup/stagingVolumeSizeLimit", "1Gi")},
       "spec.backup.stagingVolumeSizeLimit", "not implemented yet"},
      {"unknown member", {set("/spec/backup/schedulez", json::array())}, "spec.backup.schedulez",
       ""},
      {"image accepted", {set("/spec/backup/image", "reg/bloodraven:2")}, "", ""},
      {"pitr disabled needs no profile",
       {set("/spec/backup/pitr", {{"enabled", false}})}, "", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      auto doc = base();
      for (const auto& e : r.edits) e(doc);
      auto errs = load(doc);
      if (std::string{r.path}.empty()) {
        BOOST_TEST(errs.empty(), dump(errs));
      } else {
        BOOST_TEST(find_error(errs, r.path, r.fragment) != nullptr, dump(errs));
        BOOST_TEST(errs.size() == 1u, dump(errs));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(cron_fields) {
  BOOST_TEST(check_cron("*/15 * * * *").empty());
  BOOST_TEST(check_cron("0 0 31 12 7").empty());
  BOOST_TEST(check_cron("59 23 1-31/2 1,6,12 SUN").empty());
  BOOST_TEST(check_cron("0 0 0 * *") == "day of month: 0 is out of range 1-31");
  BOOST_TEST(check_cron("0 0 * * 8") == "day of week: 8 is out of range 0-7");
  BOOST_TEST(check_cron("60 * * * *") == "minute: 60 is out of range 0-59");
  BOOST_TEST(check_cron("0 ? * * *") == "hour: \"?\" is not a number");
  BOOST_TEST(check_cron("0 1,,2 * * *").find("empty list item") != std::string::npos);
  BOOST_TEST(check_cron("").find("expected 5 fields") != std::string::npos);
  BOOST_TEST(check_cron("0 3 * * FOO") == "day of week: \"FOO\" is not a number");
}

BOOST_AUTO_TEST_CASE(binlog_sizes) {
  BOOST_TEST(*parse_binlog_size("100M") == 100 * 1024 * 1024);
  BOOST_TEST(*parse_binlog_size("4096") == 4096);
  BOOST_TEST(*parse_binlog_size("1G") == 1073741824);
  BOOST_TEST(!parse_binlog_size("").has_value());
  BOOST_TEST(!parse_binlog_size("M").has_value());
  BOOST_TEST(!parse_binlog_size("-1M").has_value());
  BOOST_TEST(!parse_binlog_size("1.5M").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
