// spec.restoreInPlace's preflight (see restore_in_place.hpp).
#include "actors/operator/kube/restore/restore_in_place.hpp"

#include <chrono>

#include "config/rfc3339.hpp"

namespace br::restore_ctl {

namespace {

using json = nlohmann::json;

std::string str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

bool running_phase(const std::string& p) {
  return p == "Preflight" || p == "Fencing" || p == "Restoring" || p == "Resuming";
}

in_place_action act(in_place_step k, std::string arg = "") {
  in_place_action a;
  a.kind = k;
  a.arg = std::move(arg);
  return a;
}

std::optional<std::int64_t> ms_of(const json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return std::nullopt;
  auto t = config::parse_rfc3339(j[key].get<std::string>());
  if (!t) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::milliseconds>(t->time_since_epoch()).count();
}

in_place_action event(const char* type, const char* reason, std::string message) {
  in_place_action a = act(in_place_step::event);
  a.event_type = type;
  a.reason = reason;
  a.message = std::move(message);
  return a;
}

}  // namespace

bool reclone_answer_final(const std::string& answer) {
  return answer.rfind("busy", 0) != 0 && answer.rfind("rejected: another plan", 0) != 0;
}

in_place_preflight preflight_in_place(const config::failover_group& g, const nlohmann::json& status,
                                      const nlohmann::json& backup) {
  in_place_preflight out;
  const auto& spec = *g.spec.restore_in_place;
  out.token = spec.confirm;
  const nlohmann::json rec = status.is_object() ? status.value("restoreInPlace", nlohmann::json::object())
                                                : nlohmann::json::object();
  const std::string used = str(rec, "confirmTokenUsed");
  auto token = config::parse_rfc3339(spec.confirm);
  if (!token) return out;  // validation refuses it first
  if (!used.empty()) {
    auto u = config::parse_rfc3339(used);
    if (!u || *token <= *u) return out;  // used (terminal phases stay until a newer token)
  }
  out.armed = true;
  const std::string phase = str(rec, "phase");
  if (running_phase(phase)) {
    out.wait = "the restore armed with token " + used + " is " + phase + "; token " + spec.confirm +
               " runs after it has ended";
    return out;
  }
  out.target = str(status, "activeSite");
  if (out.target.empty()) {
    out.failed = "status.activeSite: the group has no active primary to restore into";
    return out;
  }
  out.source = resolve_source(g, spec.source, spec.point_in_time, "spec.restoreInPlace", backup);
  if (!out.source.failed.empty()) out.failed = out.source.failed;
  else if (!out.source.wait.empty()) out.wait = out.source.wait;
  return out;
}

std::vector<in_place_action> decide_restore_in_place(const in_place_input& in, const job_renderer& render) {
  std::vector<in_place_action> out;
  const auto& g = in.group;
  const json rec = in.status.is_object() ? in.status.value("restoreInPlace", json::object()) : json::object();
  const std::string phase = str(rec, "phase");
  const std::string token = str(rec, "confirmTokenUsed");
  const std::string target = str(rec, "targetSite");
  const std::string job_name = replace_job_name(g.metadata.name);
  // Every change of status.restoreInPlace is the record with some members replaced.
  auto put = [&](json changes) {
    json s = rec;
    for (auto it = changes.begin(); it != changes.end(); ++it) s[it.key()] = it.value();
    in_place_action a = act(in_place_step::status);
    a.body = std::move(s);
    out.push_back(std::move(a));
  };
  auto fail = [&](const std::string& why, bool frozen) {
    put({{"phase", "Failed"}, {"completionTime", in.now}, {"message", why}});
    out.push_back(event("Warning", "RestoreInPlaceFailed",
                        why + (frozen ? "; the group stays frozen and " + target +
                                            " fenced until a newer confirm (the Job is kept)"
                                      : "; nothing was changed")));
  };
  const bool frozen_by_us = in.freeze.frozen && !token.empty() && in.freeze.token == token;
  // After Succeeded: each other site recloned from the restored one, on the word of the token the
  // coordinator recorded and lifted (it refuses any other); one answer recorded per site.
  auto reclones = [&](const json& record) {
    if (in.plan_running || in.freeze.frozen || in.freeze.token != token || token.empty()) return;
    const json done = record.value("reclones", json::object());
    for (const auto& site : g.spec.sites) {
      if (site.name == target || (done.is_object() && done.contains(site.name))) continue;
      in_place_action a = act(in_place_step::reclone, site.name);
      a.body = site.name + ":restore=" + token;
      out.push_back(std::move(a));
    }
  };

  if (phase == "Preflight") {
    if (!in.refused.empty()) {
      fail("the coordinator refused to freeze the group: " + in.refused, false);
      return out;
    }
    if (frozen_by_us) {
      put({{"phase", "Fencing"},
           {"message", "frozen; waiting for " + target + " to report super_read_only ON and lose its primary label"}});
      return out;
    }
    if (!g.spec.restore_in_place) {
      fail("spec.restoreInPlace was removed before the group was frozen", false);
      return out;
    }
    const auto& spec = *g.spec.restore_in_place;
    auto src = resolve_source(g, spec.source, spec.point_in_time, "spec.restoreInPlace", in.backup);
    if (!src.failed.empty()) {
      fail(src.failed, false);
      return out;
    }
    if (!src.wait.empty()) {
      if (str(rec, "message") != src.wait) put({{"message", src.wait}});
      return out;
    }
    out.push_back(act(in_place_step::freeze, token));
    return out;
  }
  if (phase == "Fencing") {
    if (!frozen_by_us) {  // the record says otherwise (lifted by hand?): do not load
      fail("the coordinator's freeze of token " + token + " is gone before the load", false);
      return out;
    }
    if (!in.target_fenced) return out;  // the coordinator fences it, the router unlabels it
    if (!g.spec.restore_in_place) {
      fail("spec.restoreInPlace was removed before its Job ran", true);
      return out;
    }
    const auto& spec = *g.spec.restore_in_place;
    auto src = resolve_source(g, spec.source, spec.point_in_time, "spec.restoreInPlace", in.backup);
    if (!src.failed.empty() || !src.wait.empty()) {
      fail(src.failed.empty() ? src.wait : src.failed, true);
      return out;
    }
    put({{"phase", "Restoring"}, {"jobName", job_name}, {"message", "replacing the data of " + target + " by " + src.describe}});
    in_place_action c = act(in_place_step::create_job, job_name);
    c.body = render(g, src, target);
    out.push_back(std::move(c));
    out.push_back(event("Normal", "RestoreInPlaceStarted",
                        "replacing the data of " + target + " by " + src.describe + " (Job " + job_name + ")"));
    return out;
  }
  if (phase == "Restoring") {
    if (!in.job.exists) {
      fail("the Job " + job_name + " is gone before it ended", true);
      return out;
    }
    auto result = json::parse(in.job.result, nullptr, false);
    const bool done = result.is_object() && result.contains("gtidExecuted") && !result.contains("error") &&
                      str(result, "message").empty();
    if (in.job.failed || (in.job.succeeded && !done)) {
      std::string m = result.is_object() ? str(result, "message") : "";
      fail("the Job " + job_name + " failed: " + (m.empty() ? in.job.message : m), true);
      return out;
    }
    if (!in.job.succeeded) return out;
    json resuming = {{"phase", "Resuming"},
                     {"restoredAt", str(result, "completionTime").empty() ? in.now : str(result, "completionTime")},
                     {"message", "restored; gtid_executed " + str(result, "gtidExecuted") +
                                     "; unfreezing and unfencing " + target}};
    if (result.contains("sourceSizeBytes") && result["sourceSizeBytes"].is_number_integer())
      resuming["sourceSizeBytes"] = result["sourceSizeBytes"];
    put(std::move(resuming));
    out.push_back(act(in_place_step::lift, token));
    out.push_back(act(in_place_step::delete_job, job_name));
    return out;
  }
  if (phase == "Resuming") {
    if (frozen_by_us) {
      out.push_back(act(in_place_step::lift, token));
      return out;
    }
    put({{"phase", "Succeeded"}, {"completionTime", in.now}, {"message", "restored into " + target + "; the other sites are recloned from it"}});
    auto& st = out.back();
    auto started = ms_of(rec, "startTime");
    auto done = ms_of(rec, "restoredAt");
    if (!done) done = ms_of(st.body, "completionTime");
    if (started && done && *done >= *started) st.duration_seconds = (*done - *started) / 1000.0;
    if (done) st.completed_unix = *done / 1000.0;
    if (rec.contains("sourceSizeBytes") && rec["sourceSizeBytes"].is_number_integer())
      st.source_size_bytes = rec["sourceSizeBytes"].get<std::int64_t>();
    out.push_back(event("Normal", "RestoreInPlaceSucceeded",
                        "restored into " + target + " (token " + token + "); the other sites are recloned from it"));
    reclones(rec);
    return out;
  }

  // Nothing running: a newer confirm starts one; else a Succeeded restore's reclones go on.
  auto p = g.spec.restore_in_place ? preflight_in_place(g, in.status, in.backup) : in_place_preflight{};
  if (!p.armed) {
    if (phase == "Succeeded") reclones(rec);
    return out;
  }
  json fresh = {{"phase", "Preflight"},     {"confirmTokenUsed", p.token}, {"targetSite", p.target},
                {"scope", "full"},          {"jobName", nullptr},          {"startTime", in.now},
                {"completionTime", nullptr}, {"message", p.wait.empty() ? "asking the coordinator to freeze the group" : p.wait}};
  if (!p.failed.empty()) {
    fresh["phase"] = "Failed";
    fresh["completionTime"] = in.now;
    fresh["message"] = p.failed;
    in_place_action a = act(in_place_step::status);
    a.body = fresh;
    out.push_back(std::move(a));
    out.push_back(event("Warning", "RestoreInPlaceFailed", p.failed + "; nothing was changed"));
    return out;
  }
  in_place_action a = act(in_place_step::status);
  a.body = fresh;
  out.push_back(std::move(a));
  if (p.wait.empty()) out.push_back(act(in_place_step::freeze, p.token));
  return out;
}

}  // namespace br::restore_ctl
