// Pure pieces of the Kubernetes platform and reconciler: pod labels, DNSEndpoint writes, taints,
// object writes, reconciler versions, switchover checks, finalizers, status parts.
#include <boost/test/unit_test.hpp>
#include <set>

#include "actors/operator/kube/core/generated_credentials.hpp"
#include "actors/operator/kube/platform/kube_dns.hpp"
#include "actors/operator/kube/platform/kube_finalizer.hpp"
#include "actors/operator/kube/platform/kube_router.hpp"
#include "actors/operator/kube/platform/kube_taints.hpp"
#include "actors/operator/kube/reconcile/reconcile_plan.hpp"
#include "actors/operator/kube/reconcile/reconciler.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "actors/operator/decide/switchover_request.hpp"
#include "config/render/options.hpp"

using namespace br;
using nlohmann::json;

namespace {

json pod(const std::string& site, json extra_labels = json::object()) {
  json labels = {{"shipstream.io/site", site}};
  for (auto& [k, v] : extra_labels.items()) labels[k] = v;
  return {{"metadata", {{"name", "p-" + site}, {"labels", labels}}}};
}

site_report report(const std::string& site, site_state state, bool replicating) {
  site_report r;
  r.site = site;
  r.step.next.state = state;
  r.probe_ok = true;
  r.probe.read_only = state != site_state::writable;
  r.probe.super_read_only = state != site_state::writable;
  r.probe.channel_configured = replicating;
  r.probe.io_state = replicating ? "ON" : "OFF";
  r.probe.sql_state = replicating ? "ON" : "OFF";
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_platform)

BOOST_AUTO_TEST_CASE(pod_labels_follow_primary_and_healthy_replicas) {
  struct row {
    std::string site;
    std::string role, healthy;
  };
  for (const auto& r : std::vector<row>{{"a", "primary", "yes"},
                                        {"b", "replica", "yes"},
                                        {"c", "replica", "no"}}) {
    auto got = desired_pod_labels(r.site, "a", {"b"});
    BOOST_TEST_CONTEXT(r.site) {
      BOOST_TEST(got.role == r.role);
      BOOST_TEST(got.healthy == r.healthy);
    }
  }
  // No primary known: nobody is labelled primary.
  BOOST_TEST(desired_pod_labels("a", "", {}).role == "replica");
}

BOOST_AUTO_TEST_CASE(pod_label_patch_is_null_when_labels_already_match) {
  auto p = pod("a", {{"shipstream.io/role", "primary"}, {"shipstream.io/healthy", "yes"}});
  BOOST_TEST(pod_label_patch(p, {"primary", "yes", ""}).is_null());
  auto patch = pod_label_patch(p, {"replica", "no", ""});
  BOOST_TEST(patch["metadata"]["labels"]["shipstream.io/role"] == "replica");
  BOOST_TEST(patch["metadata"]["labels"]["shipstream.io/healthy"] == "no");
  // Only the two labels: a merge patch never touches the site or other labels.
  BOOST_TEST(patch["metadata"]["labels"].size() == 2u);
  BOOST_TEST(!pod_label_patch(pod("a"), {"replica", "no", ""}).is_null());
  BOOST_TEST(group_pod_selector("g") ==
             "shipstream.io/failover-group=g,app.kubernetes.io/name=mysql");
}

// Group Replication (issue 22): the ONLINE PRIMARY, the ONLINE SECONDARIES and every other member;
// the readers label (the -readers Service) on every ONLINE member, on nobody else.
BOOST_AUTO_TEST_CASE(group_replication_pod_labels_follow_the_agreed_view) {
  struct row {
    std::string site, primary;
    std::vector<std::string> secondaries;
    pod_role_labels want;
  };
  const std::vector<row> rows = {
      {"a", "a", {"b"}, {"primary", "yes", "yes"}},  // the PRIMARY: -primary and -readers
      {"b", "a", {"b"}, {"replica", "yes", "yes"}},  // ONLINE SECONDARY: -replicas and -readers
      {"c", "a", {"b"}, {"replica", "no", "no"}},    // RECOVERING, OFFLINE, ERROR...: nothing
      {"a", "", {"b"}, {"replica", "no", "no"}},     // view not yet following its PRIMARY
      {"b", "", {"b"}, {"replica", "yes", "yes"}},   // ... its secondaries still read
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.site << " primary '" << r.primary << "'") {
      BOOST_TEST((desired_pod_labels(r.site, r.primary, r.secondaries, true) == r.want));
    }
  // An async group's pods never get the readers label.
  BOOST_TEST(desired_pod_labels("a", "a", {}).reader.empty());
  BOOST_TEST(desired_pod_labels("c", "a", {}).reader.empty());

  // The patch sets all three; a pod carrying role and healthy but not the reader label is patched.
  auto p = pod("b", {{"shipstream.io/role", "replica"}, {"shipstream.io/healthy", "yes"}});
  BOOST_TEST(pod_label_patch(p, {"replica", "yes", ""}).is_null());
  auto patch = pod_label_patch(p, {"replica", "yes", "yes"});
  BOOST_TEST(patch["metadata"]["labels"]["shipstream.io/reader"] == "yes");
  BOOST_TEST(patch["metadata"]["labels"].size() == 3u);
  p["metadata"]["labels"]["shipstream.io/reader"] = "yes";
  BOOST_TEST(pod_label_patch(p, {"replica", "yes", "yes"}).is_null());
  BOOST_TEST(pod_label_patch(p, {"replica", "no", "no"})["metadata"]["labels"]["shipstream.io/reader"] ==
             "no");
}

BOOST_AUTO_TEST_CASE(dns_endpoint_write_creates_updates_or_leaves_alone) {
  json desired = {{"apiVersion", "externaldns.k8s.io/v1alpha1"},
                  {"kind", "DNSEndpoint"},
                  {"metadata",
                   {{"name", "bloodraven-g"},
                    {"labels", {{"app.kubernetes.io/managed-by", "bloodraven"}}},
                    {"ownerReferences", json::array({{{"uid", "u1"}}})}}},
                  {"spec", {{"endpoints", json::array({{{"targets", {"10.0.0.1"}}}})}}}};
  auto create = dns_endpoint_write(nullptr, desired);
  BOOST_REQUIRE(create.has_value());
  BOOST_TEST(!(*create)["metadata"].contains("resourceVersion"));

  json live = desired;
  live["metadata"]["resourceVersion"] = "7";
  live["metadata"]["labels"]["extra"] = "kept";
  BOOST_TEST(!dns_endpoint_write(live, desired).has_value());

  live["spec"]["endpoints"][0]["targets"] = {"10.0.0.2"};
  auto update = dns_endpoint_write(live, desired);
  BOOST_REQUIRE(update.has_value());
  BOOST_TEST((*update)["metadata"]["resourceVersion"] == "7");
  BOOST_TEST((*update)["spec"] == desired["spec"]);
  BOOST_TEST((*update)["metadata"]["labels"]["extra"] == "kept");
}

BOOST_AUTO_TEST_CASE(taint_selector_and_presence) {
  BOOST_TEST(label_selector({{"b", "2"}, {"a", "1"}}) == "a=1,b=2");
  BOOST_TEST(label_selector({}).empty());
  json taints = json::array({{{"key", "other"}, {"value", "x"}, {"effect", "NoSchedule"}}});
  BOOST_TEST(!has_readonly_taint(taints, "g"));
  taints.push_back({{"key", "shipstream.io/db-readonly-g"}, {"value", "true"}, {"effect", "NoExecute"}});
  BOOST_TEST(has_readonly_taint(taints, "g"));
  BOOST_TEST(!has_readonly_taint(taints, "h"));  // another group's taint
  BOOST_TEST(!has_readonly_taint(nullptr, "g"));
}

BOOST_AUTO_TEST_CASE(only_nodes_labelled_for_the_site_may_be_tainted) {
  struct row {
    const char* what;
    json labels;
    bool may;
  };
  const row rows[] = {
      {"labelled for the site", {{"shipstream.io/site.g", "a"}}, true},
      {"labelled for the site, more labels", {{"shipstream.io/site.g", "a"}, {"x", "y"}}, true},
      {"another site of the group", {{"shipstream.io/site.g", "b"}}, false},
      {"the site of another group", {{"shipstream.io/site.h", "a"}}, false},
      {"only a matching selector label", {{"kubernetes.io/os", "linux"}}, false},
      {"no labels", json::object(), false},
      {"labels missing", nullptr, false},
      {"non-string value", {{"shipstream.io/site.g", 1}}, false},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.what) { BOOST_TEST(may_taint_node(r.labels, "g", "a") == r.may); }
}

BOOST_AUTO_TEST_CASE(object_writes_by_kind) {
  json svc = {{"kind", "Service"},
              {"metadata", {{"name", "s"}, {"labels", {{"a", "1"}}}}},
              {"spec", {{"selector", {{"role", "primary"}}}, {"ports", {{{"port", 3306}}}}}}};
  BOOST_TEST((plan_object_write(nullptr, svc).kind == object_write_kind::create));
  json live = svc;
  live["metadata"]["resourceVersion"] = "3";
  live["spec"]["clusterIP"] = "10.96.0.5";
  live["spec"]["ports"][0]["protocol"] = "TCP";  // server default: not a difference
  BOOST_TEST((plan_object_write(live, svc).kind == object_write_kind::none));
  live["spec"]["selector"]["role"] = "replica";
  auto w = plan_object_write(live, svc);
  BOOST_TEST((w.kind == object_write_kind::update));
  BOOST_TEST(w.object["spec"]["clusterIP"] == "10.96.0.5");
  BOOST_TEST(w.object["metadata"]["resourceVersion"] == "3");
  BOOST_TEST(w.object["spec"]["selector"]["role"] == "primary");

  // PVCs and Deployments are never updated here.
  for (const char* kind : {"PersistentVolumeClaim", "Deployment"}) {
    json want = {{"kind", kind}, {"metadata", {{"name", "x"}}}, {"spec", {{"a", 1}}}};
    json have = want;
    have["spec"]["a"] = 2;
    BOOST_TEST_CONTEXT(kind) {
      BOOST_TEST((plan_object_write(have, want).kind == object_write_kind::none));
      BOOST_TEST((plan_object_write(nullptr, want).kind == object_write_kind::create));
    }
  }
  json cm = {{"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}, {"data", {{"k", "v"}}}};
  json cm_live = cm;
  BOOST_TEST((plan_object_write(cm_live, cm).kind == object_write_kind::none));
  cm_live["data"]["k"] = "w";
  BOOST_TEST((plan_object_write(cm_live, cm).kind == object_write_kind::update));
}

BOOST_AUTO_TEST_CASE(json_includes_is_a_recursive_subset) {
  BOOST_TEST(json_includes(json{{"a", 1}, {"b", 2}}, json{{"a", 1}}));
  BOOST_TEST(!json_includes(json{{"a", 1}}, json{{"a", 2}}));
  BOOST_TEST(!json_includes(json{{"a", json::array({1})}}, json{{"a", json::array({1, 2})}}));
  BOOST_TEST(json_includes(json::object(), json::object()));
}

BOOST_AUTO_TEST_CASE(reconciler_version_is_kept_until_the_spec_is_edited) {
  const int cur = render::current_reconciler_version;
  BOOST_TEST(choose_reconciler_version(std::nullopt, 3) == cur);
  BOOST_TEST(choose_reconciler_version(reconcile_info{cur, 3}, 3) == cur);
  BOOST_TEST(choose_reconciler_version(reconcile_info{cur, 3}, 4) == cur);
  // A version this operator no longer renders falls forward.
  BOOST_TEST(choose_reconciler_version(reconcile_info{cur + 7, 3}, 3) == cur);
  BOOST_TEST(choose_reconciler_version(reconcile_info{0, 3}, 3) == cur);

  auto ri = read_reconcile_info(json{{"reconcileInfo", {{"reconcilerVersion", 1}, {"generation", 5}}}});
  BOOST_REQUIRE(ri.has_value());
  BOOST_TEST(ri->version == 1);
  BOOST_TEST(ri->generation == 5);
  BOOST_TEST(!read_reconcile_info(json{{"reconcileInfo", {{"reconcilerVersion", "1"}}}}).has_value());
  BOOST_TEST(!read_reconcile_info(nullptr).has_value());
}

BOOST_AUTO_TEST_CASE(deployment_ready_needs_the_newest_generation_observed_and_a_ready_pod) {
  json d = {{"metadata", {{"generation", 2}}},
            {"status", {{"observedGeneration", 2}, {"updatedReplicas", 1}, {"readyReplicas", 1}}}};
  BOOST_TEST(deployment_ready(d));
  d["status"]["observedGeneration"] = 1;
  BOOST_TEST(!deployment_ready(d));
  d["status"]["observedGeneration"] = 2;
  d["status"]["readyReplicas"] = 0;
  BOOST_TEST(!deployment_ready(d));
  BOOST_TEST(!deployment_ready(json{{"metadata", {{"generation", 1}}}}));
}

BOOST_AUTO_TEST_CASE(only_my_cnf_config_maps_are_candidates_for_deletion) {
  json list = {{"items",
                {{{"metadata",
                   {{"name", "mysql-g-a-config-abc"},
                    {"annotations", {{"shipstream.io/config-hash", "abc"}}}}}},
                 {{"metadata", {{"name", "mysql-g-state"}, {"labels", {{"shipstream.io/failover-group", "g"}}}}}}}}};
  BOOST_TEST(my_cnf_config_maps(list) == std::vector<std::string>{"mysql-g-a-config-abc"});
}

BOOST_AUTO_TEST_CASE(switchover_is_accepted_only_towards_a_replicating_candidate) {
  switchover_facts f;
  f.sites = {"a", "b", "c", "r"};
  f.roles = {{"a", site_role::primary_candidate},
             {"b", site_role::primary_candidate},
             {"c", site_role::dr_only},
             {"r", site_role::read_only}};
  f.active_site = "a";
  f.reports = {{"a", report("a", site_state::writable, false)},
               {"b", report("b", site_state::read_only, true)},
               {"c", report("c", site_state::read_only, true)},
               {"r", report("r", site_state::read_only, true)}};
  BOOST_TEST(check_switchover(f, "b").accepted);
  BOOST_TEST(!check_switchover(f, "c").accepted);  // dr-only
  BOOST_TEST(!check_switchover(f, "r").accepted);  // reader
  BOOST_TEST(!check_switchover(f, "a").accepted);  // already active
  BOOST_TEST(!check_switchover(f, "zz").accepted);
  auto busy = f;
  busy.busy = true;
  BOOST_TEST(check_switchover(busy, "b").reason == "another plan is running");
  auto pending = f;  // not recloned since an in-place restore (issue 21 H1)
  pending.restore_pending = {"b"};
  BOOST_TEST(!check_switchover(pending, "b").accepted);
  BOOST_TEST(check_switchover(pending, "b").reason.find("restore-pending") != std::string::npos);
  auto stopped = f;
  stopped.reports["b"] = report("b", site_state::read_only, false);
  BOOST_TEST(!check_switchover(stopped, "b").accepted);
  auto no_primary = f;
  no_primary.active_site = "";
  BOOST_TEST(!check_switchover(no_primary, "b").accepted);
  auto dead_primary = f;
  dead_primary.reports["a"] = report("a", site_state::unreachable, false);
  BOOST_TEST(!check_switchover(dead_primary, "b").accepted);
}

BOOST_AUTO_TEST_CASE(finalizer_removal) {
  auto out = without_finalizer(json::array({"x", "shipstream.io/graceful-shutdown"}),
                               "shipstream.io/graceful-shutdown");
  BOOST_REQUIRE(out.has_value());
  BOOST_TEST(*out == json::array({"x"}));
  BOOST_TEST(!without_finalizer(json::array({"x"}), "shipstream.io/graceful-shutdown").has_value());
  BOOST_TEST(!without_finalizer(nullptr, "f").has_value());
}

BOOST_AUTO_TEST_CASE(reconciler_status_part_and_composition) {
  json report = {{"state", "ok"},
                 {"errors", json::array()},
                 {"version", 1},
                 {"generation", 4},
                 {"sites",
                  {{{"name", "a"}, {"exists", true}, {"ready", true}, {"drift", json::array()}},
                   {{"name", "b"}, {"exists", true}, {"ready", true}, {"drift", {"config"}}}}}};
  auto part = reconciler_status(report, "UpdatingReplica", nullptr, "T1");
  BOOST_TEST(part["updatePhase"] == "UpdatingReplica");
  BOOST_TEST(part["reconcileInfo"]["generation"] == 4);
  BOOST_TEST(part["conditions"][0]["type"] == "WorkloadReady");
  BOOST_TEST(part["conditions"][0]["status"] == "False");
  BOOST_TEST(part["conditions"][0]["reason"] == "RolloutInProgress");
  BOOST_TEST(part["conditions"][1]["status"] == "True");
  // Same status later: the transition time holds; a flip takes the new time.
  auto again = reconciler_status(report, "UpdatingReplica", part, "T2");
  BOOST_TEST(again["conditions"][0]["lastTransitionTime"] == "T1");
  report["sites"][1]["drift"] = json::array();
  auto ready = reconciler_status(report, "", again, "T3");
  BOOST_TEST(ready["conditions"][0]["status"] == "True");
  BOOST_TEST(ready["conditions"][0]["lastTransitionTime"] == "T3");
  // A failed pass names the errors and keeps the last reconcileInfo.
  json failed = {{"state", "error"}, {"errors", {"create Service x: 500"}}, {"sites", json::array()}};
  auto bad = reconciler_status(failed, "", ready, "T4");
  BOOST_TEST(bad["conditions"][1]["status"] == "False");
  BOOST_TEST(bad["conditions"][1]["reason"] == "ReconcileFailed");
  BOOST_TEST(bad["conditions"][1]["message"] == "create Service x: 500");
  BOOST_TEST(bad["reconcileInfo"] == ready["reconcileInfo"]);

  // The writer lays the part over the coordinator's status, replacing by condition type.
  json coordinator = {{"activeSite", "a"},
                      {"conditions", {{{"type", "Ready"}, {"status", "True"}},
                                      {{"type", "WorkloadReady"}, {"status", "Unknown"}}}}};
  auto out = with_reconciler_status(coordinator, ready);
  BOOST_TEST(out["activeSite"] == "a");
  BOOST_TEST(out["conditions"].size() == 3u);
  BOOST_TEST(out["conditions"][1]["status"] == "True");
  BOOST_TEST(out["updatePhase"] == "");
}

BOOST_AUTO_TEST_CASE(healthy_replicas_and_rollout_facts_from_the_coordinator_status) {
  config::group_spec spec;
  for (auto [n, role] : std::vector<std::pair<std::string, site_role>>{
           {"a", site_role::primary_candidate}, {"b", site_role::primary_candidate},
           {"c", site_role::dr_only}, {"r", site_role::read_only}}) {
    config::site_spec s;
    s.name = n;
    s.role = role;
    spec.sites.push_back(s);
  }
  spec.replication.max_lag_seconds = 10;
  spec.replication.read_only_max_lag_seconds = 0;
  json status = {{"sites",
                  {{{"name", "a"}, {"state", "writable"}, {"replicating", false}},
                   {{"name", "b"}, {"state", "read-only"}, {"replicating", true}, {"secondsBehindSource", 3},
                    {"lastSeen", "2025-01-01T00:00:05Z"}},
                   {{"name", "c"}, {"state", "read-only"}, {"replicating", true}, {"secondsBehindSource", 30}},
                   {{"name", "r"}, {"state", "read-only"}, {"replicating", true}, {"secondsBehindSource", 1}}}}};
  // c lags beyond maxLagSeconds; the reader r beyond its readOnlyMaxLagSeconds (0).
  BOOST_TEST(healthy_replicas(spec, status, "a") == std::vector<std::string>{"b"});
  // Not recloned since an in-place restore (its replicating may be a stale probe's): no -replicas.
  json pending = status;
  pending["sites"][1]["restorePending"] = true;
  BOOST_TEST(healthy_replicas(spec, pending, "a").empty());

  json report = {{"state", "ok"},
                 {"sites", {{{"name", "b"}, {"ready", true}, {"drift", {"config"}}}}}};
  topology_view view;
  view.active_site = "a";
  auto in = rollout_facts(spec, report, status, view);
  BOOST_REQUIRE(in.sites.size() == 4u);
  BOOST_TEST(in.sites[1].drifted);
  BOOST_TEST(in.sites[1].workload_ready);
  BOOST_TEST(*in.sites[1].lag_seconds == 3);
  BOOST_TEST(in.sites[1].last_seen_ms == 1735689605000);
  BOOST_TEST(!in.sites[0].drifted);
  BOOST_TEST(!in.transition);
}

// The pod labels follow spec.restoreInPlace's freeze through the one writer (the router): no
// pod labelled primary while the coordinator shows RestoreInPlaceFrozen True; the primary
// back only once the active site is writable again (the freeze lifted, the site unfenced).
BOOST_AUTO_TEST_CASE(no_primary_label_while_an_in_place_restore_freezes_the_group) {
  config::group_spec spec;
  for (const char* n : {"a", "b"}) {
    config::site_spec s;
    s.name = n;
    spec.sites.push_back(s);
  }
  spec.replication.max_lag_seconds = 10;
  topology_view view;
  view.active_site = "a";
  auto status_with = [](const char* a_state, const char* frozen) {
    json st = {{"sites",
                {{{"name", "a"}, {"state", a_state}, {"replicating", false}},
                 {{"name", "b"}, {"state", "read-only"}, {"replicating", true}, {"secondsBehindSource", 0}}}},
               {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}}})}};
    if (*frozen) st["conditions"].push_back({{"type", "RestoreInPlaceFrozen"}, {"status", frozen}});
    return st;
  };
  struct row {
    const char* name;
    const char* a_state;
    const char* frozen;  // "" = no condition
    std::optional<std::string> primary;  // nullopt = nothing steered
  };
  const std::vector<row> rows = {
      {"settled: a primary", "writable", "", std::string("a")},
      {"frozen, a still writable (the fence not seen yet): no primary", "writable", "True", std::string("")},
      {"frozen, a fenced: no primary", "read-only", "True", std::string("")},
      {"lifted, a not writable yet: nothing steered", "read-only", "", std::nullopt},
      {"lifted (condition False), a writable again: a primary", "writable", "False", std::string("a")},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto t = async_steering(spec, status_with(r.a_state, r.frozen), view);
      BOOST_TEST(t.has_value() == r.primary.has_value());
      if (!t || !r.primary) continue;
      BOOST_TEST(t->primary == *r.primary);
      BOOST_TEST(t->replicas == std::vector<std::string>{"b"});
      BOOST_TEST(desired_pod_labels("a", t->primary, t->replicas).role == (r.primary->empty() ? "replica" : "primary"));
      BOOST_TEST(desired_pod_labels("a", t->primary, t->replicas).healthy == (r.primary->empty() ? "no" : "yes"));
    }
  }
}

BOOST_AUTO_TEST_CASE(credentials_are_generated_only_for_a_group_that_never_ran) {
  config::failover_group g;
  g.metadata.name = "g";
  g.metadata.namespace_name = "ns";
  g.metadata.uid = "u1";
  BOOST_TEST(!may_generate_operator_secret(g, false));  // legacy secretName mode: never
  g.spec.credentials = config::credentials_spec{};
  g.spec.credentials->operator_secret = "g-operator";
  BOOST_TEST(may_generate_operator_secret(g, false));
  BOOST_TEST(!may_generate_operator_secret(g, true));  // a PVC holds a datadir already
  g.status = config::group_status{};
  BOOST_TEST(may_generate_operator_secret(g, false));
  g.status->epoch = 3;  // a coordinator ran it
  BOOST_TEST(!may_generate_operator_secret(g, false));
  g.status->epoch = 0;
  g.status->active_site = "a";
  BOOST_TEST(!may_generate_operator_secret(g, false));

  int calls = 0;
  auto secret = generated_operator_secret(g, [&](size_t n) { return std::string(n, char('a' + calls++)); });
  BOOST_TEST(secret["metadata"]["name"] == "g-operator");
  BOOST_TEST(secret["metadata"]["namespace"] == "ns");
  BOOST_TEST(secret["metadata"]["ownerReferences"][0]["uid"] == "u1");
  BOOST_TEST(secret["data"]["username"] == "Ymxvb2RyYXZlbg==");  // "bloodraven"
  BOOST_TEST(secret["data"].contains("password"));
  BOOST_TEST(secret["data"].contains("MYSQL_ROOT_PASSWORD"));
  BOOST_TEST(secret["data"]["password"] != secret["data"]["MYSQL_ROOT_PASSWORD"]);
  BOOST_TEST(secret["data"]["MYSQL_REPLICATION_USER"] == "cmVwbA==");  // "repl"
  BOOST_TEST(secret["data"]["MYSQL_MONITOR_USER"] == "bW9uaXRvcg==");  // "monitor"
  std::set<std::string> passwords;
  for (const char* k : {"password", "MYSQL_ROOT_PASSWORD", "MYSQL_REPLICATION_PASSWORD",
                        "MYSQL_MONITOR_PASSWORD"})
    passwords.insert(secret["data"][k].get<std::string>());
  BOOST_TEST(passwords.size() == 4u);  // four distinct random passwords
  // The keys Secret: generated once per key pair, completed for a new site, kept otherwise.
  for (const char* n : {"a", "b"}) {
    config::site_spec site;
    site.name = n;
    g.spec.sites.push_back(site);
  }
  bool added = false;
  auto data = completed_keys(g, {}, added);
  BOOST_TEST(added);
  BOOST_TEST(data.count("operator.key") == 1u);
  BOOST_TEST(data.count("operator.pub") == 1u);
  for (const auto& s : g.spec.sites) {
    BOOST_TEST(data.count("site-" + s.name + ".key") == 1u);
    BOOST_TEST(data.count("site-" + s.name + ".pub") == 1u);
  }
  auto again = completed_keys(g, data, added);
  BOOST_TEST(!added);
  BOOST_TEST((again == data));
  auto keys = generated_keys_secret(g, data);
  BOOST_TEST(keys["metadata"]["name"] == "mysql-g-keys");
  BOOST_TEST(keys["metadata"]["namespace"] == "ns");
  BOOST_TEST(keys["metadata"]["ownerReferences"][0]["uid"] == "u1");
  BOOST_TEST(keys["metadata"]["labels"]["shipstream.io/failover-group"] == "g");
  BOOST_TEST((secret_data(keys) == data));
  auto ring = operator_keys_of(g, secret_data(keys));
  BOOST_TEST_REQUIRE(ring.ring.has_value(), ring.error);
  BOOST_TEST(ring.ring->signer.has_value());
  BOOST_TEST(ring.ring->site_keys.size() == g.spec.sites.size());
  auto lost = data;
  lost.erase("site-" + g.spec.sites.front().name + ".key");
  auto completed = completed_keys(g, lost, added);
  BOOST_TEST(added);  // a pair with a missing half is regenerated whole
  BOOST_TEST(completed["site-" + g.spec.sites.front().name + ".pub"] !=
             data["site-" + g.spec.sites.front().name + ".pub"]);
  keys["data"]["operator.key"] = "not base64!";
  BOOST_TEST(secret_data(keys).count("operator.key") == 0u);
  BOOST_TEST(!operator_keys_of(g, secret_data(keys)).ring.has_value());
  auto p1 = random_password(32), p2 = random_password(32);
  BOOST_TEST(p1.size() == 32u);
  BOOST_TEST(p1 != p2);
}

BOOST_AUTO_TEST_SUITE_END()
