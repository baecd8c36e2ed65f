// The backup controller: list, decide (backup_decide.hpp), apply (see backup_controller.hpp).
#include "actors/operator/kube/backup/backup_controller.hpp"

#include <caf/all.hpp>

#include "actors/operator/kube/core/guarded_pass.hpp"

#include <map>
#include <set>

#include "actors/operator/kube/backup/backup_decide.hpp"
#include "actors/operator/kube/backup/backup_metrics.hpp"
#include "actors/operator/kube/backup/job_status.hpp"
#include "config/group_validate.hpp"
#include "config/rfc3339.hpp"
#include "config/render/names.hpp"
#include "io/kube/events.hpp"
#include "io/log/log.hpp"

namespace br::backup_ctl {
namespace {

using kube::resources::mysqlfailovergroups;

std::string now_rfc3339() {
  return config::format_rfc3339(
      std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now()));
}

std::int64_t ms_of(const std::string& t) {
  auto p = config::parse_rfc3339(t);
  return p ? p->time_since_epoch().count() : 0;
}

std::string key(const std::string& ns, const std::string& name) {
  return ns + "/" + name;
}

struct pass {
  const controller_options& o;
  kube::client& c;
  kube::event_recorder events;
  int failures = 0;

  explicit pass(const controller_options& opts)
      : o(opts), c(*opts.client), events(*opts.client, {"bloodraven", opts.instance, std::chrono::seconds(600)}) {}

  void failed(const char* what, const std::string& name, const kube::api_error& e) {
    ++failures;
    log::warn("backup controller: API call failed",
              {{"what", what}, {"name", name}, {"error", e.describe()}});
  }

  /// Every item of `r` in the watched namespaces; false when a list failed (then nothing is
  /// decided from a partial view).
  bool list(const kube::resource_ref& r, const std::string& selector, std::vector<json>& out) {
    std::vector<std::string> scopes = o.namespaces.empty() ? std::vector<std::string>{""} : o.namespaces;
    for (const auto& ns : scopes) {
      kube::list_options lo;
      lo.label_selector = selector;
      auto got = c.list_all(r, ns, lo);
      if (!got) {
        failed("list", r.plural, got.error());
        return false;
      }
      for (auto& item : (*got)["items"]) out.push_back(std::move(item));
    }
    return true;
  }

  /// The newest terminated container's message among the Job's pods.
  std::string termination_message(const std::string& ns, const std::string& backup) {
    std::string error;
    auto m = newest_termination_message(
        c, ns,
        std::string{label_backup} + "=" + backup + "," + std::string{label_component} + "=backup",
        error);
    if (!error.empty()) {
      ++failures;
      log::warn("backup controller: API call failed",
                {{"what", "list pods"}, {"name", backup}, {"error", error}});
    }
    return m;
  }

  /// False when the action failed in a way that must stop the backup's later actions this pass
  /// (a Job that could not be created is not recorded as started).
  bool apply(const json& backup, const action& a, const std::string& group, const std::string& profile) {
    const std::string ns = backup["metadata"].value("namespace", "");
    const std::string rv = backup["metadata"].value("resourceVersion", "");
    switch (a.kind) {
      case action_kind::add_finalizer:
      case action_kind::remove_finalizer: {
        json fs = json::array();
        for (const auto& f : backup["metadata"].value("finalizers", json::array()))
          if (f != finalizer) fs.push_back(f);
        if (a.kind == action_kind::add_finalizer) fs.push_back(finalizer);
        auto r = c.merge_patch(resources::mysqlbackups, ns, a.name,
                               {{"metadata", {{"finalizers", fs}, {"resourceVersion", rv}}}});
        if (!r && !r.error().not_found()) failed("finalizer", a.name, r.error());
        break;
      }
      case action_kind::status: {
        auto r = c.merge_patch(resources::mysqlbackups, ns, a.name, {{"status", a.body}}, "status");
        if (!r) {
          failed("status", a.name, r.error());
          break;
        }
        std::string phase = a.body.value("phase", "");
        if (phase == "Succeeded" || phase == "Failed")
          metrics::backups_total(ns, group, profile, phase).Increment();
        break;
      }
      case action_kind::create_job: {
        auto r = c.create(resources::jobs, ns, a.body);
        if (!r && !r.error().already_exists()) {
          failed("create job", a.name, r.error());
          return false;
        }
        break;
      }
      case action_kind::delete_job: {
        kube::delete_options d;
        d.propagation_policy = "Background";
        auto r = c.remove(resources::jobs, ns, a.name, d);
        if (!r && !r.error().not_found()) failed("delete job", a.name, r.error());
        break;
      }
      case action_kind::delete_backup: {
        auto r = c.remove(resources::mysqlbackups, ns, a.name);
        if (!r && !r.error().not_found()) failed("delete backup", a.name, r.error());
        break;
      }
      case action_kind::event: {
        auto r = events.record(kube::ref_of(backup), a.event_type, a.reason, a.message);
        if (!r) failed("event", a.name, r.error());
        if (a.reason == "ArtifactCleanupSucceeded" || a.reason == "ArtifactCleanupFailed")
          metrics::cleanups_total(ns, group, a.reason == "ArtifactCleanupSucceeded" ? "Succeeded"
                                                                                      : "Failed")
              .Increment();
        break;
      }
    }
    return true;
  }

  void run() {
    std::vector<json> group_items, backups, crons, jobs;
    if (!list(mysqlfailovergroups, "", group_items)) return;
    if (!list(resources::mysqlbackups, "", backups)) return;
    if (!list(resources::cronjobs, std::string{label_component} + "=backup-schedule", crons)) return;
    if (!list(resources::jobs, std::string{label_backup}, jobs)) return;

    std::map<std::string, group_view> groups;
    for (const auto& item : group_items) {
      auto v = view_of_group(item);
      groups[key(v.group.metadata.namespace_name, v.group.metadata.name)] = std::move(v);
    }

    // CronJobs: one per schedule of each valid group; those of groups gone are deleted too.
    std::map<std::string, std::vector<json>> crons_by_group;
    for (auto& cj : crons) {
      const json l = cj["metadata"].value("labels", json::object());
      crons_by_group[key(cj["metadata"].value("namespace", ""),
                         l.value(std::string{render::label_group}, ""))]
          .push_back(std::move(cj));
    }
    for (const auto& [k, existing] : crons_by_group)
      if (!groups.contains(k))
        for (const auto& cj : existing) delete_cronjob(cj["metadata"].value("namespace", ""),
                                                       cj["metadata"].value("name", ""));
    for (const auto& [k, g] : groups) {
      if (!g.valid) continue;  // a refused spec changes nothing
      auto it = crons_by_group.find(k);
      auto plan = plan_cronjobs(g.group, it == crons_by_group.end() ? std::vector<json>{} : it->second,
                                [&](const config::backup_schedule_spec& s) {
                                  return render_cronjob(g.group, s, o.render);
                                });
      const auto& ns = g.group.metadata.namespace_name;
      for (const auto& cj : plan.create) {
        auto r = c.create(resources::cronjobs, ns, cj);
        if (!r && !r.error().already_exists()) failed("create cronjob", cj["metadata"]["name"], r.error());
        else log::info("backup CronJob created", {{"cronjob", cj["metadata"]["name"].get<std::string>()}, {"namespace", ns}});
      }
      for (const auto& cj : plan.update) {
        auto r = c.update(resources::cronjobs, cj);
        if (!r) failed("update cronjob", cj["metadata"]["name"], r.error());
      }
      for (const auto& name : plan.remove) delete_cronjob(ns, name);
    }

    // MysqlBackups.
    std::map<std::string, const json*> jobs_by_name;
    for (const auto& j : jobs)
      jobs_by_name[key(j["metadata"].value("namespace", ""), j["metadata"].value("name", ""))] = &j;
    job_renderers render{
        [&](const json& b, const config::failover_group& g, const config::backup_profile_spec& p,
            const std::string& source, const std::string& active) {
          return render_backup_job(b, g, p, source, active, o.render);
        },
        [&](const json& b, const config::failover_group& g, const config::backup_profile_spec& p) {
          return render_cleanup_job(b, g, p, o.render);
        }};
    std::string now = now_rfc3339();
    for (const auto& b : backups) {
      const std::string ns = b["metadata"].value("namespace", "");
      const std::string name = b["metadata"].value("name", "");
      const json spec = b.value("spec", json::object());
      const std::string group = spec.value("failoverGroupRef", json::object()).value("name", "");
      backup_input in;
      in.backup = b;
      if (auto it = groups.find(key(ns, group)); it != groups.end()) in.group = it->second;
      auto find_job = [&](const std::string& n) -> const json* {
        auto it = jobs_by_name.find(key(ns, n));
        return it == jobs_by_name.end() ? nullptr : it->second;
      };
      in.backup_job = view_job(find_job(backup_job_name(name)));
      in.cleanup_job = view_job(find_job(cleanup_job_name(name)));
      if (b.value("status", json::object()).value("phase", "") == "Running" &&
          (in.backup_job.succeeded || in.backup_job.failed))
        in.backup_job.result = termination_message(ns, name);
      in.now = now;
      for (const auto& a : decide_backup(in, render))
        if (!apply(b, a, group, spec.value("profileName", ""))) break;
    }

    // Retention, per group and profile, among the backups that carry our finalizer (their
    // artifacts are deleted by a cleanup Job before the object goes).
    auto now_ms = ms_of(now);
    for (const auto& [k, g] : groups) {
      if (!g.valid || !g.group.spec.backup) continue;
      const auto& ns = g.group.metadata.namespace_name;
      for (const auto& p : g.group.spec.backup->profiles) {
        std::vector<retained_backup> mine;
        std::map<std::string, const json*> by_name;
        std::int64_t newest_success = 0;
        for (const auto& b : backups) {
          const json spec = b.value("spec", json::object());
          if (b["metadata"].value("namespace", "") != ns ||
              spec.value("failoverGroupRef", json::object()).value("name", "") != g.group.metadata.name ||
              spec.value("profileName", "") != p.name)
            continue;
          const json st = b.value("status", json::object());
          std::string t = st.value("completionTime", b["metadata"].value("creationTimestamp", ""));
          if (st.value("phase", "") == "Succeeded")
            newest_success = std::max(newest_success, ms_of(st.value("completionTime", "")));
          bool ours = false;
          for (const auto& f : b["metadata"].value("finalizers", json::array()))
            if (f == finalizer) ours = true;
          if (!ours || b["metadata"].contains("deletionTimestamp")) continue;
          mine.push_back({b["metadata"].value("name", ""), st.value("phase", ""), ms_of(t)});
          by_name[mine.back().name] = &b;
        }
        if (newest_success > 0)
          metrics::set_last_success(ns, g.group.metadata.name, p.name, newest_success / 1000.0,
                                    (now_ms - newest_success) / 1000.0);
        for (const auto& name : beyond_retention(mine, config::effective_retention(p), now_ms)) {
          log::info("backup beyond retention: deleting", {{"backup", name}, {"namespace", ns}, {"profile", p.name}});
          apply(*by_name[name], {action_kind::delete_backup, name, {}, {}, {}, {}},
                g.group.metadata.name, p.name);
        }
      }
    }
  }

  void delete_cronjob(const std::string& ns, const std::string& name) {
    kube::delete_options d;
    d.propagation_policy = "Background";
    auto r = c.remove(resources::cronjobs, ns, name, d);
    if (!r && !r.error().not_found()) failed("delete cronjob", name, r.error());
    else log::info("backup CronJob deleted", {{"cronjob", name}, {"namespace", ns}});
  }
};

struct controller_state {
  controller_options o;
  static inline const char* name = "backup_controller";
};

ticking_actor::behavior_type controller(ticking_actor::stateful_pointer<controller_state> self,
                                        controller_options o) {
  self->state.o = std::move(o);
  return op::guarded_pass_behavior(self, "backup controller",
                                   [](const auto& opts) { reconcile_backups_once(opts); });
}

}  // namespace

int reconcile_backups_once(const controller_options& o) {
  pass p{o};
  p.run();
  return p.failures;
}

ticking_actor spawn_backup_controller(caf::actor_system& sys, controller_options o) {
  return sys.spawn<caf::detached>(controller, std::move(o));
}

child_spec backup_controller_child(controller_options o) {
  child_spec c;
  c.name = "backup_controller";
  c.kind = "backup_controller";
  c.start = [o](caf::local_actor* sup, const std::string&) -> caf::actor {
    return as_child(sup->spawn<caf::detached>(controller, o));
  };
  return c;
}

}  // namespace br::backup_ctl
