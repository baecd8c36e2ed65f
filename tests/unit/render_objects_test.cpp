// Rendering: object names, standard labels, owner references, selectors and render errors.
#include <boost/test/unit_test.hpp>
#include <set>

#include "config/render/names.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::render;
using namespace render_test;

BOOST_AUTO_TEST_SUITE(render_objects)

BOOST_AUTO_TEST_CASE(names_follow_the_reference) {
  struct row {
    std::string got, want;
  };
  const row rows[] = {
      {site_name("orders", "iad"), "mysql-orders-iad"},
      {pvc_name("orders", "iad"), "mysql-orders-iad-data"},
      {primary_service_name("orders"), "mysql-orders-primary"},
      {replicas_service_name("orders"), "mysql-orders-replicas"},
      {pdb_name("orders"), "mysql-orders"},
      {dns_endpoint_name("orders"), "bloodraven-orders"},
      {taint_key("orders"), "shipstream.io/db-readonly-orders"},
      {sidecar_peer_address("orders", "pdx", "db"), "mysql-orders-pdx.db.svc.cluster.local:8080"},
  };
  for (const auto& r : rows) BOOST_TEST(r.got == r.want);
}

BOOST_AUTO_TEST_CASE(every_object_of_the_group_is_rendered_once) {
  auto r = render(base_doc());
  std::multiset<std::string> got;
  for (const auto& o : r.objects) {
    std::string name = o["metadata"]["name"];
    if (o["kind"] == "ConfigMap" && o["data"].contains("my.cnf"))
      name = name.substr(0, name.rfind('-'));  // drop the hash
    got.insert(o["kind"].get<std::string>() + "/" + name);
  }
  std::multiset<std::string> want = {"PodDisruptionBudget/mysql-orders",
                                     "ServiceAccount/mysql-orders",
                                     "ConfigMap/mysql-orders-init",
                                     "Service/mysql-orders-primary",
                                     "Service/mysql-orders-replicas"};
  for (std::string site : {"iad", "pdx", "sea"}) {
    want.insert("ConfigMap/mysql-orders-" + site + "-config");
    want.insert("PersistentVolumeClaim/mysql-orders-" + site + "-data");
    want.insert("Deployment/mysql-orders-" + site);
    want.insert("Service/mysql-orders-" + site);
  }
  BOOST_TEST(got == want, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(standard_labels_annotations_and_owner) {
  auto r = render(base_doc());
  std::set<std::string> group_wide = {"mysql-orders-primary", "mysql-orders-replicas",
                                      "mysql-orders", "mysql-orders-init"};
  for (const auto& o : r.objects) {
    std::string what =
        o["kind"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>();
    BOOST_TEST_CONTEXT(what) {
      const auto& meta = o["metadata"];
      BOOST_TEST(meta["namespace"] == "db");
      const auto& l = meta["labels"];
      BOOST_TEST(l["app.kubernetes.io/name"] == "mysql");
      BOOST_TEST(l["app.kubernetes.io/instance"] == "orders");
      BOOST_TEST(l["shipstream.io/failover-group"] == "orders");
      BOOST_TEST(l["app.kubernetes.io/managed-by"] == "bloodraven");
      bool wide = group_wide.contains(meta["name"]);
      BOOST_TEST(l.contains("shipstream.io/site") == !wide);
      if (!wide) {
        std::string site = l["shipstream.io/site"];
        BOOST_TEST(meta["name"].get<std::string>().starts_with("mysql-orders-" + site));
      }
      BOOST_TEST(meta["annotations"]["bloodraven.shipstream.io/reconciler-version"] ==
                 std::to_string(current_reconciler_version));
      BOOST_TEST_REQUIRE(meta["ownerReferences"].size() == 1u);
      const auto& ref = meta["ownerReferences"][0];
      BOOST_TEST(ref["apiVersion"] == "shipstream.io/v1alpha1");
      BOOST_TEST(ref["kind"] == "MysqlFailoverGroup");
      BOOST_TEST(ref["name"] == "orders");
      BOOST_TEST(ref["uid"] == "0f1e2d3c-uid");
      BOOST_TEST(ref["controller"] == true);
    }
  }
}

BOOST_AUTO_TEST_CASE(selectors_pick_the_right_pods) {
  auto r = render(base_doc());
  std::map<std::string, json> pods;  // site -> pod template labels
  for (const auto* d : of_kind(r.objects, "Deployment"))
    pods[(*d)["metadata"]["labels"]["shipstream.io/site"]] =
        (*d)["spec"]["template"]["metadata"]["labels"];
  BOOST_TEST_REQUIRE(pods.size() == 3u);
  auto with = [](json labels, const char* role, const char* healthy) {
    labels["shipstream.io/role"] = role;
    labels["shipstream.io/healthy"] = healthy;
    return labels;
  };
  const auto& primary =
      find(r.objects, "Service", "mysql-orders-primary")->at("spec").at("selector");
  const auto& replicas =
      find(r.objects, "Service", "mysql-orders-replicas")->at("spec").at("selector");
  const auto& pdb = find(r.objects, "PodDisruptionBudget", "mysql-orders")
                        ->at("spec")
                        .at("selector")
                        .at("matchLabels");
  for (const auto& [site, labels] : pods) {
    BOOST_TEST_CONTEXT(site) {
      // Template defaults: replica, unhealthy; only live label patches put a pod behind a Service.
      BOOST_TEST(labels["shipstream.io/role"] == "replica");
      BOOST_TEST(labels["shipstream.io/healthy"] == "no");
      BOOST_TEST(!selects(primary, labels));
      BOOST_TEST(!selects(replicas, labels));
      BOOST_TEST(selects(primary, with(labels, "primary", "yes")));
      BOOST_TEST(!selects(primary, with(labels, "replica", "yes")));
      BOOST_TEST(selects(replicas, with(labels, "replica", "yes")));
      BOOST_TEST(!selects(replicas, with(labels, "primary", "yes")));
      BOOST_TEST(selects(pdb, labels));
      const auto* dep = find(r.objects, "Deployment", "mysql-orders-" + site);
      const auto* svc = find(r.objects, "Service", "mysql-orders-" + site);
      BOOST_TEST_REQUIRE((dep && svc));
      for (const auto& [other, other_labels] : pods) {
        bool same = other == site;
        BOOST_TEST(selects(dep->at("spec").at("selector").at("matchLabels"), other_labels) == same);
        BOOST_TEST(selects(svc->at("spec").at("selector"), other_labels) == same);
      }
    }
  }
  // Another group's pods in the same namespace are never selected.
  json foreign = pods["iad"];
  foreign["shipstream.io/failover-group"] = "billing";
  foreign["shipstream.io/role"] = "primary";
  BOOST_TEST(!selects(primary, foreign));
  BOOST_TEST(!selects(pdb, foreign));
}

BOOST_AUTO_TEST_CASE(services_ports_and_pdb) {
  auto r = render(base_doc());
  const auto* site = find(r.objects, "Service", "mysql-orders-iad");
  BOOST_TEST_REQUIRE(site);
  std::map<std::string, int> ports;
  for (const auto& p : site->at("spec").at("ports")) ports[p["name"]] = p["port"];
  BOOST_TEST((ports == std::map<std::string, int>{{"mysql", 3306}, {"sidecar", 8080}}));
  BOOST_TEST(site->at("spec").at("publishNotReadyAddresses") == true);
  for (const char* name : {"mysql-orders-primary", "mysql-orders-replicas"}) {
    const auto* s = find(r.objects, "Service", name);
    BOOST_TEST_REQUIRE(s);
    BOOST_TEST(s->at("spec").at("ports").size() == 1u);
    BOOST_TEST(s->at("spec").at("ports")[0]["port"] == 3306);
    BOOST_TEST(s->at("spec").at("type") == "ClusterIP");
  }
  const auto* pdb = find(r.objects, "PodDisruptionBudget", "mysql-orders");
  BOOST_TEST(pdb->at("apiVersion") == "policy/v1");
  BOOST_TEST(pdb->at("spec").at("minAvailable") == 1);
}

BOOST_AUTO_TEST_CASE(rendering_is_deterministic) {
  auto a = render(base_doc());
  auto b = render(base_doc());
  BOOST_TEST(json(a.objects).dump() == json(b.objects).dump());
}

BOOST_AUTO_TEST_CASE(unrenderable_groups_report_field_paths) {
  struct row {
    const char* what;
    std::function<void(json&)> edit;
    int version;
    const char* path;
    const char* fragment;
  };
  const row rows[] = {
      {"site named primary", [](json& d) { d["spec"]["sites"][1]["name"] = "primary"; }, 1,
       "spec.sites[1].name", "reserved"},
      {"site named replicas", [](json& d) { d["spec"]["sites"][2]["name"] = "replicas"; }, 1,
       "spec.sites[2].name", "reserved"},
      {"Service name too long",
       [](json& d) { d["spec"]["sites"][0]["name"] = std::string(60, 'a'); }, 1,
       "spec.sites[0].name", "limit 63"},
      {"group name too long", [](json& d) { d["metadata"]["name"] = std::string(50, 'g'); }, 1,
       "metadata.name", "limit 63"},
      {"operator-owned my.cnf key",
       [](json& d) { d["spec"]["mysqlConf"]["super_read_only"] = "OFF"; }, 1,
       "spec.mysqlConf.super_read_only", "operator-owned"},
      {"site override of gtid mode",
       [](json& d) { d["spec"]["sites"][2]["mysqlConf"]["gtid-mode"] = "OFF"; }, 1,
       "spec.sites[2].mysqlConf.gtid-mode", "operator-owned"},
      {"line break smuggling a setting",
       [](json& d) { d["spec"]["mysqlConf"]["max_connections"] = "10\nsuper_read_only=OFF"; }, 1,
       "spec.mysqlConf.max_connections", "line breaks"},
      {"section header as key", [](json& d) { d["spec"]["mysqlConf"]["[client]"] = "x"; }, 1,
       "spec.mysqlConf.[client]", "invalid option name"},
      {"future reconciler version", [](json&) {}, current_reconciler_version + 1,
       "metadata.annotations", "not supported"},
      {"reconciler version 0", [](json&) {}, 0, "metadata.annotations", "not supported"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto doc = base_doc();
      r.edit(doc);
      auto parsed = br::config::parse_group(doc);
      BOOST_TEST_REQUIRE(parsed.ok(), br::config::to_string(parsed.errors));
      render_options o;
      o.reconciler_version = r.version;
      auto res = render_group(parsed.group, o);
      BOOST_TEST(res.objects.empty());
      BOOST_TEST(config_spec_test::find_error(res.errors, r.path, r.fragment) != nullptr,
                 br::config::to_string(res.errors));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
