// The restore controller: list, decide (restore_decide.hpp), apply (see restore_controller.hpp).
#include "actors/operator/kube/restore/restore_controller.hpp"

#include <caf/all.hpp>

#include "actors/operator/kube/core/guarded_pass.hpp"

#include <map>
#include <optional>

#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/backup/job_status.hpp"
#include "actors/operator/kube/restore/restore_decide.hpp"
#include "actors/operator/kube/restore/restore_in_place.hpp"
#include "actors/operator/kube/restore/restore_in_place_pass.hpp"
#include "actors/operator/kube/restore/restore_metrics.hpp"
#include "actors/operator/kube/restore/restore_render.hpp"
#include "config/group_validate.hpp"
#include "config/render/names.hpp"
#include "config/rfc3339.hpp"
#include "io/kube/events.hpp"
#include "io/log/log.hpp"

namespace br::restore_ctl {
namespace {

using kube::resources::mysqlfailovergroups;

std::string now_rfc3339() {
  return config::format_rfc3339(
      std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now()));
}

struct pass {
  const controller_options& o;
  kube::client& c;
  kube::event_recorder events;
  int failures = 0;

  explicit pass(const controller_options& opts)
      : o(opts),
        c(*opts.client),
        events(*opts.client, {"bloodraven", opts.instance, std::chrono::seconds(600)}) {}

  void failed(const char* what, const std::string& name, const std::string& error) {
    ++failures;
    log::warn("restore controller: API call failed",
              {{"what", what}, {"name", name}, {"error", error}});
  }

  bool list(const kube::resource_ref& r, const std::string& selector, std::vector<json>& out) {
    std::vector<std::string> scopes = o.namespaces.empty() ? std::vector<std::string>{""} : o.namespaces;
    for (const auto& ns : scopes) {
      kube::list_options lo;
      lo.label_selector = selector;
      auto got = c.list_all(r, ns, lo);
      if (!got) {
        failed("list", r.plural, got.error().describe());
        return false;
      }
      for (auto& item : (*got)["items"]) out.push_back(std::move(item));
    }
    return true;
  }

  /// The object, null when it does not exist; nullopt when the read failed.
  std::optional<json> get(const kube::resource_ref& r, const std::string& ns, const std::string& name) {
    auto got = c.get(r, ns, name);
    if (got) return *got;
    if (got.error().not_found()) return json();
    failed("get", name, got.error().describe());
    return std::nullopt;
  }

  /// False when the pass must not go on with this group's later actions (a Job that could not be
  /// created is not recorded as started).
  bool apply(const json& group_object, const config::failover_group& g, const action& a) {
    const auto& ns = g.metadata.namespace_name;
    const auto& name = g.metadata.name;
    switch (a.kind) {
      case action_kind::status: {
        auto r = c.merge_patch(mysqlfailovergroups, ns, name, {{"status", {{"restore", a.body}}}},
                               "status");
        if (!r) {
          failed("status", name, r.error().describe());
          return false;  // nothing after an unrecorded phase (a Job is created only once Running is stored)
        }
        const std::string phase = a.body.value("phase", "");
        log::info("restore phase", {{"group", name}, {"namespace", ns}, {"phase", phase},
                                    {"message", a.body.value("message", "")}});
        if (phase == "Succeeded")
          metrics::restore_succeeded(ns, name, "init_from_backup", a.body.value("targetSite", ""),
                                     a.duration_seconds, a.completed_unix, a.source_size_bytes);
        break;
      }
      case action_kind::create_job: {
        auto r = c.create(backup_ctl::resources::jobs, ns, a.body);
        if (!r && !r.error().already_exists()) {
          failed("create job", a.name, r.error().describe());
          return false;
        }
        log::info("restore Job created", {{"job", a.name}, {"namespace", ns}});
        break;
      }
      case action_kind::delete_job: {
        kube::delete_options d;
        d.propagation_policy = "Background";
        auto r = c.remove(backup_ctl::resources::jobs, ns, a.name, d);
        if (!r && !r.error().not_found()) failed("delete job", a.name, r.error().describe());
        break;
      }
      case action_kind::event: {
        auto r = events.record(kube::ref_of(group_object), a.event_type, a.reason, a.message);
        if (!r) failed("event", name, r.error().describe());
        break;
      }
    }
    return true;
  }

  /// spec.restoreInPlace set, or a restore it started not ended (running, or Succeeded with its
  /// reclones still asked): seen to its end even when the field was removed meanwhile.
  static bool in_place_wanted(const config::failover_group& g, const json& status) {
    if (g.spec.restore_in_place) return true;
    const json r = status.is_object() ? status.value("restoreInPlace", json::object()) : json::object();
    const std::string phase = r.is_object() ? r.value("phase", "") : "";
    if (phase == "Failed")  // lifted by request (kubectl bloodraven restore lift)
      return g.metadata.annotations.count(restore_lift_annotation) > 0;
    if (phase != "Succeeded") return !phase.empty();
    // Until the coordinator has released every restore-pending site (each reclone succeeded).
    const json pending = r.value("pendingSites", json());
    return !pending.is_array() || !pending.empty();
  }

  void run() {
    std::vector<json> groups, jobs;
    if (!list(mysqlfailovergroups, "", groups)) return;
    if (!list(backup_ctl::resources::jobs, std::string{label_restore}, jobs)) return;
    std::map<std::string, const json*> jobs_by_name;
    for (const auto& j : jobs)
      jobs_by_name[j["metadata"].value("namespace", "") + "/" + j["metadata"].value("name", "")] = &j;
    const std::string now = now_rfc3339();
    in_place_pass in_place{o, c, events};
    for (const auto& item : groups) {
      if (item["metadata"].contains("deletionTimestamp")) continue;
      auto parsed = config::parse_group(item);
      const json st = item.value("status", json::object());
      if (parsed.errors.empty() && in_place_wanted(parsed.group, st) &&
          config::validate(parsed.group, config::run_mode::kubernetes).empty()) {
        const auto& md = parsed.group.metadata;
        const json rip = st.is_object() ? st.value("restoreInPlace", json::object()) : json::object();
        const std::string used = rip.is_object() ? rip.value("confirmTokenUsed", "") : "";
        auto jit = jobs_by_name.find(md.namespace_name + "/" + replace_job_name(md.name, used));
        in_place.run(item, parsed.group, jit == jobs_by_name.end() ? nullptr : jit->second, now);
      }
      const json rs = st.is_object() ? st.value("restore", json::object()) : json::object();
      // A Running restore is seen to its end even when initFromBackup was removed meanwhile.
      const bool running = rs.is_object() && rs.value("phase", "") == "Running";
      if (!parsed.errors.empty() || (!parsed.group.spec.init_from_backup && !running)) continue;
      if (!config::validate(parsed.group, config::run_mode::kubernetes).empty())
        continue;  // a refused spec changes nothing (the group source reports it)
      restore_input in;
      in.group = std::move(parsed.group);
      const auto& g = in.group;
      const auto& ns = g.metadata.namespace_name;
      in.status = item.value("status", json::object());
      in.now = now;
      json r = in.status.value("restore", json::object());
      if (!r.is_object()) r = json::object();
      const std::string phase = r.value("phase", "");
      if (phase == "Failed") continue;  // terminal: nothing to read or do
      const std::string job_name = restore_job_name(g.metadata.name);
      auto jit = jobs_by_name.find(ns + "/" + job_name);
      in.job = backup_ctl::view_job(jit == jobs_by_name.end() ? nullptr : jit->second);
      if (phase != "Succeeded") {
        if ((in.job.succeeded || in.job.failed)) {
          std::string error;
          in.job.result = backup_ctl::newest_termination_message(
              c, ns, std::string{label_restore} + "=" + g.metadata.name, error);
          if (!error.empty()) {
            failed("list pods", job_name, error);
            continue;
          }
        }
        if (!in.job.exists && g.spec.init_from_backup) {
          const auto& src = g.spec.init_from_backup->source;
          if (src.mysql_backup_ref) {
            auto b = get(backup_ctl::resources::mysqlbackups, ns, src.mysql_backup_ref->name);
            if (!b) continue;
            in.backup = *b;
          }
          const std::string target = r.value("targetSite", config::effective_seed_site(g.spec));
          auto d = get(kube::resources::deployments, ns, render::site_name(g.metadata.name, target));
          if (!d) continue;
          in.deployment = *d;
        }
      }
      auto render = [&](const config::failover_group& gg, const restore_source& s,
                        const std::string& target) {
        return render_restore_job(gg, s, target, o.render);
      };
      for (const auto& a : decide_restore(in, render))
        if (!apply(item, g, a)) break;
    }
    failures += in_place.failures();
  }
};

struct controller_state {
  controller_options o;
  static inline const char* name = "restore_controller";
};

ticking_actor::behavior_type controller(ticking_actor::stateful_pointer<controller_state> self,
                                        controller_options o) {
  self->state.o = std::move(o);
  return op::guarded_pass_behavior(self, "restore controller",
                                   [](const auto& opts) { reconcile_restores_once(opts); });
}

}  // namespace

int reconcile_restores_once(const controller_options& o) {
  pass p{o};
  p.run();
  return p.failures;
}

ticking_actor spawn_restore_controller(caf::actor_system& sys, controller_options o) {
  return sys.spawn<caf::detached>(controller, std::move(o));
}

}  // namespace br::restore_ctl
