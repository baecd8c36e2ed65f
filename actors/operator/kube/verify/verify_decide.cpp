// Pure decisions of the verification controller (see verify_decide.hpp).
#include "actors/operator/kube/verify/verify_decide.hpp"

#include <algorithm>
#include <tuple>

#include "config/rfc3339.hpp"

namespace br::verify_ctl {

std::string verify_job_name(std::string_view verification) { return "mysqlverify-" + std::string{verification}; }

std::string verify_cronjob_name(std::string_view group, std::string_view profile) {
  return "mysql-" + std::string{group} + "-verify-" + std::string{profile};
}

std::optional<config::verification_spec> profile_verification(const config::backup_profile_spec& p) {
  if (p.verification.is_null()) return std::nullopt;
  config::verification_spec v;
  config::field_errors errs;
  read(p.verification, "verification", v, errs);
  if (!errs.empty()) return std::nullopt;
  return v;
}

backup_entry backup_entry_of(const json& b) {
  backup_entry e;
  const json md = b.value("metadata", json::object());
  const json spec = b.value("spec", json::object());
  const json st = b.value("status", json::object());
  e.name = md.value("name", "");
  e.uid = md.value("uid", "");
  e.group = spec.value("failoverGroupRef", json::object()).value("name", "");
  e.profile = spec.value("profileName", "");
  e.phase = st.value("phase", "");
  e.completion_time = st.value("completionTime", "");
  e.location = st.value("location", "");
  e.storage_type = st.value("storageType", "");
  if (md.contains("deletionTimestamp")) e.phase = "Deleting";
  return e;
}

backup_choice choose_backup(const std::vector<backup_entry>& backups, const std::string& group,
                            const std::string& profile, const std::string& backup_ref) {
  backup_choice out;
  if (!backup_ref.empty()) {
    for (const auto& b : backups) {
      if (b.name != backup_ref) continue;
      if (b.group != group || b.profile != profile) {
        out.failed = "spec.backupRef: MysqlBackup " + backup_ref + " belongs to group " + b.group + " profile " +
                     b.profile + ", not " + group + " profile " + profile;
      } else if (b.phase == "Succeeded") {
        out.backup = b;
      } else if (b.phase == "Failed" || b.phase == "Deleting") {
        out.failed = "spec.backupRef: MysqlBackup " + backup_ref + " is " + b.phase + ": nothing to verify";
      } else {
        out.wait = "waiting for MysqlBackup " + backup_ref + " (" + (b.phase.empty() ? "Pending" : b.phase) + ")";
      }
      return out;
    }
    out.failed = "spec.backupRef: MysqlBackup " + backup_ref + " not found";
    return out;
  }
  const backup_entry* best = nullptr;
  for (const auto& b : backups) {
    if (b.group != group || b.profile != profile || b.phase != "Succeeded") continue;
    if (!best || std::tie(b.completion_time, b.name) > std::tie(best->completion_time, best->name)) best = &b;
  }
  if (best) out.backup = *best;
  else out.failed = "no Succeeded MysqlBackup of group " + group + " profile " + profile + " to verify";
  return out;
}

namespace {

action status(const std::string& name, json body) { return {action_kind::status, name, std::move(body), {}, {}, {}}; }

action event(const std::string& name, const char* type, const char* reason, std::string message) {
  return {action_kind::event, name, {}, type, reason, std::move(message)};
}

json condition(const char* type, bool ok, const std::string& reason, const std::string& message, const std::string& now) {
  return {{"type", type}, {"status", ok ? "True" : "False"}, {"reason", reason}, {"message", message},
          {"lastTransitionTime", now}};
}

/// The conditions with `c` replacing the one of its type.
json with_condition(const json& status, const json& c) {
  json out = json::array();
  for (const auto& x : status.value("conditions", json::array()))
    if (x.value("type", "") != c["type"]) out.push_back(x);
  out.push_back(c);
  return out;
}

bool verified(const json& status) {
  for (const auto& c : status.value("conditions", json::array()))
    if (c.value("type", "") == "Verified") return c.value("status", "") == "True";
  return false;
}

std::int64_t seconds_between(const std::string& from, const std::string& to) {
  auto a = config::parse_rfc3339(from), b = config::parse_rfc3339(to);
  if (!a || !b) return 0;
  return std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::seconds>(*b - *a).count());
}

/// Status members from the Job's result (the BLOODRAVEN_VERIFY line of backup_cli.cpp).
json result_status(const json& r) {
  json s = json::object();
  for (const char* k : {"gtidExecuted", "lastReplayedEventTime", "step"})
    if (r.contains(k) && r[k].is_string()) s[k] = r[k];
  for (const char* k : {"tables", "replayLagSeconds"})
    if (r.contains(k) && r[k].is_number_integer()) s[k] = r[k];
  if (r.contains("binlogsReplayed") && r["binlogsReplayed"].is_array())
    s["binlogsReplayed"] = static_cast<std::int64_t>(r["binlogsReplayed"].size());
  if (r.contains("sanity") && r["sanity"].is_object()) s["sanityRows"] = r["sanity"].value("rows", 0);
  return s;
}

}  // namespace

std::vector<action> decide_verification(const verify_input& in, const job_renderer& render) {
  std::vector<action> out;
  const json& v = in.verification;
  const std::string name = v["metadata"].value("name", "");
  const json st = v.value("status", json::object());
  const std::string phase = st.value("phase", "");
  if (v["metadata"].contains("deletionTimestamp")) return out;  // its Job goes with it (owner)

  auto fail_now = [&](const std::string& message, const char* reason = "VerificationFailed") {
    json s = {{"phase", "Failed"}, {"completionTime", in.now}, {"message", message}};
    s["conditions"] = with_condition(st, condition("Verified", false, reason, message, in.now));
    out.push_back(status(name, s));
    out.push_back(event(name, "Warning", reason, message));
    return out;
  };

  if (phase.empty() || phase == "Pending") {
    auto pending = [&](const std::string& message) {
      if (phase != "Pending" || st.value("message", "") != message)
        out.push_back(status(name, {{"phase", "Pending"}, {"message", message}}));
      return out;
    };
    if (verify_job_name(name).size() > 63)
      return fail_now("the name " + name + " is too long: its Job (mysqlverify-<name>) must fit 63 characters; use at most 51",
                      "VerificationBuildFailed");
    config::field_errors errs;
    auto spec = config::parse_backup_verification(v.value("spec", json::object()), errs);
    if (!errs.empty()) return fail_now(config::to_string(errs), "VerificationBuildFailed");
    if (!in.group.found) return pending("group " + spec.group + " not found");
    if (!in.group.valid) return pending("group " + spec.group + " has an invalid spec (see its Ready condition)");
    const auto& gs = in.group.group.spec;
    if (!gs.backup) return fail_now("group " + spec.group + " has no spec.backup", "VerificationBuildFailed");
    const auto* profile = config::find_profile(*gs.backup, spec.profile_name);
    if (!profile)
      return fail_now("spec.profileName: profile " + spec.profile_name + " is not in spec.backup.profiles of group " +
                          spec.group,
                      "VerificationBuildFailed");
    auto pv = profile_verification(*profile);
    config::validate_verification_run(spec.run, "spec", gs.backup->pitr.enabled ? gs.backup->pitr.profile_name : "",
                                      errs);
    if (!errs.empty()) return fail_now(config::to_string(errs), "VerificationBuildFailed");
    auto choice = choose_backup(in.backups, spec.group, spec.profile_name, spec.backup_ref);
    if (!choice.failed.empty()) return fail_now(choice.failed);
    if (!choice.wait.empty()) return pending(choice.wait);
    const auto& b = *choice.backup;
    auto run = config::effective_run(spec.run, pv ? &*pv : nullptr);
    if (!in.job.exists)
      out.push_back({action_kind::create_job, verify_job_name(name), render(v, in.group.group, *profile, run, b), {}, {}, {}});
    out.push_back(status(name, {{"phase", "Provisioning"},
                                {"startTime", in.now},
                                {"jobName", verify_job_name(name)},
                                {"backupRef", {{"name", b.name}, {"uid", b.uid}, {"location", b.location},
                                               {"storageType", b.storage_type}}},
                                {"keepOnFailure", run.keep_on_failure.value_or(true)},
                                {"message", "starting a scratch mysqld to restore " + b.name}}));
    out.push_back(event(name, "Normal", "VerificationStarted",
                        "Job " + verify_job_name(name) + " restores MysqlBackup " + b.name + " into a scratch server"));
    return out;
  }

  if (phase == "Provisioning" || phase == "Restoring") {
    const auto& job = in.job;
    if (!job.exists) return fail_now("verification Job " + verify_job_name(name) + " disappeared before it finished");
    if (!job.succeeded && !job.failed) {
      if (phase == "Provisioning" && in.pod_running)
        out.push_back(status(name, {{"phase", "Restoring"},
                                    {"podName", in.pod_name},
                                    {"message", "restoring " + st.value("backupRef", json::object()).value("name", "") +
                                                    " into the scratch server, then checking it"}}));
      return out;
    }
    json result = backup_ctl::parse_result(job.result);
    const bool ok = job.succeeded && result.is_object() && result.value("message", "").empty() &&
                    result.contains("gtidExecuted");
    json s = result.is_object() ? result_status(result) : json::object();
    s["completionTime"] = in.now;
    s["durationSeconds"] = seconds_between(st.value("startTime", in.now), in.now);
    std::string message;
    if (ok) {
      message = "restored and checked " + st.value("backupRef", json::object()).value("name", "") +
                (s.contains("tables") ? " (" + std::to_string(s["tables"].get<std::int64_t>()) + " tables)" : "");
    } else {
      message = result.is_object() && !result.value("message", "").empty() ? result.value("message", "")
                : job.succeeded ? "the verification Job succeeded but left no readable result"
                : job.message.empty() ? "the verification Job failed"
                                      : "the verification Job failed: " + job.message;
      if (result.is_object() && result.contains("step") && result["step"].is_string())
        message = "step " + result["step"].get<std::string>() + ": " + message;
    }
    s["message"] = message;
    json conds = with_condition(st, condition("Verified", ok, ok ? "Verified" : "VerificationFailed", message, in.now));
    const bool keep = !ok && st.value("keepOnFailure", true);
    if (keep) {
      s["phase"] = "Failed";
      conds = with_condition({{"conditions", conds}},
                             condition("ResourcesCleanedUp", false, "KeptOnFailure",
                                       "Job " + verify_job_name(name) + " kept for inspection (keepOnFailure)", in.now));
    } else {
      s["phase"] = "Cleaning";
    }
    s["conditions"] = conds;
    out.push_back(status(name, s));
    out.push_back(ok ? event(name, "Normal", "VerificationSucceeded", message)
                     : event(name, "Warning", "VerificationFailed", message));
    if (!keep) out.push_back({action_kind::delete_job, verify_job_name(name), {}, {}, {}, {}});
    return out;
  }

  if (phase == "Cleaning") {
    if (in.job.exists) {
      if (!in.job_deleting) out.push_back({action_kind::delete_job, verify_job_name(name), {}, {}, {}, {}});
      return out;
    }
    json s = {{"phase", verified(st) ? "Succeeded" : "Failed"}};
    s["conditions"] = with_condition(st, condition("ResourcesCleanedUp", true, "JobDeleted",
                                                   "Job " + verify_job_name(name) + " and its scratch volume deleted",
                                                   in.now));
    out.push_back(status(name, s));
    return out;
  }
  return out;  // Succeeded | Failed: terminal
}

std::vector<std::string> verifications_beyond_retention(const std::vector<backup_ctl::retained_backup>& items,
                                                        const config::verification_retention_spec& policy,
                                                        std::int64_t now_ms) {
  config::retention_policy_spec p;
  p.count = policy.keep_successful;
  p.min_keep = policy.keep_successful;
  p.max_age_days = 0;
  p.max_failed_keep = policy.keep_failures;
  return backup_ctl::beyond_retention(items, p, now_ms);
}

backup_ctl::cron_plan plan_verify_cronjobs(
    const config::failover_group& g, const std::vector<json>& existing,
    const std::function<json(const config::backup_profile_spec&, const config::verification_spec&)>& render) {
  std::vector<json> desired;
  if (g.spec.backup)
    for (const auto& p : g.spec.backup->profiles) {
      auto v = profile_verification(p);
      // A CronJob name is at most 52 characters (its Jobs add 11).
      if (v && v->enabled && !v->schedule.empty() && verify_cronjob_name(g.metadata.name, p.name).size() <= 52)
        desired.push_back(render(p, *v));
    }
  return backup_ctl::plan_owned(std::move(desired), existing);
}

}  // namespace br::verify_ctl
