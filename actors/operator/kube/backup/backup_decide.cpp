// Pure decisions of the backup controller (see backup_decide.hpp).
#include "actors/operator/kube/backup/backup_decide.hpp"

#include "config/group_validate.hpp"

#include "actors/operator/decide/gr_backup_source.hpp"

#include <algorithm>
#include <ctime>
#include <set>

#include "config/render/content_hash.hpp"
#include "config/rfc3339.hpp"

namespace br::backup_ctl {

std::string cronjob_name(std::string_view group, std::string_view schedule) {
  return "mysql-" + std::string{group} + "-backup-" + std::string{schedule};
}

std::string backup_job_name(std::string_view backup) {
  return "mysqlbackup-" + std::string{backup};
}

std::string cleanup_job_name(std::string_view backup) {
  return "mysqlbackup-rm-" + std::string{backup};
}

std::string generated_backup_name(std::string_view prefix, std::int64_t unix_seconds) {
  std::string p{prefix.substr(0, 32)};
  while (!p.empty() && p.back() == '-') p.pop_back();
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d%H%M%S", &tm);
  return p + "-" + buf;
}

// ---- source choice ---------------------------------------------------------------------------

std::vector<site_view> sites_of(const config::group_spec& spec, const json& status) {
  std::vector<site_view> out;
  for (const auto& s : spec.sites) {
    site_view v;
    v.name = s.name;
    v.role = s.role;
    v.state = "unknown";
    for (const auto& st : status.value("sites", json::array())) {
      if (!st.is_object() || st.value("name", "") != s.name) continue;
      v.state = st.value("state", "unknown");
      v.replicating = st.value("replicating", false);
      if (auto it = st.find("secondsBehindSource"); it != st.end() && it->is_number_integer())
        v.lag = it->get<std::int64_t>();
    }
    out.push_back(std::move(v));
  }
  return out;
}

source_choice choose_source(const std::vector<site_view>& sites, const std::string& active,
                            std::int64_t max_lag, const std::string& override_site) {
  if (!override_site.empty()) {
    for (const auto& s : sites) {
      if (s.name != override_site) continue;
      if (s.role == site_role::read_only)
        return {"", "sourceSiteOverride " + override_site + " is a read-only site"};
      if (s.state != "writable" && s.state != "read-only")
        return {"", "sourceSiteOverride " + override_site + " is " + s.state};
      return {s.name, "sourceSiteOverride"};
    }
    return {"", "sourceSiteOverride " + override_site + " is not a site of the group"};
  }
  const site_view* best = nullptr;
  for (const auto& s : sites) {
    if (s.name == active || s.role == site_role::read_only) continue;
    if (s.state != "read-only" || !s.replicating || !s.lag || *s.lag > max_lag) continue;
    if (!best || *s.lag < *best->lag) best = &s;
  }
  if (best)
    return {best->name, "replica " + std::to_string(*best->lag) + " s behind (at most " +
                            std::to_string(max_lag) + ")"};
  for (const auto& s : sites)
    if (s.name == active && s.state == "writable")
      return {s.name, "primary: no replica within maxLagSecondsForSource (" +
                          std::to_string(max_lag) + " s)"};
  return {"", active.empty() ? "no active site and no caught-up replica"
                             : "no caught-up replica and the active site " + active +
                                   " is not writable"};
}

source_choice choose_gr_source(const config::group_spec& spec, const json& status,
                               const std::string& override_site) {
  const json gr = status.value("groupReplication", json::object());
  gr::backup_source_facts f;
  f.view_known = gr.is_object() && gr.value("viewKnown", false);
  f.has_quorum = gr.is_object() && gr.value("hasQuorum", false);
  f.override_name = override_site;
  for (const auto& s : spec.sites) {
    gr::backup_member m;
    m.name = s.name;
    for (const auto& st : gr.value("members", json::array()))
      if (st.is_object() && st.value("name", "") == s.name) {
        m.state = gr::parse_member_state(st.value("state", ""));
        m.role = gr::parse_member_role(st.value("role", ""));
        m.reachable = st.value("reachable", false);
      }
    for (const auto& st : status.value("sites", json::array()))
      if (st.is_object() && st.value("name", "") == s.name && st.contains("gtidExecuted") &&
          st["gtidExecuted"].is_string())
        m.gtid_executed = gtid_set::parse(st["gtidExecuted"].get<std::string>());
    f.members.push_back(std::move(m));
  }
  auto c = gr::choose_backup_source(f);
  return {c.name, c.reason};
}

// ---- retention -------------------------------------------------------------------------------

std::vector<std::string> beyond_retention(std::vector<retained_backup> backups,
                                          const config::retention_policy_spec& policy,
                                          std::int64_t now_ms) {
  std::stable_sort(backups.begin(), backups.end(), [](const auto& a, const auto& b) {
    return a.time_ms != b.time_ms ? a.time_ms > b.time_ms : a.name > b.name;  // newest first
  });
  std::vector<const retained_backup*> doomed;
  std::int64_t succeeded = 0, failed = 0;
  const std::int64_t day_ms = 86400000;
  bool any_limit = policy.count > 0 || policy.max_age_days > 0;
  for (const auto& b : backups) {
    if (b.phase == "Succeeded") {
      ++succeeded;
      bool keep = !any_limit || (policy.count > 0 && succeeded <= policy.count) ||
                  (policy.max_age_days > 0 && now_ms - b.time_ms < policy.max_age_days * day_ms) ||
                  succeeded <= policy.min_keep;
      if (!keep) doomed.push_back(&b);
    } else if (b.phase == "Failed") {
      ++failed;
      if (failed > policy.max_failed_keep) doomed.push_back(&b);
    }
  }
  std::vector<std::string> out;
  for (auto it = doomed.rbegin(); it != doomed.rend(); ++it) out.push_back((*it)->name);
  return out;
}

// ---- result ----------------------------------------------------------------------------------

json parse_result(const std::string& termination_message) {
  std::string_view s = termination_message;
  // The stdout line form is accepted too: "BLOODRAVEN_BACKUP_COMPLETE {json}".
  if (auto brace = s.find('{'); brace != std::string_view::npos) s.remove_prefix(brace);
  auto j = json::parse(s, nullptr, false);
  return j.is_object() ? j : json(nullptr);
}

// ---- one MysqlBackup -------------------------------------------------------------------------

namespace {

bool has_finalizer(const json& obj) {
  for (const auto& f : obj["metadata"].value("finalizers", json::array()))
    if (f == finalizer) return true;
  return false;
}

std::string human_size(std::int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f%s" : "%.1f%s", v, units[u]);
  return buf;
}

action status(const std::string& name, json body) {
  return {action_kind::status, name, std::move(body), {}, {}, {}};
}

action event(const std::string& name, const char* type, const char* reason, std::string message) {
  return {action_kind::event, name, {}, type, reason, std::move(message)};
}

/// Status fields from the Job's result (contract 4 names; sourceHost is the Job's own).
json result_status(const json& r) {
  json s = json::object();
  for (const char* k : {"location", "storageType", "gtidExecuted", "binlogFile", "method"})
    if (r.contains(k) && r[k].is_string()) s[k] = r[k];
  for (const char* k : {"sizeBytes", "binlogPos"})
    if (r.contains(k) && r[k].is_number_integer()) s[k] = r[k];
  if (s.contains("sizeBytes")) s["size"] = human_size(s["sizeBytes"].get<std::int64_t>());
  s.erase("method");  // not a status field of the reference
  // A Group Replication source (issue 23): its group and its role when the dump started.
  if (auto it = r.find("groupReplication"); it != r.end() && it->is_object()) {
    json g = json::object();
    for (const char* k : {"groupName", "memberId", "memberRole", "memberState"})
      if (it->contains(k) && (*it)[k].is_string()) g[k] = (*it)[k];
    if (!g.empty()) s["groupReplication"] = std::move(g);
  }
  return s;
}

}  // namespace

std::vector<action> decide_backup(const backup_input& in, const job_renderers& render) {
  std::vector<action> out;
  const json& b = in.backup;
  const std::string name = b["metadata"].value("name", "");
  const json st = b.value("status", json::object());
  const std::string phase = st.value("phase", "");
  const json spec = b.value("spec", json::object());
  const std::string profile_name = spec.value("profileName", "");
  const config::backup_profile_spec* profile = nullptr;
  if (in.group.found && in.group.valid && in.group.group.spec.backup)
    profile = config::find_profile(*in.group.group.spec.backup, profile_name);

  // Deleting: stop the backup Job, then remove the artifacts, then let the object go.
  if (b["metadata"].contains("deletionTimestamp")) {
    if (!has_finalizer(b)) return out;
    if (in.backup_job.exists && !in.backup_job.succeeded && !in.backup_job.failed) {
      out.push_back({action_kind::delete_job, backup_job_name(name), {}, {}, {}, {}});
      return out;
    }
    bool wrote = !st.value("jobName", "").empty() || in.backup_job.exists;
    if (!wrote) {
      out.push_back({action_kind::remove_finalizer, name, {}, {}, {}, {}});
      return out;
    }
    if (in.cleanup_job.succeeded) {
      out.push_back(event(name, "Normal", "ArtifactCleanupSucceeded",
                          "artifacts of " + name + " deleted by Job " + cleanup_job_name(name)));
      out.push_back({action_kind::remove_finalizer, name, {}, {}, {}, {}});
      return out;
    }
    if (in.cleanup_job.failed) {
      out.push_back(event(name, "Warning", "ArtifactCleanupFailed",
                          "Job " + cleanup_job_name(name) + " failed: " + in.cleanup_job.message +
                              "; the object stays until its artifacts are deleted (delete the "
                              "Job to retry)"));
      return out;
    }
    if (in.cleanup_job.exists) return out;  // running
    if (!profile) {
      // Without its group's profile nobody knows where the artifacts are: say so and let go.
      out.push_back(event(name, "Warning", "ArtifactCleanupSkipped",
                          "profile " + profile_name + " of group " +
                              spec.value("failoverGroupRef", json::object()).value("name", "") +
                              " is not known (group deleted, invalid or profile removed); the "
                              "artifacts are left in storage"));
      out.push_back({action_kind::remove_finalizer, name, {}, {}, {}, {}});
      return out;
    }
    out.push_back({action_kind::create_job, cleanup_job_name(name),
                   render.cleanup(b, in.group.group, *profile), {}, {}, {}});
    out.push_back(event(name, "Normal", "ArtifactCleanupStarted",
                        "deleting the artifacts of " + name + " (Job " + cleanup_job_name(name) + ")"));
    return out;
  }

  if (!has_finalizer(b)) {
    out.push_back({action_kind::add_finalizer, name, {}, {}, {}, {}});
    return out;
  }

  if (phase.empty() || phase == "Pending") {
    auto pending = [&](const std::string& message) {
      if (phase != "Pending" || st.value("message", "") != message)
        out.push_back(status(name, {{"phase", "Pending"}, {"message", message}}));
      return out;
    };
    auto failed = [&](const std::string& message) {
      out.push_back(status(name, {{"phase", "Failed"}, {"completionTime", in.now},
                                  {"message", message}}));
      out.push_back(event(name, "Warning", "BackupFailed", message));
      return out;
    };
    const std::string group_name = spec.value("failoverGroupRef", json::object()).value("name", "");
    if (cleanup_job_name(name).size() > 63)
      return failed("the name " + name + " is too long: its Jobs (mysqlbackup-rm-<name>) must fit "
                    "63 characters; use at most 48");
    if (!in.group.found) return pending("group " + group_name + " not found");
    if (!in.group.valid) return pending("group " + group_name + " has an invalid spec (see its Ready condition)");
    if (!in.group.group.spec.backup) return failed("group " + group_name + " has no spec.backup");
    if (!profile)
      return failed("profile " + profile_name + " is not in spec.backup.profiles of group " +
                    group_name);
    const auto& gs = in.group.group.spec;
    if (!gs.credentials || gs.credentials->operator_secret.empty())
      return failed("backups need spec.credentials.operatorSecret (keys username and password); "
                    "the legacy secretName is not supported");
    std::string source = in.backup_job.source_site, active = in.backup_job.active_site;
    if (!in.backup_job.exists) {
      active = in.group.status.value("activeSite", "");
      auto choice =
          gs.replication.mode == config::replication_mode::group_replication
              ? choose_gr_source(gs, in.group.status, spec.value("sourceSiteOverride", ""))
              : choose_source(sites_of(gs, in.group.status), active,
                              gs.backup->max_lag_seconds_for_source,
                              spec.value("sourceSiteOverride", ""));
      if (choice.site.empty()) return pending("no source: " + choice.reason);
      source = choice.site;
      out.push_back({action_kind::create_job, backup_job_name(name),
                     render.backup(b, in.group.group, *profile, source, active), {}, {}, {}});
    }
    out.push_back(status(name, {{"phase", "Running"},
                                {"startTime", in.now},
                                {"jobName", backup_job_name(name)},
                                {"sourceSite", source},
                                {"activeSiteAtStart", active},
                                {"storageType", std::string{to_string(profile->storage.type)}},
                                {"attempt", 1},
                                {"message", ""}}));
    out.push_back(event(name, "Normal", "BackupStarted",
                        "Job " + backup_job_name(name) + " backs up site " + source));
    return out;
  }

  if (phase == "Running") {
    const auto& job = in.backup_job;
    if (!job.exists && !in.group.found) return out;  // nothing to learn yet
    json result = parse_result(job.result);
    if (!job.exists) {
      std::string m = "backup Job " + backup_job_name(name) + " disappeared before it finished";
      out.push_back(status(name, {{"phase", "Failed"}, {"completionTime", in.now}, {"message", m}}));
      out.push_back(event(name, "Warning", "BackupFailed", m));
      return out;
    }
    if (!job.succeeded && !job.failed) return out;
    bool ok = job.succeeded && result.is_object() && result.value("message", "").empty() &&
              result.contains("location");
    json s = result.is_object() ? result_status(result) : json::object();
    s["completionTime"] = result.is_object() && result.contains("completionTime")
                              ? result["completionTime"]
                              : json(in.now);
    if (ok) {
      s["phase"] = "Succeeded";
      s["message"] = "";
      out.push_back(status(name, s));
      out.push_back(event(name, "Normal", "BackupSucceeded",
                          "backup of site " + st.value("sourceSite", "") + " stored at " +
                              result.value("location", "")));
    } else {
      std::string m = result.is_object() && !result.value("message", "").empty()
                          ? result.value("message", "")
                      : job.succeeded ? "the backup Job succeeded but left no readable result"
                      : job.message.empty() ? "the backup Job failed"
                                            : "the backup Job failed: " + job.message;
      s["phase"] = "Failed";
      s["message"] = m;
      out.push_back(status(name, s));
      out.push_back(event(name, "Warning", "BackupFailed", m));
    }
    const std::string now_active = in.group.status.value("activeSite", "");
    const std::string at_start = st.value("activeSiteAtStart", "");
    if (in.group.found && !at_start.empty() && now_active != at_start)
      out.push_back(event(name, "Warning", "InFlightFailover",
                          "the active site changed from " + at_start + " to " + now_active +
                              " while the backup ran"));
    return out;
  }
  return out;  // Succeeded | Failed: terminal
}

// ---- CronJobs --------------------------------------------------------------------------------

cron_plan plan_owned(std::vector<json> desired, const std::vector<json>& existing) {
  cron_plan plan;
  std::set<std::string> wanted;
  auto hash_of = [](const json& o) {
    return o["metadata"].value("annotations", json::object()).value(std::string{annotation_spec_hash}, "");
  };
  for (auto& d : desired) {
    std::string name = d["metadata"]["name"];
    wanted.insert(name);
    const json* have = nullptr;
    for (const auto& e : existing)
      if (e["metadata"].value("name", "") == name) have = &e;
    if (!have) {
      plan.create.push_back(std::move(d));
    } else if (hash_of(*have) != hash_of(d)) {
      d["metadata"]["resourceVersion"] = (*have)["metadata"].value("resourceVersion", "");
      plan.update.push_back(std::move(d));
    }
  }
  for (const auto& e : existing) {
    std::string name = e["metadata"].value("name", "");
    if (!wanted.contains(name) && !e["metadata"].contains("deletionTimestamp"))
      plan.remove.push_back(name);
  }
  return plan;
}

cron_plan plan_cronjobs(const config::failover_group& g, const std::vector<json>& existing,
                        const std::function<json(const config::backup_schedule_spec&)>& render) {
  std::vector<json> desired;
  if (g.spec.backup)
    for (const auto& s : g.spec.backup->schedules) desired.push_back(render(s));
  return plan_owned(std::move(desired), existing);
}

group_view view_of_group(const json& object) {
  group_view v;
  v.found = true;
  auto parsed = config::parse_group(object);
  v.group = std::move(parsed.group);
  auto errs = config::validate(v.group, config::run_mode::kubernetes);
  v.valid = parsed.errors.empty() && errs.empty() && !object["metadata"].contains("deletionTimestamp");
  v.status = object.value("status", json::object());
  return v;
}

}  // namespace br::backup_ctl
