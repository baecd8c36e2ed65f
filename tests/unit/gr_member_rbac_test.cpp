// Pure pieces of the Group Replication members' identities in Kubernetes mode (issue 22): the
// operator's reading of the gr-observed Pod annotation (decide/gr_pod_doorbell), the
// reconciler's pods-by-site and removed-site rules and its Role/RoleBinding write plan
// (reconcile_plan), and the simulator's escalation check (a Role grants only what its writer
// holds) that the chart's operator RBAC is tested against.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/gr_pod_doorbell.hpp"
#include "actors/operator/kube/reconcile/reconcile_plan.hpp"
#include "tests/support/kube_sim/rbac.hpp"

using nlohmann::json;

namespace {

json pod(const std::string& name, const std::string& annotation = "", const std::string& site = "a") {
  json p = {{"metadata", {{"name", name}, {"labels", {{"shipstream.io/site", site}}}}}};
  if (!annotation.empty())
    p["metadata"]["annotations"] = {{"bloodraven.shipstream.io/gr-observed", annotation}};
  return p;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_member_rbac)

BOOST_AUTO_TEST_CASE(the_tracker_wakes_on_each_new_annotation_value_only) {
  struct row {
    std::string type;
    json pod;
    bool wake;
    const char* why;
  };
  const std::vector<row> rows = {
      {"ADDED", pod("p1"), false, "no annotation"},
      {"MODIFIED", pod("p1", "v1"), true, "first value"},
      {"MODIFIED", pod("p1", "v1"), false, "same value (a label change)"},
      {"MODIFIED", pod("p1", "v2"), true, "new value"},
      {"ADDED", pod("p2", "v2"), true, "another pod first seen with one (rang before the watch)"},
      {"MODIFIED", pod("p1"), false, "annotation removed"},
      {"DELETED", pod("p2", "v2"), false, "deleted: forgotten"},
      {"ADDED", pod("p2", "v2"), true, "a pod of that name again"},
      {"BOOKMARK", pod("p3", "v9"), false, "not an object change"},
      {"MODIFIED", json{{"metadata", {{"annotations", {{"bloodraven.shipstream.io/gr-observed", "x"}}}}}},
       false, "no name"},
      {"MODIFIED", json::array(), false, "not an object"},
  };
  br::gr_pod_doorbell_tracker t;
  for (const auto& r : rows) BOOST_TEST(t.on_event(r.type, r.pod) == r.wake, r.why);
}

BOOST_AUTO_TEST_CASE(pods_are_grouped_by_site_and_removed_sites_found) {
  json list = {{"items", json::array({pod("a-1", "", "a"), pod("a-2", "", "a"), pod("b-1", "", "b"),
                                      json{{"metadata", {{"name", "nolabel"}}}}})}};
  auto by = br::pods_by_site(list);
  BOOST_TEST(by.size() == 2u);
  BOOST_TEST((by["a"] == std::vector<std::string>{"a-1", "a-2"}));
  BOOST_TEST((by["b"] == std::vector<std::string>{"b-1"}));
  json roles = {{"items", json::array({pod("r-a", "", "a"), pod("r-c", "", "c"),
                                       json{{"metadata", {{"name", "group-wide"}}}}})}};
  BOOST_TEST((br::stale_site_objects(roles, {"a", "b"}) == std::vector<std::string>{"r-c"}));
  BOOST_TEST(br::stale_site_objects(roles, {"a", "b", "c"}).empty());
}

BOOST_AUTO_TEST_CASE(a_role_is_updated_when_its_rules_differ_at_all) {
  json rule = {{"apiGroups", {""}}, {"resources", {"pods"}}, {"verbs", {"get", "patch"}},
               {"resourceNames", {"p1"}}};
  json desired = {{"kind", "Role"}, {"metadata", {{"name", "r"}}}, {"rules", json::array({rule})}};
  json live = desired;
  live["metadata"]["resourceVersion"] = "7";
  BOOST_TEST((br::plan_object_write(live, desired).kind == br::object_write_kind::none));
  json old = live;
  old["rules"][0]["resourceNames"] = {"p0"};
  auto w = br::plan_object_write(old, desired);
  BOOST_TEST((w.kind == br::object_write_kind::update));
  BOOST_TEST(w.object["metadata"]["resourceVersion"] == "7");
  json extra = live;  // a rule left over (e.g. a pod gone) must be removed
  extra["rules"].push_back(rule);
  BOOST_TEST((br::plan_object_write(extra, desired).kind == br::object_write_kind::update));
  json none = desired;  // no pod known: no rule at all
  none["rules"] = json::array();
  BOOST_TEST((br::plan_object_write(live, none).kind == br::object_write_kind::update));
  json binding = {{"kind", "RoleBinding"},
                  {"metadata", {{"name", "r"}}},
                  {"roleRef", {{"kind", "Role"}, {"name", "r"}}},
                  {"subjects", {{{"kind", "ServiceAccount"}, {"name", "r"}}}}};
  json other = binding;
  other["subjects"][0]["name"] = "someone-else";
  BOOST_TEST((br::plan_object_write(binding, binding).kind == br::object_write_kind::none));
  BOOST_TEST((br::plan_object_write(other, binding).kind == br::object_write_kind::update));
}

BOOST_AUTO_TEST_CASE(a_role_may_grant_only_what_its_writer_holds) {
  using namespace br::kube_sim;
  rbac_policy holder;
  holder.cluster.push_back({{""}, {"pods"}, {"list", "patch"}, {}});
  holder.namespaced["shop"].push_back({{""}, {"pods"}, {"get"}, {}});
  const std::vector<policy_rule> member = {{{""}, {"pods"}, {"get", "patch"}, {"p1"}}};
  BOOST_TEST(escalations(holder, "shop", member).empty());
  // get is held in shop only; elsewhere the same Role escalates.
  BOOST_TEST((escalations(holder, "other", member) == std::vector<std::string>{"get /pods p1"}));
  // Without get (the chart before this change): refused.
  rbac_policy no_get;
  no_get.cluster.push_back({{""}, {"pods"}, {"list", "patch"}, {}});
  BOOST_TEST((escalations(no_get, "shop", member) == std::vector<std::string>{"get /pods p1"}));
  // A name-limited grant does not cover a broader rule.
  rbac_policy named;
  named.cluster.push_back({{""}, {"pods"}, {"get", "patch"}, {"p1"}});
  BOOST_TEST(escalations(named, "shop", member).empty());
  const std::vector<policy_rule> every_pod = {{{""}, {"pods"}, {"patch"}, {}}};
  BOOST_TEST(!escalations(named, "shop", every_pod).empty());
}

BOOST_AUTO_TEST_SUITE_END()
