// Dragonfly's Kubernetes objects applied by the reconciler (issue 24, acceptance 5), on the API
// simulator with the chart's RBAC on the operator. The enabled group is handed to apply_dragonfly
// directly (the same call reconcile_pass makes; the whole operator with the manager runs in
// integration_kube_dragonfly); the group stored in the API then has Dragonfly disabled, or no
// spec.dragonfly at all, and one full reconcile_pass deletes the group's Dragonfly objects and
// nothing else.
#include <boost/test/unit_test.hpp>

#include <yaml-cpp/yaml.h>

#include "actors/operator/kube/reconcile/reconcile_worker.hpp"
#include "config/group_spec.hpp"
#include "config/render/dragonfly.hpp"
#include "config/render/names.hpp"
#include "io/log/log.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
namespace res = br::kube::resources;
namespace kt = br::kube_sim::test;

namespace {

const std::string ns = "databases";
const std::string group = "orders";  // deploy/examples/group.yaml: sites iad, pdx, sea
const std::vector<std::string> sites = {"iad", "pdx", "sea"};

struct dragonfly_fixture {
  kt::sim_cluster cluster;  // the chart's RBAC on the operator's ServiceAccount
  std::shared_ptr<br::kube::client> admin = cluster.client("test", 3s);
  std::shared_ptr<br::kube::client> op = cluster.client(kt::operator_identity, 3s);
  br::kube_platform_options o;

  dragonfly_fixture() {
    br::log::set_level(br::log::level::warn);
    BOOST_TEST_REQUIRE(cluster.install_crds() == "");
    (void)cluster.create(res::namespaces, "",
                         {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    auto doc = kt::yaml_to_json(YAML::LoadFile(kt::source_path("deploy/examples/group.yaml")));
    BOOST_TEST_REQUIRE(cluster.create(res::mysqlfailovergroups, ns, doc) == "");
    o.client = op;
    o.ns = ns;
    o.group = group;
    o.call_timeout = 3s;
  }

  /// The stored group with spec.dragonfly enabled (parsed).
  br::config::failover_group enabled_group() {
    auto got = admin->get(res::mysqlfailovergroups, ns, group);
    BOOST_TEST_REQUIRE(got.ok());
    auto parsed = br::config::parse_group(*got);
    BOOST_TEST_REQUIRE(parsed.errors.empty(), br::config::to_string(parsed.errors));
    parsed.group.spec.dragonfly.enabled = true;
    parsed.group.spec.dragonfly.image = "docker.dragonflydb.io/dragonflydb/dragonfly:v1.38.0";
    return parsed.group;
  }

  /// Replaces the stored group's spec.dragonfly (null: removes it).
  void set_stored_dragonfly(const json& d) {
    auto got = admin->get(res::mysqlfailovergroups, ns, group);
    BOOST_TEST_REQUIRE(got.ok());
    if (d.is_null())
      (*got)["spec"].erase("dragonfly");
    else
      (*got)["spec"]["dragonfly"] = d;
    auto up = admin->update(res::mysqlfailovergroups, *got);
    BOOST_TEST_REQUIRE(up.ok(), (up ? std::string{} : up.error().describe()));
  }

  bool exists(const br::kube::resource_ref& r, const std::string& name) {
    return admin->get(r, ns, name).ok();
  }

  /// Every Dragonfly object of the group, as kind/name.
  std::vector<std::string> dragonfly_objects() {
    std::vector<std::string> out;
    for (const auto& s : sites) {
      auto name = br::render::dragonfly_site_name(group, s);
      if (exists(res::statefulsets, name)) out.push_back("StatefulSet/" + name);
      if (exists(res::services, name)) out.push_back("Service/" + name);
      if (exists(res::pdbs, name)) out.push_back("PodDisruptionBudget/" + name);
    }
    if (exists(res::services, br::render::dragonfly_active_service_name(group)))
      out.push_back("Service/" + br::render::dragonfly_active_service_name(group));
    return out;
  }

  /// Applies the enabled group's Dragonfly objects; all ten must exist afterwards.
  void apply_enabled(int version) {
    json report = {{"state", "ok"}, {"errors", json::array()}, {"created", json::array()},
                   {"updated", json::array()}, {"deleted", json::array()}};
    BOOST_TEST_REQUIRE(br::apply_dragonfly(*op, o, enabled_group(), version, report));
    BOOST_TEST_REQUIRE(report["state"] == "ok", report.dump());
    BOOST_TEST(report["created"].size() == 10u, report.dump());
    BOOST_TEST(dragonfly_objects().size() == 10u);
  }
};

/// Another group's Dragonfly StatefulSet in the same namespace (must never be pruned).
json foreign_statefulset() {
  return {{"apiVersion", "apps/v1"},
          {"kind", "StatefulSet"},
          {"metadata",
           {{"name", "payments-dragonfly-iad"},
            {"namespace", ns},
            {"labels", br::render::dragonfly_labels("payments", "iad")}}},
          {"spec",
           {{"replicas", 1},
            {"selector", {{"matchLabels", br::render::dragonfly_labels("payments", "iad")}}},
            {"template",
             {{"metadata", {{"labels", br::render::dragonfly_labels("payments", "iad")}}},
              {"spec", {{"containers", json::array({{{"name", "dragonfly"}, {"image", "df:1"}}})}}}}}}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_dragonfly_objects)

BOOST_AUTO_TEST_CASE(created_when_enabled_and_deleted_when_it_flips_to_false) {
  dragonfly_fixture f;
  BOOST_TEST_REQUIRE(f.cluster.create(res::statefulsets, ns, foreign_statefulset()) == "");
  auto first = br::reconcile_pass(*f.op, f.o);  // MySQL's objects; Dragonfly is off
  BOOST_TEST_REQUIRE(first["state"] == "ok", first.dump());
  BOOST_TEST(f.dragonfly_objects().empty());
  const int version = first["version"].get<int>();

  f.apply_enabled(version);
  auto sts = f.admin->get(res::statefulsets, ns, "orders-dragonfly-pdx");
  BOOST_TEST_REQUIRE(sts.ok());
  BOOST_TEST((*sts)["metadata"]["ownerReferences"][0].value("kind", "") == "MysqlFailoverGroup");
  BOOST_TEST((*sts)["spec"]["template"]["spec"]["nodeSelector"]["topology.kubernetes.io/zone"] ==
             "us-west-2a");

  // A second apply changes nothing.
  json again = {{"state", "ok"}, {"errors", json::array()}, {"created", json::array()},
                {"updated", json::array()}, {"deleted", json::array()}};
  BOOST_TEST(br::apply_dragonfly(*f.op, f.o, f.enabled_group(), version, again));
  BOOST_TEST((again["created"].empty() && again["updated"].empty() && again["deleted"].empty()),
             again.dump());

  // Stored as disabled: the next full pass deletes all ten, and only those.
  f.set_stored_dragonfly({{"enabled", false}});
  auto pass = br::reconcile_pass(*f.op, f.o);
  BOOST_TEST(pass["state"] == "ok", pass.dump());
  BOOST_TEST(pass["deleted"].size() == 10u, pass.dump());
  BOOST_TEST(f.dragonfly_objects().empty());
  BOOST_TEST(f.exists(res::statefulsets, "payments-dragonfly-iad"));
  for (const auto& s : sites) {
    BOOST_TEST(f.exists(res::deployments, br::render::site_name(group, s)), s);
    BOOST_TEST(f.exists(res::services, br::render::site_name(group, s)), s);
  }
  BOOST_TEST(f.exists(res::pdbs, br::render::pdb_name(group)));
  BOOST_TEST(f.exists(res::services, br::render::primary_service_name(group)));
  BOOST_TEST(f.cluster.denials() == "");
}

BOOST_AUTO_TEST_CASE(deleted_when_spec_dragonfly_is_removed) {
  dragonfly_fixture f;
  auto first = br::reconcile_pass(*f.op, f.o);
  BOOST_TEST_REQUIRE(first["state"] == "ok", first.dump());
  f.apply_enabled(first["version"].get<int>());
  f.set_stored_dragonfly(nullptr);
  auto pass = br::reconcile_pass(*f.op, f.o);
  BOOST_TEST(pass["state"] == "ok", pass.dump());
  BOOST_TEST(f.dragonfly_objects().empty());
  // Nothing left to delete on the next pass.
  auto next = br::reconcile_pass(*f.op, f.o);
  BOOST_TEST(next["deleted"].empty(), next.dump());
  BOOST_TEST(f.cluster.denials() == "");
}

BOOST_AUTO_TEST_SUITE_END()
