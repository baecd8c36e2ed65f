// The verification controller: list, decide (verify_decide.hpp), apply (see verify_controller.hpp).
#include "actors/operator/kube/verify/verify_controller.hpp"

#include <caf/all.hpp>

#include "actors/operator/kube/core/guarded_pass.hpp"

#include <map>

#include "actors/operator/kube/backup/job_status.hpp"
#include "actors/operator/kube/verify/verify_decide.hpp"
#include "actors/operator/kube/verify/verify_metrics.hpp"
#include "actors/operator/kube/verify/verify_render.hpp"
#include "config/group_validate.hpp"
#include "config/render/names.hpp"
#include "config/rfc3339.hpp"
#include "io/kube/events.hpp"
#include "io/log/log.hpp"

namespace br::verify_ctl {
namespace {

using kube::resources::mysqlfailovergroups;
namespace bres = backup_ctl::resources;

std::string now_rfc3339() {
  return config::format_rfc3339(std::chrono::time_point_cast<std::chrono::milliseconds>(std::chrono::system_clock::now()));
}

std::int64_t ms_of(const std::string& t) {
  auto p = config::parse_rfc3339(t);
  return p ? p->time_since_epoch().count() : 0;
}

std::string key(const std::string& ns, const std::string& name) { return ns + "/" + name; }

struct pass {
  const backup_ctl::controller_options& o;
  kube::client& c;
  kube::event_recorder events;
  int failures = 0;

  explicit pass(const backup_ctl::controller_options& opts)
      : o(opts), c(*opts.client), events(*opts.client, {"bloodraven", opts.instance, std::chrono::seconds(600)}) {}

  void failed(const char* what, const std::string& name, const std::string& e) {
    ++failures;
    log::warn("verification controller: API call failed", {{"what", what}, {"name", name}, {"error", e}});
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

  /// The pod of the verification's Job that has a running container ("" = none).
  std::string running_pod(const std::string& ns, const std::string& name) {
    kube::list_options lo;
    lo.label_selector = std::string{label_verification} + "=" + name;
    auto pods = c.list(kube::resources::pods, ns, lo);
    if (!pods) {
      failed("list pods", name, pods.error().describe());
      return "";
    }
    for (const auto& p : (*pods)["items"])
      for (const auto& cs : p.value("status", json::object()).value("containerStatuses", json::array()))
        if (cs.value("state", json::object()).contains("running")) return p["metadata"].value("name", "");
    return "";
  }

  void apply(const json& v, const action& a, const std::string& group, const std::string& profile) {
    const std::string ns = v["metadata"].value("namespace", "");
    switch (a.kind) {
      case action_kind::status: {
        auto r = c.merge_patch(resources::mysqlbackupverifications, ns, a.name, {{"status", a.body}}, "status");
        if (!r) {
          failed("status", a.name, r.error().describe());
          break;
        }
        // The result moment (completionTime written): counted once.
        if (a.body.contains("completionTime")) {
          const bool ok = a.body.value("phase", "") != "Failed" && [&] {
            for (const auto& cnd : a.body.value("conditions", json::array()))
              if (cnd.value("type", "") == "Verified") return cnd.value("status", "") == "True";
            return false;
          }();
          const double now = static_cast<double>(ms_of(a.body.value("completionTime", ""))) / 1000.0;
          metrics::verification_ended(ns, group, profile, ok, a.body.value("durationSeconds", 0.0), now,
                                      a.body.contains("replayLagSeconds") ? a.body.value("replayLagSeconds", 0.0) : -1.0);
        }
        break;
      }
      case action_kind::create_job: {
        auto r = c.create(bres::jobs, ns, a.body);
        if (!r && !r.error().already_exists()) failed("create job", a.name, r.error().describe());
        break;
      }
      case action_kind::delete_job: {
        kube::delete_options d;
        d.propagation_policy = "Background";
        auto r = c.remove(bres::jobs, ns, a.name, d);
        if (!r && !r.error().not_found()) failed("delete job", a.name, r.error().describe());
        break;
      }
      case action_kind::event: {
        auto r = events.record(kube::ref_of(v), a.event_type, a.reason, a.message);
        if (!r) failed("event", a.name, r.error().describe());
        break;
      }
    }
  }

  void run() {
    std::vector<json> group_items, backups, verifications, crons, jobs;
    if (!list(mysqlfailovergroups, "", group_items)) return;
    if (!list(bres::mysqlbackups, "", backups)) return;
    if (!list(resources::mysqlbackupverifications, "", verifications)) return;
    if (!list(bres::cronjobs, std::string{backup_ctl::label_component} + "=verify-schedule", crons)) return;
    if (!list(bres::jobs, std::string{label_verification}, jobs)) return;

    std::map<std::string, group_view> groups;
    for (const auto& item : group_items) {
      auto g = backup_ctl::view_of_group(item);
      groups[key(g.group.metadata.namespace_name, g.group.metadata.name)] = std::move(g);
    }

    // CronJobs: one per enabled profile of each valid group; those of groups gone are deleted.
    std::map<std::string, std::vector<json>> crons_by_group;
    for (auto& cj : crons) {
      const json l = cj["metadata"].value("labels", json::object());
      crons_by_group[key(cj["metadata"].value("namespace", ""), l.value(std::string{render::label_group}, ""))]
          .push_back(std::move(cj));
    }
    for (const auto& [k, existing] : crons_by_group)
      if (!groups.contains(k))
        for (const auto& cj : existing) delete_cronjob(cj["metadata"].value("namespace", ""), cj["metadata"].value("name", ""));
    for (const auto& [k, g] : groups) {
      if (!g.valid) continue;
      auto it = crons_by_group.find(k);
      auto plan = plan_verify_cronjobs(g.group, it == crons_by_group.end() ? std::vector<json>{} : it->second,
                                       [&](const config::backup_profile_spec& p, const config::verification_spec& v) {
                                         return render_verify_cronjob(g.group, p, v, o.render);
                                       });
      const auto& ns = g.group.metadata.namespace_name;
      for (const auto& cj : plan.create) {
        auto r = c.create(bres::cronjobs, ns, cj);
        if (!r && !r.error().already_exists()) failed("create cronjob", cj["metadata"]["name"], r.error().describe());
      }
      for (const auto& cj : plan.update) {
        auto r = c.update(bres::cronjobs, cj);
        if (!r) failed("update cronjob", cj["metadata"]["name"], r.error().describe());
      }
      for (const auto& name : plan.remove) delete_cronjob(ns, name);
    }

    std::map<std::string, std::vector<backup_entry>> backups_by_ns;
    for (const auto& b : backups) backups_by_ns[b["metadata"].value("namespace", "")].push_back(backup_entry_of(b));
    std::map<std::string, const json*> jobs_by_name;
    for (const auto& j : jobs) jobs_by_name[key(j["metadata"].value("namespace", ""), j["metadata"].value("name", ""))] = &j;
    job_renderer render = [&](const json& v, const config::failover_group& g, const config::backup_profile_spec& p,
                              const config::verification_run_spec& run, const backup_entry& b) {
      return render_verify_job(v, g, p, run, b, o.render);
    };
    const std::string now = now_rfc3339();
    for (const auto& v : verifications) {
      const std::string ns = v["metadata"].value("namespace", "");
      const std::string name = v["metadata"].value("name", "");
      const json spec = v.value("spec", json::object());
      const std::string group = spec.value("failoverGroupRef", json::object()).value("name", "");
      const std::string phase = v.value("status", json::object()).value("phase", "");
      if (phase == "Succeeded" || phase == "Failed") continue;
      verify_input in;
      in.verification = v;
      if (auto it = groups.find(key(ns, group)); it != groups.end()) in.group = it->second;
      in.backups = backups_by_ns[ns];
      const json* job = nullptr;
      if (auto it = jobs_by_name.find(key(ns, verify_job_name(name))); it != jobs_by_name.end()) job = it->second;
      in.job = backup_ctl::view_job(job);
      in.job_deleting = job && (*job)["metadata"].contains("deletionTimestamp");
      if (phase == "Provisioning" && in.job.exists && !in.job.succeeded && !in.job.failed) {
        in.pod_name = running_pod(ns, name);
        in.pod_running = !in.pod_name.empty();
      }
      if (in.job.succeeded || in.job.failed) {
        std::string error;
        in.job.result = backup_ctl::newest_termination_message(c, ns, std::string{label_verification} + "=" + name, error);
        if (!error.empty()) {
          failed("list pods", name, error);
          continue;  // no decision from a missing result
        }
      }
      in.now = now;
      for (const auto& a : decide_verification(in, render)) apply(v, a, group, spec.value("profileName", ""));
    }

    // Retention per group and profile.
    const auto now_ms = ms_of(now);
    for (const auto& [k, g] : groups) {
      if (!g.valid || !g.group.spec.backup) continue;
      const auto& ns = g.group.metadata.namespace_name;
      for (const auto& p : g.group.spec.backup->profiles) {
        auto pv = profile_verification(p);
        const auto policy = pv ? pv->retention_policy : config::verification_retention_spec{};
        std::vector<backup_ctl::retained_backup> mine;
        for (const auto& v : verifications) {
          const json spec = v.value("spec", json::object());
          if (v["metadata"].value("namespace", "") != ns || v["metadata"].contains("deletionTimestamp") ||
              spec.value("failoverGroupRef", json::object()).value("name", "") != g.group.metadata.name ||
              spec.value("profileName", "") != p.name)
            continue;
          const json st = v.value("status", json::object());
          mine.push_back({v["metadata"].value("name", ""), st.value("phase", ""),
                          ms_of(st.value("completionTime", v["metadata"].value("creationTimestamp", "")))});
        }
        for (const auto& name : verifications_beyond_retention(mine, policy, now_ms)) {
          log::info("verification beyond retention: deleting", {{"verification", name}, {"namespace", ns}, {"profile", p.name}});
          kube::delete_options d;
          d.propagation_policy = "Background";
          auto r = c.remove(resources::mysqlbackupverifications, ns, name, d);
          if (!r && !r.error().not_found()) failed("delete verification", name, r.error().describe());
        }
      }
    }
  }

  void delete_cronjob(const std::string& ns, const std::string& name) {
    kube::delete_options d;
    d.propagation_policy = "Background";
    auto r = c.remove(bres::cronjobs, ns, name, d);
    if (!r && !r.error().not_found()) failed("delete cronjob", name, r.error().describe());
  }
};

struct controller_state {
  backup_ctl::controller_options o;
  static inline const char* name = "verify_controller";
};

ticking_actor::behavior_type controller(ticking_actor::stateful_pointer<controller_state> self,
                                        backup_ctl::controller_options o) {
  self->state.o = std::move(o);
  return op::guarded_pass_behavior(self, "verification controller",
                                   [](const auto& opts) { reconcile_verifications_once(opts); });
}

}  // namespace

int reconcile_verifications_once(const backup_ctl::controller_options& o) {
  pass p{o};
  p.run();
  return p.failures;
}

ticking_actor spawn_verify_controller(caf::actor_system& sys, backup_ctl::controller_options o) {
  return sys.spawn<caf::detached>(controller, std::move(o));
}

}  // namespace br::verify_ctl
