// The simulator's RBAC authoriser (pure) and the operator's RBAC as the chart renders it.
#include <boost/test/unit_test.hpp>

#include <cstdlib>

#include "tests/support/kube_sim/chart_rbac.hpp"
#include "tests/support/kube_sim/rbac.hpp"

using namespace br::kube_sim;
using nlohmann::json;

namespace {

std::string chart_dir() {
  const char* src = std::getenv("BR_SOURCE_DIR");
  return std::string{src ? src : "."} + "/charts/bloodraven";
}

request_attributes req(std::string verb, std::string group, std::string resource, std::string ns,
                       std::string name = "", std::string sub = "") {
  return {std::move(verb), std::move(group), std::move(resource), std::move(sub), std::move(ns),
          std::move(name)};
}

std::string show(const request_attributes& a) {
  return a.verb + " " + a.api_group + "/" + a.resource + (a.subresource.empty() ? "" : "/" + a.subresource) +
         " ns=" + a.ns + " name=" + a.name;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_rbac)

BOOST_AUTO_TEST_CASE(verbs_and_attributes_come_from_method_path_and_watch) {
  struct row {
    const char* method;
    const char* path;
    bool watch;
    request_attributes want;
  };
  const row rows[] = {
      {"GET", "/api/v1/namespaces/d/secrets/s", false, req("get", "", "secrets", "d", "s")},
      {"GET", "/api/v1/namespaces/d/secrets", false, req("list", "", "secrets", "d")},
      {"GET", "/api/v1/namespaces/d/secrets", true, req("watch", "", "secrets", "d")},
      {"GET", "/api/v1/secrets", true, req("watch", "", "secrets", "")},
      {"POST", "/api/v1/namespaces/d/secrets", false, req("create", "", "secrets", "d")},
      {"PUT", "/api/v1/namespaces/d/secrets/s", false, req("update", "", "secrets", "d", "s")},
      {"PATCH", "/api/v1/nodes/n1", false, req("patch", "", "nodes", "", "n1")},
      {"DELETE", "/api/v1/namespaces/d/secrets/s", false, req("delete", "", "secrets", "d", "s")},
      {"DELETE", "/api/v1/namespaces/d/secrets", false, req("deletecollection", "", "secrets", "d")},
      {"PUT", "/apis/shipstream.io/v1alpha1/namespaces/d/mysqlfailovergroups/g/status", false,
       req("update", "shipstream.io", "mysqlfailovergroups", "d", "g", "status")},
      {"GET", "/api/v1/namespaces/d", false, req("get", "", "namespaces", "", "d")},
      {"PUT", "/api/v1/namespaces/d/finalize", false, req("update", "", "namespaces", "", "d", "finalize")},
      {"GET", "/apis/apps/v1/deployments", false, req("list", "apps", "deployments", "")},
  };
  for (const auto& r : rows) {
    auto a = attributes_of(r.method, r.path, r.watch);
    BOOST_REQUIRE_MESSAGE(a.has_value(), r.path);
    BOOST_TEST(show(*a) == show(r.want), r.method << " " << r.path);
  }
  for (const char* p : {"/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/version", "/openapi/v2"})
    BOOST_TEST(!attributes_of("GET", p, false).has_value(), p);
}

BOOST_AUTO_TEST_CASE(authoriser_table) {
  rbac_policy p;
  p.cluster = {
      {{""}, {"secrets"}, {"get", "create", "update"}, {}},
      {{"shipstream.io"}, {"mysqlfailovergroups/status"}, {"update"}, {}},
      {{""}, {"nodes"}, {"patch"}, {}},
      {{""}, {"configmaps"}, {"get"}, {"only-this"}},
      {{"apps"}, {"*"}, {"list"}, {}},
      {{"batch"}, {"*/status"}, {"get"}, {}},
  };
  p.namespaced["ops"] = {{{""}, {"secrets"}, {"delete"}, {}}, {{"coordination.k8s.io"}, {"leases"}, {"*"}, {}}};
  struct row {
    request_attributes a;
    bool allowed;
  };
  const row rows[] = {
      {req("get", "", "secrets", "d", "s"), true},
      {req("create", "", "secrets", "d"), true},
      {req("list", "", "secrets", "d"), false},           // no list
      {req("watch", "", "secrets", ""), false},           // no cluster-wide watch
      {req("delete", "", "secrets", "d", "s"), false},    // delete only in ops
      {req("delete", "", "secrets", "ops", "s"), true},   // ... via the namespaced Role
      {req("deletecollection", "", "secrets", "ops"), false},
      {req("get", "", "secrets", "d", "s"), true},
      {req("update", "", "pods", "d", "p"), false},       // resource not granted
      {req("get", "apps", "secrets", "d", "s"), false},   // wrong API group
      {req("update", "shipstream.io", "mysqlfailovergroups", "d", "g", "status"), true},
      {req("update", "shipstream.io", "mysqlfailovergroups", "d", "g"), false},  // main resource != status
      {req("patch", "shipstream.io", "mysqlfailovergroups", "d", "g", "status"), false},
      {req("patch", "", "nodes", "", "n1"), true},
      {req("get", "", "configmaps", "d", "only-this"), true},
      {req("get", "", "configmaps", "d", "other"), false},   // resourceNames
      {req("list", "apps", "deployments", ""), true},
      {req("list", "apps", "deployments", "", "", "scale"), true},  // "*" covers subresources too
      {req("get", "batch", "jobs", "d", "j", "status"), true},        // "*/status"
      {req("get", "batch", "jobs", "d", "j"), false},
      {req("update", "coordination.k8s.io", "leases", "ops", "l"), true},  // "*" verbs
      {req("update", "coordination.k8s.io", "leases", "d", "l"), false},   // Role is ops only
      {req("list", "coordination.k8s.io", "leases", ""), false},           // nor across namespaces
  };
  for (const auto& r : rows) BOOST_TEST(allows(p, r.a) == r.allowed, show(r.a));
}

BOOST_AUTO_TEST_CASE(forbidden_status_reads_like_the_api_server) {
  auto s = forbidden_status(req("delete", "", "secrets", "default", "x"), "system:serviceaccount:o:op");
  BOOST_TEST(s["kind"] == "Status");
  BOOST_TEST(s["status"] == "Failure");
  BOOST_TEST(s["reason"] == "Forbidden");
  BOOST_TEST(s["code"] == 403);
  BOOST_TEST(s["message"].get<std::string>() ==
             "secrets \"x\" is forbidden: User \"system:serviceaccount:o:op\" cannot delete resource "
             "\"secrets\" in API group \"\" in the namespace \"default\"");
  auto l = forbidden_status(req("list", "", "secrets", ""), "u");
  BOOST_TEST(l["message"].get<std::string>() ==
             "secrets is forbidden: User \"u\" cannot list resource \"secrets\" in API group \"\" at the "
             "cluster scope");
  auto st = forbidden_status(req("patch", "shipstream.io", "mysqlfailovergroups", "d", "g", "status"), "u");
  BOOST_TEST(st["message"].get<std::string>() ==
             "mysqlfailovergroups.shipstream.io \"g\" is forbidden: User \"u\" cannot patch resource "
             "\"mysqlfailovergroups/status\" in API group \"shipstream.io\" in the namespace \"d\"");
}

BOOST_AUTO_TEST_CASE(bindings_grant_only_to_their_subject_and_namespace) {
  std::vector<json> objs = {
      {{"kind", "ClusterRole"}, {"metadata", {{"name", "cr"}}},
       {"rules", {{{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get"}}}}}},
      {{"kind", "Role"}, {"metadata", {{"name", "r"}, {"namespace", "ops"}}},
       {"rules", {{{"apiGroups", {""}}, {"resources", {"secrets"}}, {"verbs", {"delete"}}}}}},
      {{"kind", "ClusterRoleBinding"}, {"metadata", {{"name", "b1"}}},
       {"roleRef", {{"kind", "ClusterRole"}, {"name", "cr"}}},
       {"subjects", {{{"kind", "ServiceAccount"}, {"name", "op"}, {"namespace", "ops"}}}}},
      {{"kind", "RoleBinding"}, {"metadata", {{"name", "b2"}, {"namespace", "ops"}}},
       {"roleRef", {{"kind", "Role"}, {"name", "r"}}},
       {"subjects", {{{"kind", "ServiceAccount"}, {"name", "op"}, {"namespace", "ops"}}}}},
      {{"kind", "RoleBinding"}, {"metadata", {{"name", "b3"}, {"namespace", "d"}}},
       {"roleRef", {{"kind", "ClusterRole"}, {"name", "cr"}}},
       {"subjects", {{{"kind", "ServiceAccount"}, {"name", "other"}, {"namespace", "ops"}}}}},
  };
  auto op = policy_for_service_account(objs, "ops", "op");
  BOOST_TEST(allows(op, req("get", "", "pods", "d", "p")));
  BOOST_TEST(allows(op, req("delete", "", "secrets", "ops", "s")));
  BOOST_TEST(!allows(op, req("delete", "", "secrets", "d", "s")));
  auto other = policy_for_service_account(objs, "ops", "other");
  BOOST_TEST(allows(other, req("get", "", "pods", "d", "p")));   // its RoleBinding, in d only
  BOOST_TEST(!allows(other, req("get", "", "pods", "e", "p")));
  BOOST_TEST(!allows(other, req("delete", "", "secrets", "ops", "s")));
  auto nobody = policy_for_service_account(objs, "d", "op");  // same name, other namespace
  BOOST_TEST(!allows(nobody, req("get", "", "pods", "d", "p")));
}

BOOST_AUTO_TEST_CASE(the_chart_renders_rbac_for_the_operator_service_account) {
  chart_release rel;
  auto objs = chart_rbac_objects(chart_dir(), rel);
  std::size_t cluster_roles = 0, bindings = 0;
  for (const auto& o : objs) {
    if (o["kind"] == "ClusterRole") ++cluster_roles;
    if (o["kind"] == "ClusterRoleBinding") ++bindings;
  }
  // the operator's, <fullname>-secrets, <fullname>-members and <fullname>-backup-trigger
  // (RoleBindings only)
  BOOST_TEST(cluster_roles == 4u);
  BOOST_TEST(bindings == 1u);
  auto p = chart_operator_policy(chart_dir(), rel);
  BOOST_TEST(!p.cluster.empty());
  // What the operator does (group namespace "shop"; its own namespace rel.ns).
  for (const auto& a : {req("get", "", "secrets", "shop", "s"), req("create", "", "secrets", "shop"),
                        req("update", "", "secrets", "shop", "s"),
                        req("watch", "shipstream.io", "mysqlfailovergroups", ""),
                        req("update", "shipstream.io", "mysqlfailovergroups", "shop", "g", "status"),
                        req("patch", "", "pods", "shop", "p"), req("list", "", "pods", "shop"),
                        req("list", "", "nodes", ""), req("update", "", "nodes", "", "n1"),
                        req("delete", "", "configmaps", "shop", "c"),
                        req("create", "", "events", "shop"), req("create", "apps", "deployments", "shop"),
                        req("update", "coordination.k8s.io", "leases", rel.ns, "l"),
                        req("delete", "", "secrets", rel.ns, "mysql-shop.g-operator"),
                        req("list", "shipstream.io", "mysqlbackups", ""),
                        req("patch", "shipstream.io", "mysqlbackups", "shop", "b", "status"),
                        req("delete", "shipstream.io", "mysqlbackups", "shop", "b"),
                        req("list", "shipstream.io", "mysqlbackupverifications", ""),
                        req("patch", "shipstream.io", "mysqlbackupverifications", "shop", "v", "status"),
                        req("delete", "shipstream.io", "mysqlbackupverifications", "shop", "v"),
                        req("create", "batch", "jobs", "shop"), req("delete", "batch", "cronjobs", "shop", "c"),
                        // Dragonfly's objects: created, and deleted when it is disabled
                        req("create", "apps", "statefulsets", "shop"),
                        req("list", "apps", "statefulsets", "shop"),
                        req("delete", "apps", "statefulsets", "shop", "s"),
                        req("delete", "", "services", "shop", "s"),
                        req("delete", "policy", "poddisruptionbudgets", "shop", "p"),
                        // a Group Replication site removed: its Deployment once its member left
                        req("delete", "apps", "deployments", "shop", "d"),
                        // Group Replication members' identities (rolebinding-members.yaml), and
                        // the pods get+patch their Roles grant (the API server's escalation check)
                        req("create", "rbac.authorization.k8s.io", "roles", "shop"),
                        req("update", "rbac.authorization.k8s.io", "rolebindings", "shop", "b"),
                        req("delete", "rbac.authorization.k8s.io", "roles", "shop", "r"),
                        req("delete", "", "serviceaccounts", "shop", "sa"),
                        req("get", "", "pods", "shop", "p"),
                        // the gr-observed doorbell: pods of the groups' namespaces watched
                        req("watch", "", "pods", "shop")})
    BOOST_TEST(allows(p, a), show(a));
  // The backup CronJobs' pods may create MysqlBackups in their namespace, nothing else.
  auto trigger = policy_for_service_account(objs, "shop", "bloodraven-backup-trigger");
  BOOST_TEST(allows(trigger, req("create", "shipstream.io", "mysqlbackups", "shop")));
  BOOST_TEST(!allows(trigger, req("create", "shipstream.io", "mysqlbackups", "other")));
  BOOST_TEST(!allows(trigger, req("delete", "shipstream.io", "mysqlbackups", "shop", "b")));
  BOOST_TEST(allows(trigger, req("create", "shipstream.io", "mysqlbackupverifications", "shop")));
  BOOST_TEST(!allows(trigger, req("delete", "shipstream.io", "mysqlbackupverifications", "shop", "v")));
  BOOST_TEST(!allows(trigger, req("get", "", "secrets", "shop", "s")));
  // What it must not.
  for (const auto& a : {req("list", "", "secrets", ""), req("watch", "", "secrets", ""),
                        req("list", "", "secrets", "shop"), req("watch", "", "secrets", "shop"),
                        req("delete", "", "secrets", "shop", "s"), req("create", "", "pods", "shop"),
                        req("delete", "", "nodes", "", "n1"), req("patch", "", "nodes", "", "n1"),
                        req("watch", "", "nodes", ""), req("watch", "", "pods", "elsewhere"),
                        req("watch", "", "pods", ""), req("get", "", "pods", "elsewhere", "p"),
                        req("create", "rbac.authorization.k8s.io", "roles", "elsewhere"),
                        req("escalate", "rbac.authorization.k8s.io", "roles", "shop", "r"),
                        req("bind", "rbac.authorization.k8s.io", "roles", "shop", "r"),
                        req("create", "rbac.authorization.k8s.io", "clusterroles", ""),
                        req("delete", "", "persistentvolumeclaims", "shop", "data"),
                        req("update", "shipstream.io", "mysqlbackups", "shop", "b"),
                        req("create", "shipstream.io", "mysqlbackups", "shop"),
                        req("create", "shipstream.io", "mysqlbackupverifications", "shop"),
                        req("update", "coordination.k8s.io", "leases", "shop", "l"),
                        req("create", "rbac.authorization.k8s.io", "rolebindings", "elsewhere")})
    BOOST_TEST(!allows(p, a), show(a));
}

// Review finding 12: Secret rights only in the namespaces of values.groupNamespaces (default:
// the release namespace), never cluster-wide.
BOOST_AUTO_TEST_CASE(the_chart_grants_secrets_only_in_the_listed_namespaces) {
  chart_release listed;  // groupNamespaces={default,shop}, as the tests install it
  auto p = chart_operator_policy(chart_dir(), listed);
  for (const auto& r : p.cluster)
    for (const auto& verb : {"get", "create", "update"})
      BOOST_TEST(!rule_allows(r, req(verb, "", "secrets", "elsewhere", "s")), verb << " cluster-wide");
  for (const auto& ns : {"default", "shop", "bloodraven-system"})
    for (const auto& verb : {"get", "update"}) BOOST_TEST(allows(p, req(verb, "", "secrets", ns, "s")), verb << " " << ns);
  BOOST_TEST(allows(p, req("create", "", "secrets", "shop")));
  BOOST_TEST(!allows(p, req("get", "", "secrets", "elsewhere", "s")));
  BOOST_TEST(!allows(p, req("create", "", "secrets", "elsewhere")));
  chart_release defaults;
  defaults.group_namespaces.clear();  // the chart's default: the release namespace only
  auto d = chart_operator_policy(chart_dir(), defaults);
  BOOST_TEST(allows(d, req("get", "", "secrets", defaults.ns, "s")));
  BOOST_TEST(!allows(d, req("get", "", "secrets", "default", "s")));
  BOOST_TEST(!allows(d, req("update", "", "secrets", "shop", "s")));
  BOOST_TEST(allows(d, req("get", "", "configmaps", "shop", "c")));  // other rights stay cluster-wide
}

BOOST_AUTO_TEST_CASE(the_chart_grants_no_secret_list_or_watch_anywhere) {
  // Not in any rule, cluster-wide or namespaced: listing Secrets would read every credential.
  auto p = chart_operator_policy(chart_dir());
  auto check = [](const std::vector<policy_rule>& rules, const std::string& where) {
    for (const auto& verb : {"list", "watch"})
      for (const auto& r : rules)
        BOOST_TEST(!rule_allows(r, req(verb, "", "secrets", where == "cluster" ? "" : where)),
                   verb << " secrets granted (" << where << ")");
  };
  check(p.cluster, "cluster");
  for (const auto& [ns, rules] : p.namespaced) check(rules, ns);
}

BOOST_AUTO_TEST_SUITE_END()
