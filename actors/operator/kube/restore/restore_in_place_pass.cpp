// One group's spec.restoreInPlace in a restore controller pass: read what decide_restore_in_place
// needs (the coordinator's durable restoreFreeze record from the group's state ConfigMap, the
// target's reported state and pod labels, the Job and its result), then apply its actions in
// order: status.restoreInPlace first (the pass stops for this group when a write fails), the
// coordinator's freeze/lift and the reclones through the group source (controller_options::
// ask_group), the Job created or deleted, Events, bloodraven_restore_* on Succeeded.
#include "actors/operator/kube/restore/restore_in_place_pass.hpp"

#include <caf/all.hpp>

#include "actors/operator/group/durable_state_json.hpp"
#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/backup/job_status.hpp"
#include "actors/operator/kube/core/kube_state_store.hpp"
#include "actors/operator/kube/platform/kube_router.hpp"
#include "actors/operator/kube/restore/restore_in_place.hpp"
#include "actors/operator/kube/restore/restore_metrics.hpp"
#include "actors/operator/kube/restore/restore_render.hpp"
#include "actors/operator/decide/group_step.hpp"
#include "actors/operator/decide/restore_freeze.hpp"
#include "config/render/names.hpp"
#include "config/rfc3339.hpp"
#include "io/log/log.hpp"

namespace br::restore_ctl {

namespace {

using kube::resources::mysqlfailovergroups;

std::string str(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

bool bootstrap_running(const json& status) {
  const json b = status.is_object() ? status.value("bootstrap", json::object()) : json::object();
  const std::string phase = str(b, "phase");
  return !phase.empty() && phase != "Done" && phase != "Failed" && phase != "Pending";
}

}  // namespace

bool target_fenced(const json& status, const std::string& target, const std::vector<json>& pods,
                   const std::string& since, std::string* waits) {
  auto since_t = config::parse_rfc3339(since);
  // lastSeen is whole seconds (floored): a probe is fresh when its second is after Fencing's.
  auto fresh = [&](const json& s) {
    auto seen = config::parse_rfc3339(str(s, "lastSeen"));
    return since_t && seen && *seen > *since_t;
  };
  std::vector<std::string> wait;
  bool target_ok = false;
  for (const auto& s : status.value("sites", json::array())) {
    if (!s.is_object()) continue;
    const std::string name = str(s, "name"), state = str(s, "state");
    if (name == target) {
      target_ok = state == "read-only" && fresh(s);
      continue;
    }
    if (state == "unreachable") continue;  // restore-pending afterwards; the Job refuses a served replica
    if (!fresh(s) || s.value("replicating", false)) wait.push_back(name + " not seen stopped");
  }
  if (!target_ok) wait.insert(wait.begin(), target + " not seen read-only");
  for (const auto& p : pods) {
    const json labels = p.value("metadata", json::object()).value("labels", json::object());
    if (str(labels, std::string{render::label_site}.c_str()) == target &&
        str(labels, std::string{render::label_role}.c_str()) == "primary")
      wait.push_back(target + " still labelled primary");
  }
  if (waits) {
    waits->clear();
    for (const auto& w : wait) *waits += (waits->empty() ? "" : ", ") + w;
  }
  return wait.empty();
}

in_place_pass::in_place_pass(const controller_options& o, kube::client& c, kube::event_recorder& events)
    : o_(o), c_(c), events_(events) {}

void in_place_pass::failed(const char* what, const std::string& name, const std::string& error) {
  ++failures_;
  log::warn("restore controller: API call failed", {{"what", what}, {"name", name}, {"error", error}});
}

std::optional<restore_freeze_record> in_place_pass::freeze_record(const std::string& ns,
                                                                  const std::string& group) {
  auto cm = c_.get(kube::resources::configmaps, ns, state_configmap_name(group));
  if (!cm) {
    if (cm.error().not_found()) return restore_freeze_record{};  // the coordinator never stored
    failed("get state", group, cm.error().describe());
    return std::nullopt;
  }
  auto text = (*cm).value("data", json::object()).value(state_configmap_key, std::string{});
  auto parsed = json::parse(text, nullptr, false);
  auto d = parsed.is_discarded() ? caf::expected<durable_state>(caf::sec::invalid_argument)
                                 : durable_state_from_json(parsed);
  if (!d) {
    failed("read state", group, "the state ConfigMap does not hold a readable state");
    return std::nullopt;
  }
  return d->restore_freeze;
}

std::optional<std::string> in_place_pass::ask(const config::failover_group& g, const std::string& key,
                                              const std::string& value) {
  if (!o_.ask_group) return std::nullopt;
  auto answer = o_.ask_group(g.metadata.namespace_name, g.metadata.name, key, value);
  log::info("restore-in-place request answered",
            {{"group", g.metadata.name}, {"request", value}, {"answer", answer ? *answer : "no answer"}});
  return answer;
}

void in_place_pass::run(const json& group_object, config::failover_group g, const json* job,
                        const std::string& now) {
  const std::string ns = g.metadata.namespace_name, name = g.metadata.name;  // g moves into `in`
  in_place_input in;
  in.status = group_object.value("status", json::object());
  if (!in.status.is_object()) in.status = json::object();
  in.now = now;
  in.fencing_limit = o_.fencing_deadline;
  in.job = backup_ctl::view_job(job);
  const json rec = in.status.value("restoreInPlace", json::object());
  const std::string phase = str(rec, "phase");
  const json annotations = group_object.value("metadata", json::object()).value("annotations", json::object());
  in.lift_request = str(annotations, restore_lift_annotation);
  if (phase == "Failed" && !g.spec.restore_in_place && in.lift_request.empty()) return;  // terminal
  if (in.job.succeeded || in.job.failed) {
    std::string error;
    in.job.result = backup_ctl::newest_termination_message(
        c_, ns,
        std::string{label_restore} + "=" + name + ",app.kubernetes.io/component=restore-in-place,job-name=" +
            replace_job_name(name, str(rec, "confirmTokenUsed")),
        error);
    if (!error.empty()) return failed("list pods", name, error);
  }
  if (g.spec.restore_in_place && g.spec.restore_in_place->source.mysql_backup_ref) {
    auto b = c_.get(backup_ctl::resources::mysqlbackups, ns, g.spec.restore_in_place->source.mysql_backup_ref->name);
    if (b) in.backup = *b;
    else if (!b.error().not_found()) return failed("get", "mysqlbackup", b.error().describe());
  }
  auto freeze = freeze_record(ns, name);
  if (!freeze) return;
  in.freeze = *freeze;
  const std::string target = str(rec, "targetSite");
  if (phase == "Fencing" && !target.empty()) {
    kube::list_options lo;
    lo.label_selector = group_pod_selector(name);
    auto pods = c_.list(kube::resources::pods, ns, lo);
    if (!pods) return failed("list pods", name, pods.error().describe());
    std::vector<json> items;
    for (const auto& p : (*pods).value("items", json::array())) items.push_back(p);
    in.target_fenced = target_fenced(in.status, target, items, str(rec, "fencingStartTime"), &in.fencing_waits);
  }
  in.plan_running = bootstrap_running(in.status);
  in.group = std::move(g);
  const auto& gg = in.group;
  auto render = [&](const config::failover_group& x, const restore_source& s, const std::string& t) {
    return render_replace_job(x, s, t, o_.render);
  };
  auto actions = decide_restore_in_place(in, render);
  json written = rec;
  for (size_t i = 0; i < actions.size(); ++i) {
    auto& a = actions[i];
    switch (a.kind) {
      case in_place_step::status: {
        auto r = c_.merge_patch(mysqlfailovergroups, ns, name, {{"status", {{"restoreInPlace", a.body}}}},
                                "status");
        if (!r) return failed("status", name, r.error().describe());
        const bool reached = str(written, "phase") != str(a.body, "phase");  // not a later update
        written = a.body;
        const std::string p = str(a.body, "phase");
        log::info("restore in place phase", {{"group", name}, {"namespace", ns}, {"phase", p},
                                             {"message", str(a.body, "message")}});
        if (p == "Succeeded" && reached)
          metrics::restore_succeeded(ns, name, "in_place", str(a.body, "targetSite"), a.duration_seconds,
                                     a.completed_unix, a.source_size_bytes);
        break;
      }
      case in_place_step::freeze:
      case in_place_step::lift:
      case in_place_step::cancel:
      case in_place_step::abandon: {
        const std::string verb = a.kind == in_place_step::freeze ? "freeze:"
                                 : a.kind == in_place_step::lift ? "lift:"
                                 : a.kind == in_place_step::cancel ? "cancel:"
                                                                   : "abandon:";
        auto answer = ask(gg, restore_freeze_key, verb + a.arg);
        if (!answer) return;  // not reached: asked again next pass
        if (a.kind == in_place_step::freeze && answer->rfind("rejected: ", 0) == 0) {
          // The refusal is final for this token: decided again at once so Failed says why.
          in.status["restoreInPlace"] = written;
          in.refused = answer->substr(10);
          auto again = decide_restore_in_place(in, render);
          actions.resize(i + 1);
          actions.insert(actions.end(), again.begin(), again.end());
        }
        break;
      }
      case in_place_step::create_job: {
        auto r = c_.create(backup_ctl::resources::jobs, ns, a.body);
        if (!r && !r.error().already_exists()) return failed("create job", a.arg, r.error().describe());
        log::info("restore in place Job created", {{"job", a.arg}, {"namespace", ns}});
        break;
      }
      case in_place_step::delete_job: {
        kube::delete_options d;
        d.propagation_policy = "Background";
        auto r = c_.remove(backup_ctl::resources::jobs, ns, a.arg, d);
        if (!r && !r.error().not_found()) failed("delete job", a.arg, r.error().describe());
        break;
      }
      case in_place_step::reclone: {
        auto answer = ask(gg, reclone_annotation, a.body.get<std::string>());
        if (!answer || !reclone_answer_final(*answer)) return;  // asked again on a later pass
        auto r = c_.merge_patch(mysqlfailovergroups, ns, name,
                                {{"status", {{"restoreInPlace", {{"reclones", {{a.arg, *answer}}}}}}}}, "status");
        if (!r) return failed("status", name, r.error().describe());
        break;
      }
      case in_place_step::event: {
        auto r = events_.record(kube::ref_of(group_object), a.event_type, a.reason, a.message);
        if (!r) failed("event", name, r.error().describe());
        break;
      }
    }
  }
}

group_asker ask_through(caf::actor_system& sys, group_source_actor source, std::chrono::milliseconds timeout) {
  return [&sys, source, timeout](const std::string& ns, const std::string& name, const std::string& key,
                                 const std::string& value) -> std::optional<std::string> {
    std::optional<std::string> out;
    caf::scoped_actor self{sys};
    self->request(source, timeout, annotate_atom::value, ns, name, key, value)
        .receive([&](std::string& answer) { out = std::move(answer); }, [&](caf::error&) {});
    return out;
  };
}

}  // namespace br::restore_ctl
