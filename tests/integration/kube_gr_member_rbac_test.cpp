// The Group Replication members' identities applied by the operator (issue 22, acceptance 5), on
// the API simulator with the chart's RBAC enforced on the operator (including the API server's
// escalation check: a Role may grant only what its writer holds). One reconcile pass of a GR
// group creates each site's ServiceAccount, Role and RoleBinding, the Role naming the site's
// live pods; the Deployment runs the pod as that ServiceAccount with its token in the sidecar
// only and GR_POD_DOORBELL on. Sidecar a, under exactly the policy read back from what the
// OPERATOR applied, may patch its own Pod and is Forbidden on another; when a's pod is replaced
// the next pass moves the Role to the new name. The operator's pod watch (gr-pod-watch) turns a
// changed gr-observed annotation into a wake of the group's pollers.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <atomic>

#include "actors/operator/kube/gr_pod_watch.hpp"
#include "actors/operator/kube/reconcile/reconcile_worker.hpp"
#include "actors/sidecar/runtime/pod_doorbell.hpp"
#include "config/render/member_rbac.hpp"
#include "config/render/names.hpp"
#include "io/log/log.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/chart_rbac.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
namespace res = br::kube::resources;

namespace {

const std::string ns = "shop";
const std::string group = "orders";
const std::vector<std::string> sites = {"a", "b", "c"};

json group_object() {
  json s = json::array();
  for (const auto& name : sites)
    s.push_back({{"name", name},
                 {"zone", "zone-" + name},
                 {"lbIP", "192.0.2.1"},
                 {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
                 {"storage", {{"size", "1Gi"}}}});
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", group + ".example.com"}}},
            {"replication",
             {{"user", "repl"}, {"password", "replpw"}, {"mode", "groupReplication"}}},
            {"sites", s}}}};
}

/// A pod as the site's Deployment would make it (random suffix, the site's labels).
json site_pod(const std::string& name, const std::string& site) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", ns},
            {"labels",
             {{std::string{br::render::label_group}, group},
              {std::string{br::render::label_site}, site}}}}},
          {"spec", {{"containers", json::array({{{"name", "mysql"}, {"image", "mysql:9.7"}}})}}}};
}

template <class R>
std::string why(const R& r) {
  return r ? std::string{} : r.error().describe();
}

struct member_fixture {
  br::kube_sim::test::sim_cluster cluster;  // the chart's RBAC on the operator's ServiceAccount
  std::shared_ptr<br::kube::client> admin = cluster.client("test", 3s);
  std::shared_ptr<br::kube::client> op =
      cluster.client(br::kube_sim::test::operator_identity, 3s);
  std::shared_ptr<br::kube::client> sidecar_a = cluster.client("sidecar-a", 3s);
  br::kube_platform_options o;

  member_fixture() {
    br::log::set_level(br::log::level::warn);
    BOOST_TEST_REQUIRE(cluster.install_crds() == "");
    (void)cluster.create(res::namespaces, "",
                         {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    BOOST_TEST_REQUIRE(cluster.create(br::kube::resources::mysqlfailovergroups, ns, group_object()) == "");
    o.client = op;
    o.ns = ns;
    o.group = group;
    o.call_timeout = 3s;
  }

  json get(const br::kube::resource_ref& r, const std::string& name) {
    auto got = admin->get(r, ns, name);
    return got ? *got : json(nullptr);
  }

  /// The policy of site `site`'s member ServiceAccount from the objects the operator applied.
  br::kube_sim::rbac_enforcement member_policy(const std::string& site, const std::string& identity) {
    auto name = br::render::member_identity_name(group, site);
    std::vector<json> applied = {get(res::roles, name), get(res::rolebindings, name)};
    return {{identity}, br::kube_sim::service_account_user(ns, name),
            br::kube_sim::policy_for_service_account(applied, ns, name)};
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_gr_member_rbac)

BOOST_AUTO_TEST_CASE(the_operator_applies_each_members_identity_under_the_chart_rbac) {
  member_fixture f;
  const std::string pod_a = "mysql-orders-a-7d9f8c6b5-x2k4q", pod_b = "mysql-orders-b-6c8d7b5a4-p9r3s";
  BOOST_TEST_REQUIRE(f.cluster.create(res::pods, ns, site_pod(pod_a, "a")) == "");
  BOOST_TEST_REQUIRE(f.cluster.create(res::pods, ns, site_pod(pod_b, "b")) == "");

  auto report = br::reconcile_pass(*f.op, f.o);
  BOOST_TEST(report["state"] == "ok", report.dump());
  BOOST_TEST(f.cluster.denials() == "");  // nothing refused, escalation check included
  const auto sa_a = br::render::member_identity_name(group, "a");
  for (const auto* r : {&res::serviceaccounts, &res::roles, &res::rolebindings})
    for (const auto& s : sites) {
      auto obj = f.get(*r, br::render::member_identity_name(group, s));
      BOOST_TEST_REQUIRE(obj.is_object(), r->plural << " of " << s);
      // Owned by the group: garbage-collected with it.
      BOOST_TEST(obj["metadata"]["ownerReferences"][0].value("kind", "") == "MysqlFailoverGroup");
    }
  auto role_a = f.get(res::roles, sa_a);
  BOOST_TEST(role_a["rules"].size() == 1u, role_a.dump());
  BOOST_TEST(role_a["rules"][0]["resourceNames"] == json::array({pod_a}), role_a.dump());
  // Site c has no pod yet: its Role has no rule at all.
  BOOST_TEST(f.get(res::roles, br::render::member_identity_name(group, "c"))["rules"].empty());

  // The Deployment runs a's pod as that account, the token in the sidecar only.
  auto dep = f.get(res::deployments, br::render::site_name(group, "a"));
  const auto& pod_spec = dep["spec"]["template"]["spec"];
  BOOST_TEST(pod_spec.value("serviceAccountName", "") == sa_a);
  BOOST_TEST(pod_spec.value("automountServiceAccountToken", true) == false);
  auto mounts_token = [](const json& c) {
    for (const auto& m : c.value("volumeMounts", json::array()))
      if (m.value("name", "") == br::render::member_token_volume) return true;
    return false;
  };
  for (const auto& c : pod_spec["containers"])
    BOOST_TEST(mounts_token(c) == (c.value("name", "") == "sidecar"), c.value("name", ""));
  for (const auto& c : pod_spec.value("initContainers", json::array())) BOOST_TEST(!mounts_token(c));
  bool doorbell = false;
  for (const auto& c : pod_spec["containers"])
    for (const auto& e : c.value("env", json::array()))
      if (e.value("name", "") == "GR_POD_DOORBELL") doorbell = e.value("value", "") == "true";
  BOOST_TEST(doorbell);

  // Sidecar a under the policy the operator applied: its own Pod only.
  f.cluster.sim.add_rbac(f.member_policy("a", "sidecar-a"));
  auto own = br::sidecar::ring_pod_doorbell(*f.sidecar_a, ns, pod_a, "1700:1/aa", 3s);
  BOOST_TEST(own.ok(), why(own));
  auto other = br::sidecar::ring_pod_doorbell(*f.sidecar_a, ns, pod_b, "forged", 3s);
  BOOST_TEST_REQUIRE(!other.ok());
  BOOST_TEST(other.error().status == 403);

  // a's pod is replaced (a new name): Forbidden until the next pass names it, then allowed; the
  // old name is gone from the Role.
  const std::string pod_a2 = "mysql-orders-a-7d9f8c6b5-m8w2z";
  BOOST_TEST_REQUIRE(f.admin->remove(res::pods, ns, pod_a).ok());
  BOOST_TEST_REQUIRE(f.cluster.create(res::pods, ns, site_pod(pod_a2, "a")) == "");
  BOOST_TEST(br::sidecar::ring_pod_doorbell(*f.sidecar_a, ns, pod_a2, "x", 3s).error().status == 403);
  report = br::reconcile_pass(*f.op, f.o);
  BOOST_TEST(report["state"] == "ok", report.dump());
  BOOST_TEST(report["updated"].dump().find("Role/" + sa_a) != std::string::npos, report.dump());
  role_a = f.get(res::roles, sa_a);
  BOOST_TEST(role_a["rules"][0]["resourceNames"] == json::array({pod_a2}), role_a.dump());
  f.cluster.sim.set_rbac(std::nullopt);  // re-enforce both from what is applied now
  f.cluster.sim.add_rbac(br::kube_sim::chart_operator_rbac(
      br::kube_sim::test::source_path("charts/bloodraven"), {br::kube_sim::test::operator_identity}));
  f.cluster.sim.add_rbac(f.member_policy("a", "sidecar-a"));
  auto again = br::sidecar::ring_pod_doorbell(*f.sidecar_a, ns, pod_a2, "1700:2/bb", 3s);
  BOOST_TEST(again.ok(), why(again));
  // A pass with nothing changed writes nothing.
  report = br::reconcile_pass(*f.op, f.o);
  BOOST_TEST(report["updated"].empty(), report.dump());
  BOOST_TEST(report["created"].empty(), report.dump());
}

BOOST_AUTO_TEST_CASE(an_annotation_change_wakes_the_groups_pollers) {
  member_fixture f;
  for (const auto& s : sites)
    BOOST_TEST_REQUIRE(f.cluster.create(res::pods, ns, site_pod("mysql-orders-" + s + "-p", s)) == "");
  caf::actor_system_config cfg;
  br::add_message_types(cfg);
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  // Stand-ins for the group supervisor and its pollers: they count the wakes they get.
  auto wakes = std::make_shared<std::atomic<int>>(0);
  auto asked = std::make_shared<std::atomic<int>>(0);
  auto poller = sys.spawn([wakes](caf::event_based_actor*) -> caf::behavior {
    return {[wakes](br::wake_atom) { ++*wakes; }};
  });
  auto context = std::make_shared<br::kube_group_context>();
  {
    br::config::failover_group g;
    g.metadata.name = group;
    g.metadata.namespace_name = ns;
    for (const auto& s : sites) {
      br::config::site_spec site;
      site.name = s;
      g.spec.sites.push_back(site);
    }
    context->set(g);
  }
  br::gr_pod_watch_options o;
  o.platform = f.o;
  o.platform.context = context;
  auto spec = br::gr_pod_watch_child(o);
  auto supervisor = sys.spawn([spec, poller, asked](caf::event_based_actor* self) -> caf::behavior {
    self->link_to(spec.start(self, "test/gr-pod-watch"));  // stopped with it
    return {[poller, asked](br::child_atom, const std::string& name) -> caf::actor {
      if (name.rfind("poller:", 0) == 0) ++*asked;
      return poller;
    }};
  });
  BOOST_TEST_REQUIRE(br::test::eventually([&] { return f.cluster.sim.open_watches() > 0; }, 10s, 20ms));
  BOOST_TEST(*wakes == 0);  // no pod carries the annotation yet
  auto ring = [&](const std::string& pod, const std::string& token) {
    auto r = f.admin->merge_patch(res::pods, ns, pod, br::sidecar::pod_doorbell_patch(token), {}, 3s);
    BOOST_TEST_REQUIRE(r.ok(), why(r));
  };
  ring("mysql-orders-b-p", "1700:2/aa");
  // Every poller of the group is woken (one per site).
  BOOST_TEST(br::test::eventually([&] { return *wakes >= 3; }, 10s, 20ms), *wakes);
  int before = *wakes;
  ring("mysql-orders-c-p", "1700:3/bb");
  BOOST_TEST(br::test::eventually([&] { return *wakes >= before + 3; }, 10s, 20ms), *wakes);
  BOOST_TEST(f.cluster.denials() == "");  // the chart lets the operator watch the group's pods
  caf::anon_send_exit(supervisor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(poller, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
