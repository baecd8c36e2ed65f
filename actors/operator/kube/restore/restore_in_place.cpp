// spec.restoreInPlace's preflight (see restore_in_place.hpp).
#include "actors/operator/kube/restore/restore_in_place.hpp"

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

in_place_action event(const char* type, const char* reason, std::string message) {
  in_place_action a = act(in_place_step::event);
  a.event_type = type;
  a.reason = reason;
  a.message = std::move(message);
  return a;
}

}  // namespace

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

  if (phase == "Preflight") {
    if (!in.refused.empty()) {
      fail("the coordinator refused to freeze the group: " + in.refused, false);
      return out;
    }
    if (frozen_by_us) {
      put({{"phase", "Fencing"}, {"message", "frozen; " + target + " fenced, its primary label removed"}});
      out.push_back(act(in_place_step::label_off, target));
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
    if (!in.target_fenced) {
      out.push_back(act(in_place_step::label_off, target));
      return out;
    }
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
    put({{"phase", "Resuming"}, {"message", "restored; gtid_executed " + str(result, "gtidExecuted") +
                                                 "; unfreezing and unfencing " + target}});
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
    out.push_back(act(in_place_step::label_on, target));
    for (const auto& site : g.spec.sites)
      if (site.name != target) out.push_back(act(in_place_step::reclone, site.name));
    out.push_back(event("Normal", "RestoreInPlaceSucceeded",
                        "restored into " + target + " (token " + token + "); the other sites are recloned from it"));
    return out;
  }

  // Nothing running: a newer confirm starts one.
  if (!g.spec.restore_in_place) return out;
  auto p = preflight_in_place(g, in.status, in.backup);
  if (!p.armed) return out;
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
