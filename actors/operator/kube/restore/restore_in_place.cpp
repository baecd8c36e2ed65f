// spec.restoreInPlace's preflight (see restore_in_place.hpp).
#include "actors/operator/kube/restore/restore_in_place.hpp"

#include <algorithm>
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
  const std::string job_name = replace_job_name(g.metadata.name, token);
  // Every change of status.restoreInPlace is the record with some members replaced.
  auto put = [&](json changes) {
    json s = rec;
    for (auto it = changes.begin(); it != changes.end(); ++it) s[it.key()] = it.value();
    in_place_action a = act(in_place_step::status);
    a.body = std::move(s);
    out.push_back(std::move(a));
  };
  enum class held { nothing, cancelled, frozen };
  auto fail = [&](const std::string& why, held h) {
    put({{"phase", "Failed"}, {"completionTime", in.now}, {"message", why}});
    std::string then = "; nothing was changed";
    if (h == held::cancelled) then = "; nothing was loaded: the freeze is cancelled and " + target + " made writable again";
    if (h == held::frozen)
      then = "; the group stays frozen and " + target + " fenced (the Job " + job_name +
             " is kept): `kubectl bloodraven restore lift " + g.metadata.name +
             "` lifts the freeze, leaving " + target + " fenced and every site restore-pending, or set a newer confirm";
    out.push_back(event("Warning", "RestoreInPlaceFailed", why + then));
    if (h == held::cancelled) out.push_back(act(in_place_step::cancel, token));
  };
  const bool frozen_by_us = in.freeze.frozen && !token.empty() && in.freeze.token == token;
  // H2: the coordinator froze another site than the one this restore replaces.
  const bool wrong_site = frozen_by_us && in.freeze.site != target;
  auto wrong_site_fail = [&] {
    fail("the coordinator froze site " + in.freeze.site + " for token " + token + ", not the restore's target " +
             target + " (status.restoreInPlace.targetSite)",
         held::cancelled);
  };
  // After Succeeded: each restore-pending site recloned from the restored one, on the word of the
  // token the coordinator recorded and lifted (it refuses any other); asked again after a failed
  // reclone (the coordinator then takes it off `recloned`). Done is the coordinator's word:
  // the site leaves `pending` only when its reclone succeeded.
  const bool ours_lifted = !in.freeze.frozen && in.freeze.token == token && !token.empty();
  auto ask_reclones = [&] {
    if (!ours_lifted || in.plan_running) return;
    for (const auto& site : in.freeze.pending) {
      if (site == target || std::find(in.freeze.recloned.begin(), in.freeze.recloned.end(), site) !=
                                in.freeze.recloned.end())
        continue;
      in_place_action a = act(in_place_step::reclone, site);
      a.body = site + ":restore=" + token;
      out.push_back(std::move(a));
    }
  };
  auto reclones = [&] {
    if (!ours_lifted) return;
    if (rec.value("pendingSites", json()) != json(in.freeze.pending)) put({{"pendingSites", in.freeze.pending}});
    ask_reclones();
  };
  // The Job exists (created before Restoring is stored): Restoring.
  auto restoring = [&](const std::string& what) {
    put({{"phase", "Restoring"}, {"jobName", job_name}, {"message", "replacing the data of " + target + " by " + what}});
    out.push_back(event("Normal", "RestoreInPlaceStarted",
                        "replacing the data of " + target + " by " + what + " (Job " + job_name + ")"));
  };

  if (phase == "Preflight") {
    if (!in.refused.empty()) {
      fail("the coordinator refused to freeze the group: " + in.refused, held::nothing);
      return out;
    }
    if (wrong_site) {
      wrong_site_fail();
      return out;
    }
    if (frozen_by_us) {
      put({{"phase", "Fencing"},
           {"fencingStartTime", in.now},
           {"message", "frozen; waiting for " + target + " to report super_read_only ON and lose its primary label"}});
      return out;
    }
    if (!g.spec.restore_in_place) {
      fail("spec.restoreInPlace was removed before the group was frozen", held::nothing);
      return out;
    }
    const auto& spec = *g.spec.restore_in_place;
    auto src = resolve_source(g, spec.source, spec.point_in_time, "spec.restoreInPlace", in.backup);
    if (!src.failed.empty()) {
      fail(src.failed, held::nothing);
      return out;
    }
    if (!src.wait.empty()) {
      if (str(rec, "message") != src.wait) put({{"message", src.wait}});
      return out;
    }
    out.push_back(act(in_place_step::freeze, token + ":" + target));
    return out;
  }
  if (phase == "Fencing") {
    if (!frozen_by_us) {  // the record says otherwise (lifted by hand?): do not load
      fail("the coordinator's freeze of token " + token + " is gone before the load", held::nothing);
      return out;
    }
    if (wrong_site) {
      wrong_site_fail();
      return out;
    }
    if (in.job.exists) {  // created by a pass that ended before storing Restoring (H4)
      restoring("the backup of Job " + job_name);
      return out;
    }
    if (!g.spec.restore_in_place) {
      fail("spec.restoreInPlace was removed before its Job ran", held::cancelled);
      return out;
    }
    const auto& spec = *g.spec.restore_in_place;
    auto src = resolve_source(g, spec.source, spec.point_in_time, "spec.restoreInPlace", in.backup);
    if (!src.failed.empty() || !src.wait.empty()) {
      fail(src.failed.empty() ? src.wait : src.failed, held::cancelled);
      return out;
    }
    if (!in.target_fenced) {
      auto started = ms_of(rec, "fencingStartTime");
      auto now = config::parse_rfc3339(in.now);
      const auto limit = in.fencing_limit.count();
      if (started && now &&
          std::chrono::duration_cast<std::chrono::milliseconds>(now->time_since_epoch()).count() - *started > limit) {
        fail("Fencing did not complete within " + std::to_string(in.fencing_limit.count() / 1000) + " s: " +
                 (in.fencing_waits.empty() ? std::string("not confirmed") : in.fencing_waits),
             held::cancelled);
        return out;
      }
      out.push_back(act(in_place_step::freeze, token + ":" + target));  // fence and STOP REPLICA again
      return out;
    }
    // The Job first (its name is the token's): a pass that ends before Restoring is stored finds
    // it next time instead of failing with nothing loaded.
    in_place_action c = act(in_place_step::create_job, job_name);
    c.body = render(g, src, target);
    c.body["metadata"]["name"] = job_name;
    out.push_back(std::move(c));
    restoring(src.describe);
    return out;
  }
  if (phase == "Restoring") {
    if (!in.job.exists) {
      fail("the Job " + job_name + " is gone before it ended", held::frozen);
      return out;
    }
    auto result = json::parse(in.job.result, nullptr, false);
    const bool done = result.is_object() && result.contains("gtidExecuted") && !result.contains("error") &&
                      str(result, "message").empty();
    if (in.job.failed || (in.job.succeeded && !done)) {
      std::string m = result.is_object() ? str(result, "message") : "";
      fail("the Job " + job_name + " failed: " + (m.empty() ? in.job.message : m), held::frozen);
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
    put({{"phase", "Succeeded"},
         {"completionTime", in.now},
         {"pendingSites", ours_lifted ? in.freeze.pending : std::vector<std::string>{}},
         {"message", "restored into " + target + "; the other sites stay restore-pending until recloned from it"}});
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
    ask_reclones();
    return out;
  }
  // M8: a Failed restore still frozen, lifted by a person through the annotation.
  if (phase == "Failed" && frozen_by_us && !in.lift_request.empty() && in.lift_request == token) {
    put({{"message", str(rec, "message") + "; the freeze is lifted by request (" + restore_lift_annotation + "): " +
                         target + " stays fenced and every site restore-pending"}});
    out.push_back(act(in_place_step::abandon, token));
    return out;
  }

  // Nothing running: a newer confirm starts one; else a Succeeded restore's reclones go on.
  auto p = g.spec.restore_in_place ? preflight_in_place(g, in.status, in.backup) : in_place_preflight{};
  if (!p.armed) {
    if (phase == "Succeeded") reclones();
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
  if (p.wait.empty()) out.push_back(act(in_place_step::freeze, p.token + ":" + p.target));
  return out;
}

}  // namespace br::restore_ctl
