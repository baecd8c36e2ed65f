// The reconciler's blocking half: read the group, apply the rendered objects, report the workloads.
#include "actors/operator/kube/reconcile/reconcile_worker.hpp"

#include <caf/all.hpp>

#include <algorithm>

#include "actors/operator/kube/reconcile/reconcile_plan.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "config/render/dragonfly.hpp"
#include "config/render/gr_member.hpp"
#include "config/render/group_objects.hpp"
#include "config/render/member_rbac.hpp"
#include "config/render/names.hpp"
#include "config/render/rollout.hpp"
#include "io/kube/retry.hpp"
#include "messages/atoms.hpp"

namespace br {

using nlohmann::json;

namespace {

const kube::resource_ref* resource_of(const std::string& kind) {
  if (kind == "ConfigMap") return &kube::resources::configmaps;
  if (kind == "PersistentVolumeClaim") return &kube::resources::pvcs;
  if (kind == "Deployment") return &kube::resources::deployments;
  if (kind == "StatefulSet") return &kube::resources::statefulsets;
  if (kind == "Service") return &kube::resources::services;
  if (kind == "PodDisruptionBudget") return &kube::resources::pdbs;
  if (kind == "ServiceAccount") return &kube::resources::serviceaccounts;
  if (kind == "Role") return &kube::resources::roles;
  if (kind == "RoleBinding") return &kube::resources::rolebindings;
  return nullptr;
}

std::string name_of(const json& obj) { return obj["metadata"].value("name", ""); }

std::string site_of(const json& obj) {
  return obj["metadata"].value("labels", json::object()).value(std::string{render::label_site}, "");
}

/// The group, parsed, with the reconciler version it keeps; or a report saying why not.
struct loaded_group {
  json object;
  config::failover_group group;
  int version = 0;
};

std::optional<loaded_group> load(kube::client& c, const kube_platform_options& o, json& report) {
  auto got = c.get(mfg_resource, o.ns, o.group, o.call_timeout);
  if (!got) {
    report["state"] = got.error().not_found() ? "gone" : "error";
    report["errors"].push_back("get group: " + got.error().describe());
    return std::nullopt;
  }
  if ((*got)["metadata"].contains("deletionTimestamp")) {
    report["state"] = "terminating";
    return std::nullopt;
  }
  auto parsed = config::load_group_json(got->dump(), config::run_mode::kubernetes);
  if (!parsed.ok()) {
    report["state"] = "invalid";  // the group source reports it with field paths
    for (const auto& e : parsed.errors) report["errors"].push_back(e.to_string());
    return std::nullopt;
  }
  loaded_group lg;
  lg.object = std::move(*got);
  lg.group = std::move(parsed.group);
  lg.version = choose_reconciler_version(read_reconcile_info(lg.object.value("status", json())),
                                         lg.group.metadata.generation);
  report["generation"] = lg.group.metadata.generation;
  report["version"] = lg.version;
  return lg;
}

enum class write_outcome { none, written, failed, not_leading };

/// Creates or updates `desired` as plan_object_write says (nothing when it matches `live`,
/// null when absent), recording it in the report ("created"/"updated", or an error).
write_outcome write_planned(kube::client& c, const kube_platform_options& o,
                            const kube::resource_ref& res, const json& live, const json& desired,
                            json& report) {
  const auto kind = desired.value("kind", "");
  const auto name = name_of(desired);
  auto w = plan_object_write(live, desired);
  if (w.kind == object_write_kind::none) return write_outcome::none;
  if (!o.may_write()) {
    report["state"] = "error";
    report["errors"].push_back("not leading: the lease guard is not valid");
    return write_outcome::not_leading;
  }
  auto r = w.kind == object_write_kind::create ? c.create(res, o.ns, w.object, o.call_timeout)
                                               : c.update(res, w.object, o.call_timeout);
  if (!r) {
    report["state"] = "error";
    report["errors"].push_back((w.kind == object_write_kind::create ? "create " : "update ") +
                               kind + " " + name + ": " + r.error().describe());
    return write_outcome::failed;
  }
  report[w.kind == object_write_kind::create ? "created" : "updated"].push_back(kind + "/" + name);
  return write_outcome::written;
}

/// Reads the live copy of `desired` (its kind's resource) and writes it as write_planned does; a
/// failed read is recorded in the report (write_outcome::failed).
write_outcome apply_object(kube::client& c, const kube_platform_options& o, const json& desired,
                           json& report) {
  const auto* res = resource_of(desired.value("kind", ""));
  auto live = c.get(*res, o.ns, name_of(desired), o.call_timeout);
  if (!live && !live.error().not_found()) {
    report["state"] = "error";
    report["errors"].push_back("get " + desired.value("kind", "") + " " + name_of(desired) + ": " +
                               live.error().describe());
    return write_outcome::failed;
  }
  return write_planned(c, o, *res, live ? *live : json(nullptr), desired, report);
}

/// Group Replication: each site's member ServiceAccount, Role and RoleBinding
/// (render/member_rbac.hpp), the Role naming the site's pods as listed now (a Deployment's pod
/// names are only known once it made them; a new pod's sidecar retries until the next pass
/// names it); those of a site no longer in the spec are deleted. False when not leading.
bool apply_member_rbac(kube::client& c, const kube_platform_options& o, const loaded_group& lg,
                       json& report) {
  auto fail = [&](const std::string& what) {
    report["state"] = "error";
    report["errors"].push_back(what);
  };
  kube::list_options lo;
  lo.label_selector = std::string{render::label_group} + "=" + o.group;
  auto pods = c.list(kube::resources::pods, o.ns, lo, o.call_timeout);
  if (!pods) {
    fail("list pods for the member Roles: " + pods.error().describe());
    return true;
  }
  auto names = pods_by_site(*pods);
  std::vector<std::string> sites;
  for (const auto& s : lg.group.spec.sites) {
    sites.push_back(s.name);
    for (const auto& obj : render::render_member_rbac(lg.group, s.name, names[s.name], lg.version))
      if (apply_object(c, o, obj, report) == write_outcome::not_leading) return false;
  }
  // A removed site's binding first (it carries the authority), then its Role and account.
  for (const auto* res : {&kube::resources::rolebindings, &kube::resources::roles,
                          &kube::resources::serviceaccounts}) {
    auto live = c.list(*res, o.ns, lo, o.call_timeout);
    if (!live) {
      fail("list " + res->plural + ": " + live.error().describe());
      continue;
    }
    for (const auto& name : stale_site_objects(*live, sites)) {
      if (!o.may_write()) return false;
      auto r = c.remove(*res, o.ns, name, {}, o.call_timeout);
      if (r || r.error().not_found())
        report["deleted"].push_back(res->plural + "/" + name);
      else
        fail("delete " + res->plural + " " + name + ": " + r.error().describe());
    }
  }
  return true;
}

/// Group Replication scale-down: the Deployment and Service of each site the group's status
/// shows out of the group (Stopped) and the spec no longer declares (gr_left_sites); its my.cnf
/// ConfigMap goes with the unused ones below, its member RBAC with apply_member_rbac. Its PVC is
/// kept. False when not leading.
bool delete_left_sites(kube::client& c, const kube_platform_options& o, const loaded_group& lg,
                       json& report) {
  std::vector<std::string> declared;
  for (const auto& s : lg.group.spec.sites) declared.push_back(s.name);
  auto left = gr_left_sites(lg.object.value("status", json::object()), declared);
  if (left.empty()) return true;
  kube::list_options lo;
  lo.label_selector = std::string{render::label_group} + "=" + o.group;
  for (const auto* res : {&kube::resources::deployments, &kube::resources::services}) {
    auto live = c.list(*res, o.ns, lo, o.call_timeout);
    if (!live) {
      report["state"] = "error";
      report["errors"].push_back("list " + res->plural + ": " + live.error().describe());
      continue;
    }
    for (const auto& name : site_objects(*live, left)) {
      if (!o.may_write()) return false;
      auto r = c.remove(*res, o.ns, name, {}, o.call_timeout);
      if (r || r.error().not_found()) {
        report["deleted"].push_back(res->plural + "/" + name);
      } else {
        report["state"] = "error";
        report["errors"].push_back("delete " + res->plural + " " + name + ": " + r.error().describe());
      }
    }
  }
  return true;
}

std::string ensure_finalizer(kube::client& c, const kube_platform_options& o) {
  const std::string fin{render::finalizer_graceful_shutdown};
  auto r = kube::update_with_retry(
      [&]() { return c.get(mfg_resource, o.ns, o.group, o.call_timeout); },
      [&](json& obj) {
        auto& md = obj["metadata"];
        json fins = md.value("finalizers", json::array());
        if (md.contains("deletionTimestamp") || !o.may_write()) return false;
        if (std::find(fins.begin(), fins.end(), json(fin)) != fins.end()) return false;
        fins.push_back(fin);
        md["finalizers"] = fins;
        return true;
      },
      [&](const json& obj) { return c.update(mfg_resource, obj, o.call_timeout); });
  return r ? "" : "finalizer: " + r.error().describe();
}

}  // namespace

bool apply_dragonfly(kube::client& c, const kube_platform_options& o,
                     const config::failover_group& g, int version, json& report) {
  auto fail = [&](const std::string& what) {
    report["state"] = "error";
    report["errors"].push_back(what);
  };
  render::render_options ro = o.render;
  ro.reconciler_version = version;
  auto rendered = render::render_dragonfly(g, ro);
  if (!rendered.ok()) {
    for (const auto& e : rendered.errors) fail(e.to_string());
    return true;  // nothing rendered: nothing pruned either
  }
  for (const auto& obj : rendered.objects)
    if (apply_object(c, o, obj, report) == write_outcome::not_leading) return false;
  // The group's own Dragonfly objects (by label) that are no longer rendered.
  kube::list_options lo;
  lo.label_selector = render::dragonfly_selector(g.metadata.name);
  for (const auto& kind : {"PodDisruptionBudget", "Service", "StatefulSet"}) {
    const auto* res = resource_of(kind);
    auto live = c.list(*res, o.ns, lo, o.call_timeout);
    if (!live) {
      fail("list " + res->plural + ": " + live.error().describe());
      continue;
    }
    for (const auto& name : render::stale_dragonfly_objects(*live, kind, rendered.objects)) {
      if (!o.may_write()) return false;
      auto r = c.remove(*res, o.ns, name, {}, o.call_timeout);
      if (r || r.error().not_found())
        report["deleted"].push_back(std::string{kind} + "/" + name);
      else
        fail("delete " + std::string{kind} + " " + name + ": " + r.error().describe());
    }
  }
  return true;
}

json reconcile_pass(kube::client& c, const kube_platform_options& o) {
  json report = {{"state", "ok"},      {"errors", json::array()},  {"created", json::array()},
                 {"updated", json::array()}, {"deleted", json::array()}, {"sites", json::array()}};
  auto fail = [&](const std::string& what) {
    report["state"] = "error";
    report["errors"].push_back(what);
  };
  if (!o.may_write()) {
    fail("not leading: the lease guard is not valid");
    return report;
  }
  auto lg = load(c, o, report);
  if (!lg) return report;
  if (auto p = ensure_finalizer(c, o); !p.empty()) fail(p);

  render::render_options ro = o.render;
  ro.reconciler_version = lg->version;
  auto rendered = render::render_group(lg->group, ro);
  if (!rendered.ok()) {
    for (const auto& e : rendered.errors) fail(e.to_string());
    return report;
  }
  std::vector<json> desired_deployments;
  for (const auto& obj : rendered.objects) {
    const auto kind = obj.value("kind", "");
    const auto* res = resource_of(kind);
    if (!res) continue;
    const auto name = name_of(obj);
    auto live = c.get(*res, o.ns, name, o.call_timeout);
    if (!live && !live.error().not_found()) {
      fail("get " + kind + " " + name + ": " + live.error().describe());
      continue;
    }
    json live_obj = live ? *live : json(nullptr);
    if (kind == "Deployment") {
      desired_deployments.push_back(obj);
      auto decision = render::needs_rollout(live_obj, obj);
      json site = {{"name", site_of(obj)},
                   {"exists", live.ok()},
                   {"ready", live.ok() && deployment_ready(live_obj)},
                   {"drift", json::array()}};
      if (live.ok())
        for (const auto& r : decision.reasons) site["drift"].push_back(r);
      report["sites"].push_back(site);
    }
    auto w = write_planned(c, o, *res, live_obj, obj, report);
    if (w == write_outcome::not_leading) return report;
    if (w == write_outcome::written && kind == "Deployment") report["sites"].back()["exists"] = true;
  }
  if (render::is_group_replication(lg->group.spec) && !apply_member_rbac(c, o, *lg, report))
    return report;
  if (render::is_group_replication(lg->group.spec) && !delete_left_sites(c, o, *lg, report))
    return report;
  if (!apply_dragonfly(c, o, lg->group, lg->version, report)) return report;

  // my.cnf ConfigMaps no live Deployment mounts and no desired one names.
  kube::list_options lo;
  lo.label_selector = std::string{render::label_group} + "=" + o.group;
  auto cms = c.list(kube::resources::configmaps, o.ns, lo, o.call_timeout);
  auto deps = c.list(kube::resources::deployments, o.ns, lo, o.call_timeout);
  if (!cms || !deps) {
    fail("list for ConfigMap cleanup: " + (!cms ? cms.error() : deps.error()).describe());
    return report;
  }
  std::vector<json> live_deps;
  for (const auto& d : deps->value("items", json::array())) live_deps.push_back(d);
  for (const auto& name :
       render::unused_config_maps(my_cnf_config_maps(*cms), live_deps, rendered.objects)) {
    if (!o.may_write()) break;
    auto r = c.remove(kube::resources::configmaps, o.ns, name, {}, o.call_timeout);
    if (r || r.error().not_found())
      report["deleted"].push_back("ConfigMap/" + name);
    else
      fail("delete ConfigMap " + name + ": " + r.error().describe());
  }
  return report;
}

std::string roll_site(kube::client& c, const kube_platform_options& o, int version,
                      const std::string& site) {
  auto got = c.get(mfg_resource, o.ns, o.group, o.call_timeout);
  if (!got) return "get group: " + got.error().describe();
  auto parsed = config::load_group_json(got->dump(), config::run_mode::kubernetes);
  if (!parsed.ok()) return "group spec is invalid";
  render::render_options ro = o.render;
  ro.reconciler_version = version;
  auto rendered = render::render_group(parsed.group, ro);
  if (!rendered.ok()) return "render: " + config::to_string(rendered.errors);
  const json* desired = nullptr;
  for (const auto& obj : rendered.objects)
    if (obj.value("kind", "") == "Deployment" && site_of(obj) == site) desired = &obj;
  if (!desired) return "no Deployment rendered for site " + site;
  const auto name = name_of(*desired);
  auto r = kube::update_with_retry(
      [&]() { return c.get(kube::resources::deployments, o.ns, name, o.call_timeout); },
      [&](json& live) {
        if (!o.may_write() || !render::needs_rollout(live, *desired).needed) return false;
        auto rv = live["metadata"].value("resourceVersion", "");
        json next = *desired;
        json labels = live["metadata"].value("labels", json::object());
        json annotations = live["metadata"].value("annotations", json::object());
        const json want_labels = (*desired)["metadata"].value("labels", json::object());
        const json want_annotations = (*desired)["metadata"].value("annotations", json::object());
        for (const auto& [k, v] : want_labels.items()) labels[k] = v;
        for (const auto& [k, v] : want_annotations.items()) annotations[k] = v;
        next["metadata"] = live["metadata"];
        next["metadata"]["labels"] = labels;
        next["metadata"]["annotations"] = annotations;
        next["metadata"]["resourceVersion"] = rv;
        if (live.contains("status")) next["status"] = live["status"];
        live = std::move(next);
        return true;
      },
      [&](const json& obj) { return c.update(kube::resources::deployments, obj, o.call_timeout); });
  if (!r) return "update Deployment " + name + ": " + r.error().describe();
  return o.may_write() ? "" : "not leading: the lease guard is not valid";
}

reconcile_worker_actor::behavior_type reconcile_worker(reconcile_worker_actor::pointer,
                                                      kube_platform_options o) {
  return {
      [o](reconcile_atom) -> std::string { return reconcile_pass(*o.client, o).dump(); },
      [o](roll_atom, int version, const std::string& site) -> std::string {
        return roll_site(*o.client, o, version, site);
      },
  };
}

}  // namespace br
