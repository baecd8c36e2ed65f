// The restore controller's pure decisions (see restore_decide.hpp).
#include "actors/operator/kube/restore/restore_decide.hpp"

#include "messages/fnv1a.hpp"

#include "config/render/names.hpp"
#include "config/restore_spec.hpp"
#include "config/rfc3339.hpp"

namespace br::restore_ctl {
namespace {

const std::string spec_path = "spec.initFromBackup";

std::string q(std::string_view s) {
  return "\"" + std::string{s} + "\"";
}

std::optional<std::int64_t> ms_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return std::nullopt;
  auto t = config::parse_rfc3339(j[key].get<std::string>());
  if (!t) return std::nullopt;
  return t->time_since_epoch().count();
}

action make(action_kind k) {
  action a;
  a.kind = k;
  return a;
}

action status(json body) {
  action a = make(action_kind::status);
  a.body = std::move(body);
  return a;
}

action event(const char* type, const char* reason, std::string message) {
  action a = make(action_kind::event);
  a.event_type = type;
  a.reason = reason;
  a.message = std::move(message);
  return a;
}

}  // namespace

namespace {

/// `prefix` + group, cut to 63 characters without a trailing '-'.
std::string job_name(std::string_view prefix, std::string_view group) {
  std::string n = std::string{prefix} + std::string{group};
  if (n.size() > 63) n.resize(63);
  while (!n.empty() && n.back() == '-') n.pop_back();
  return n;
}

}  // namespace

std::string restore_job_name(std::string_view group) { return job_name("mysqlrestore-", group); }

std::string replace_job_name(std::string_view group, std::string_view token) {
  // A name per confirm token: a Failed restore's Job stays for inspection while a newer one runs.
  const std::string suffix = "-" + fnv1a64_hex(token).substr(0, 10);
  return job_name("mysqlrestore-inplace-", group.substr(0, 63 - 21 - suffix.size())) + suffix;
}

restore_source resolve_source(const config::failover_group& g, const json& backup) {
  const auto& ib = *g.spec.init_from_backup;
  return resolve_source(g, ib.source, ib.point_in_time, spec_path, backup);
}

restore_source resolve_source(const config::failover_group& g, const config::restore_source_spec& src,
                              const std::optional<config::point_in_time_spec>& pit,
                              const std::string& path, const json& backup) {
  restore_source out;
  if (src.mysql_backup_ref) {
    const std::string& name = src.mysql_backup_ref->name;
    const std::string at = path + ".source.mysqlBackupRef.name";
    out.describe = "MysqlBackup " + name;
    if (!backup.is_object()) {
      out.wait = at + ": MysqlBackup " + q(name) + " not found in namespace " +
                 g.metadata.namespace_name;
      return out;
    }
    const json spec = backup.value("spec", json::object());
    const json st = backup.value("status", json::object());
    const std::string owner = spec.value("failoverGroupRef", json::object()).value("name", "");
    if (owner != g.metadata.name) {
      out.failed = at + ": MysqlBackup " + q(name) + " belongs to group " + q(owner) + ", not " +
                   q(g.metadata.name);
      return out;
    }
    const std::string phase = st.value("phase", "");
    if (phase == "Failed") {
      out.failed = at + ": MysqlBackup " + q(name) + " failed (" + st.value("message", "") +
                   "): only a Succeeded backup is restored";
      return out;
    }
    if (phase != "Succeeded") {
      out.wait = at + ": MysqlBackup " + q(name) + " is " + (phase.empty() ? "Pending" : phase) +
                 ": waiting for it to succeed";
      return out;
    }
    const std::string profile = spec.value("profileName", "");
    const auto* p = g.spec.backup ? config::find_profile(*g.spec.backup, profile) : nullptr;
    if (!p) {
      out.failed = at + ": the profile " + q(profile) + " of MysqlBackup " + q(name) +
                   " is not in spec.backup.profiles (it says where the backup's files are)";
      return out;
    }
    out.storage = p->storage;
    out.backup_name = name;
    if (st.contains("sizeBytes") && st["sizeBytes"].is_number_integer())
      out.size_bytes = st["sizeBytes"].get<std::int64_t>();
    if (pit && !pit->stop_datetime.empty()) {
      auto stop = config::parse_stop_datetime(pit->stop_datetime);
      auto started = ms_of(st, "startTime");
      if (stop && started && *stop * 1000 <= *started)
        out.failed = path + ".pointInTime.stopDatetime: " + pit->stop_datetime +
                     " is before MysqlBackup " + q(name) + " was taken (it started at " +
                     st.value("startTime", "") +
                     "); a point in time must be after the backup's consistent point";
    }
    return out;
  }
  if (src.s3) {
    auto loc = config::split_backup_location(src.s3->prefix);
    auto s3 = *src.s3;
    s3.prefix = loc.parent;
    out.storage = {config::backup_storage_type::s3, s3, std::nullopt};
    out.backup_name = loc.name;
    out.describe = "s3://" + src.s3->bucket + "/" + src.s3->prefix;
    return out;
  }
  if (src.pvc) {
    auto loc = config::split_backup_location(src.pvc->sub_path);
    config::pvc_storage_spec pvc;
    pvc.claim_name = src.pvc->claim_name;
    pvc.sub_path = loc.parent;
    out.storage = {config::backup_storage_type::pvc, std::nullopt, pvc};
    out.backup_name = loc.name;
    out.describe = "claim " + src.pvc->claim_name + ", " + src.pvc->sub_path;
    return out;
  }
  out.failed = path + ".source: required";  // validation refuses this first
  return out;
}

bool target_ready(const json* d, std::string& why) {
  if (!d || !d->is_object()) {
    why = "its Deployment does not exist yet";
    return false;
  }
  const json md = d->value("metadata", json::object());
  const json st = d->value("status", json::object());
  const auto generation = md.value("generation", std::int64_t{0});
  const auto ready = st.value("readyReplicas", std::int64_t{0});
  if (ready < 1) {
    why = "its pod is not ready (readyReplicas 0)";
    return false;
  }
  if (generation > 1) {
    if (st.value("observedGeneration", std::int64_t{0}) < generation ||
        st.value("updatedReplicas", std::int64_t{0}) < 1) {
      why = "its Deployment is still rolling out";
      return false;
    }
  }
  why.clear();
  return true;
}

std::vector<action> decide_restore(const restore_input& in, const job_renderer& render) {
  std::vector<action> out;
  const auto& g = in.group;
  json r = in.status.value("restore", json::object());
  if (!r.is_object()) r = json::object();
  const std::string phase = r.value("phase", "");
  const std::string job_name = restore_job_name(g.metadata.name);
  const std::string target = r.value("targetSite", config::effective_seed_site(g.spec));
  const auto& job = in.job;

  if (phase == "Succeeded") {
    if (job.exists && job.succeeded) {  // a delete that did not get through before
      action d = make(action_kind::delete_job);
      d.name = job_name;
      out.push_back(d);
    }
    return out;
  }
  if (phase == "Failed") return out;  // terminal; the Job stays for its logs

  auto base = [&](const char* ph) {
    return json{{"phase", ph}, {"jobName", job_name}, {"targetSite", target},
                {"startTime", r.value("startTime", in.now)}};
  };
  auto fail = [&](std::string m, bool with_job) {
    json s = base("Failed");
    if (!with_job) s["jobName"] = nullptr;
    s["completionTime"] = in.now;
    s["message"] = m;
    out.push_back(status(s));
    out.push_back(event("Warning", "RestoreFailed", std::move(m)));
  };

  if (phase == "Running" || job.exists) {
    if (!job.exists) {
      fail("the restore Job " + job_name + " disappeared before it finished", true);
      return out;
    }
    if (!job.succeeded && !job.failed) {
      if (phase != "Running") {  // created by a pass whose status write did not get through
        json s = base("Running");
        s["message"] = "restoring into site " + target;
        out.push_back(status(s));
      }
      return out;
    }
    json result = backup_ctl::parse_result(job.result);
    const bool has_result = result.is_object();
    const bool ok = job.succeeded && has_result && result.value("message", "").empty() &&
                    result.contains("gtidExecuted");
    if (!ok) {
      std::string m = has_result && !result.value("message", "").empty()
                          ? result.value("message", "")
                      : job.succeeded ? "the Job succeeded but left no readable result"
                      : job.message.empty() ? "the Job failed"
                                            : "the Job failed: " + job.message;
      fail("restore Job " + job_name + " failed (kept for its logs): " + m, true);
      return out;
    }
    json s = base("Succeeded");
    s["completionTime"] = result.contains("completionTime") && result["completionTime"].is_string()
                              ? result["completionTime"]
                              : json(in.now);
    std::string gtids = result["gtidExecuted"].is_string() ? result["gtidExecuted"].get<std::string>() : "";
    s["message"] = "restored " + result.value("name", std::string{"the backup"}) + " into site " +
                   target + "; gtid_executed " + (gtids.empty() ? "(empty)" : gtids) +
                   "; the bootstrap seeds the group from it";
    action st = status(s);
    auto started = ms_of(s, "startTime");
    auto done = ms_of(s, "completionTime");
    if (started && done && *done >= *started) st.duration_seconds = (*done - *started) / 1000.0;
    if (done) st.completed_unix = *done / 1000.0;
    if (result.contains("sourceSizeBytes") && result["sourceSizeBytes"].is_number_integer())
      st.source_size_bytes = result["sourceSizeBytes"].get<std::int64_t>();
    out.push_back(std::move(st));
    out.push_back(event("Normal", "RestoreSucceeded", s["message"].get<std::string>()));
    action d = make(action_kind::delete_job);
    d.name = job_name;
    out.push_back(d);
    return out;
  }

  // Pending (or nothing yet).
  if (!g.spec.init_from_backup) return out;  // removed before its Job ran: nothing to start
  const std::string active = in.status.value("activeSite", "");
  const auto epoch = in.status.contains("epoch") && in.status["epoch"].is_number()
                         ? in.status["epoch"].get<std::int64_t>()
                         : 0;
  if (!active.empty() || epoch > 0) {
    fail(spec_path + ": the group already has a primary (activeSite " + q(active) + ", epoch " +
             std::to_string(epoch) +
             "): a restore only seeds a new group and never overwrites one that holds data",
         false);
    return out;
  }
  auto pending = [&](const std::string& m) {
    if (phase == "Pending" && r.value("message", "") == m) return false;
    json s = {{"phase", "Pending"}, {"targetSite", target}, {"message", m}};
    out.push_back(status(s));
    return true;
  };
  auto src = resolve_source(g, in.backup);
  if (!src.failed.empty()) {
    fail(src.failed, false);
    return out;
  }
  if (!src.wait.empty()) {
    pending(src.wait);
    return out;
  }
  std::string why;
  if (!target_ready(in.deployment.is_object() ? &in.deployment : nullptr, why)) {
    std::string m = "the restore target, site " + target + " (the bootstrap's seed), is not ready: " + why;
    if (pending(m)) out.push_back(event("Warning", "RestoreTargetUnavailable", m));
    return out;
  }
  // Running is stored BEFORE the Job exists (the controller stops the pass when the write fails):
  // the bootstrap hold follows the stored phase, so a Job can never load the target while the
  // group's status says nothing is running (review finding R1).
  json s = {{"phase", "Running"},
            {"jobName", job_name},
            {"targetSite", target},
            {"startTime", in.now},
            {"completionTime", nullptr},
            {"message", "restoring " + src.describe + " into site " + target}};
  out.push_back(status(s));
  action create = make(action_kind::create_job);
  create.body = render(g, src, target);
  create.name = job_name;
  out.push_back(std::move(create));
  out.push_back(event("Normal", "RestoreStarted",
                      "restoring " + src.describe + " into site " + target + " (Job " + job_name + ")"));
  return out;
}

}  // namespace br::restore_ctl
