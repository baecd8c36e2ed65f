// Rendering: the per-site Deployment (containers, probes, env, volumes) and PVC.
#include <boost/test/unit_test.hpp>

#include <set>

#include "config/render/names.hpp"
#include "config/render/workload.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::render;
using namespace render_test;

BOOST_AUTO_TEST_SUITE(render_workload)

BOOST_AUTO_TEST_CASE(deployment_shape) {
  auto r = render(base_doc());
  for (std::string site : {"iad", "pdx", "sea"}) {
    BOOST_TEST_CONTEXT(site) {
      const auto* d = find(r.objects, "Deployment", "mysql-orders-" + site);
      BOOST_TEST_REQUIRE(d);
      const auto& spec = d->at("spec");
      BOOST_TEST(d->at("apiVersion") == "apps/v1");
      BOOST_TEST(spec["replicas"] == 1);
      BOOST_TEST(spec["strategy"]["type"] == "Recreate");
      const auto& pod = spec["template"]["spec"];
      std::vector<std::string> names;
      for (const auto& c : pod["containers"]) names.push_back(c["name"]);
      BOOST_TEST((names == std::vector<std::string>{"mysql", "sidecar"}));
      BOOST_TEST(pod["nodeSelector"]["topology.kubernetes.io/zone"] ==
                 group_of(base_doc())
                     .spec.sites[site == "iad"   ? 0
                                 : site == "pdx" ? 1
                                                 : 2]
                     .zone);
      std::map<std::string, json> volumes;
      for (const auto& v : pod["volumes"]) volumes[v["name"]] = v;
      BOOST_TEST(volumes["data"]["persistentVolumeClaim"]["claimName"] ==
                 "mysql-orders-" + site + "-data");
      BOOST_TEST(volumes["creds"]["secret"]["secretName"] == "orders-mysql");
      BOOST_TEST(pod["tolerations"][0]["key"] == "shipstream.io/db-readonly-orders");
      BOOST_TEST(pod["tolerations"][0]["effect"] == "NoExecute");
    }
  }
}

BOOST_AUTO_TEST_CASE(probes) {
  auto r = render(base_doc());
  const auto& d = *find(r.objects, "Deployment", "mysql-orders-iad");
  const auto& mysql = container(d, "mysql");
  BOOST_TEST(mysql["livenessProbe"]["tcpSocket"]["port"] == 3306);
  BOOST_TEST(mysql["livenessProbe"]["initialDelaySeconds"] == 30);
  BOOST_TEST(mysql["livenessProbe"]["periodSeconds"] == 10);
  BOOST_TEST(mysql["readinessProbe"]["tcpSocket"]["port"] == 3306);
  BOOST_TEST(mysql["readinessProbe"]["initialDelaySeconds"] == 5);
  BOOST_TEST(mysql["readinessProbe"]["periodSeconds"] == 5);
  std::string pre_stop = mysql["lifecycle"]["preStop"]["exec"]["command"][2];
  BOOST_TEST(pre_stop.find("SET GLOBAL super_read_only=ON") != std::string::npos);
  // Liveness goes to the sidecar's liveness-only listener (a flood of the API port cannot fail
  // it); readiness stays on the API port.
  const auto& sidecar = container(d, "sidecar");
  BOOST_TEST(sidecar["livenessProbe"]["httpGet"]["path"] == "/livez");
  BOOST_TEST(sidecar["livenessProbe"]["httpGet"]["port"] == 8081);
  BOOST_TEST(sidecar["readinessProbe"]["httpGet"]["path"] == "/ready");
  BOOST_TEST(sidecar["readinessProbe"]["httpGet"]["port"] == 8080);
  BOOST_TEST(sidecar["ports"].size() == 2u);
  BOOST_TEST(sidecar["ports"][0]["containerPort"] == 8080);
  BOOST_TEST(sidecar["ports"][1]["name"] == "health");
  BOOST_TEST(sidecar["ports"][1]["containerPort"] == 8081);
  BOOST_TEST(env_map(sidecar["env"])["HEALTH_LISTEN_ADDR"] == ":8081");
  BOOST_TEST(mysql["ports"][0]["containerPort"] == 3306);
}

BOOST_AUTO_TEST_CASE(liveness_listener_from_reconciler_version_3) {
  // A group still reconciled with version 2 keeps its probe on the API port (no rollout).
  render_options v2;
  v2.reconciler_version = 2;
  auto r = render(base_doc(), v2);
  const auto& sidecar = container(*find(r.objects, "Deployment", "mysql-orders-iad"), "sidecar");
  BOOST_TEST(sidecar["livenessProbe"]["httpGet"]["path"] == "/peer/ping");
  BOOST_TEST(sidecar["livenessProbe"]["httpGet"]["port"] == 8080);
  BOOST_TEST(sidecar["ports"].size() == 1u);
  BOOST_TEST(env_map(sidecar["env"]).count("HEALTH_LISTEN_ADDR") == 0u);
}

BOOST_AUTO_TEST_CASE(container_env) {
  auto doc = base_doc();
  doc["spec"]["sidecar"] = {{"leaseTimeout", "30s"}, {"peerCheckInterval", "2s"}};
  auto r = render(doc);
  const auto& d = *find(r.objects, "Deployment", "mysql-orders-pdx");
  auto env = env_map(container(d, "sidecar")["env"]);
  std::map<std::string, std::string> want = {
      {"MY_POD_NAME", "fieldRef:metadata.name"},
      {"POD_NAMESPACE", "fieldRef:metadata.namespace"},
      {"LISTEN_ADDR", ":8080"},
      {"MY_SITE", "pdx"},
      {"FAILOVER_GROUP", "orders"},
      {"PEER_ADDRESSES",
       "mysql-orders-iad.db.svc.cluster.local:8080,mysql-orders-sea.db.svc.cluster.local:8080"},
      {"BLOODRAVEN_ADDRESS", "bloodraven.db.svc.cluster.local:8082"},
      {"LEASE_TIMEOUT", "30s"},
      {"PEER_CHECK_INTERVAL", "2s"},
      {"MYSQL_CREDS_DIR", "/etc/mysql/creds/operator"},
      {"HEALTH_LISTEN_ADDR", ":8081"},
      {"KEYS_DIR", "/etc/bloodraven/keys"},
  };
  BOOST_TEST(json(env) == json(want));
  auto mysql_env = env_map(container(d, "mysql")["env"]);
  BOOST_TEST(mysql_env["MYSQL_ROOT_PASSWORD"] == "secret:orders-mysql/MYSQL_ROOT_PASSWORD");

  doc["spec"]["sidecar"]["bloodravenAddress"] = "op.example:9000";
  doc.at("spec").erase("secretName");
  doc["spec"]["credentials"] = {{"operatorSecret", "orders-op"}};
  auto r2 = render(doc);
  const auto& d2 = *find(r2.objects, "Deployment", "mysql-orders-iad");
  BOOST_TEST(env_map(container(d2, "sidecar")["env"])["BLOODRAVEN_ADDRESS"] == "op.example:9000");
  BOOST_TEST(env_map(container(d2, "mysql")["env"])["MYSQL_ROOT_PASSWORD"] ==
             "secret:orders-op/MYSQL_ROOT_PASSWORD");
}

BOOST_AUTO_TEST_CASE(keys_mount_from_reconciler_version_2) {
  // Version 2 mounts the group's keys Secret: the operator's public key (views), this site's own
  // private key (acks, reports, peer answers) and every site's public key; never another site's
  // private key. A group still reconciled with version 1 renders exactly as before (no rollout).
  auto volumes_of = [](const json& d) {
    std::map<std::string, json> out;
    for (const auto& v : d["spec"]["template"]["spec"]["volumes"]) out[v["name"]] = v;
    return out;
  };
  auto mounts_of = [](const json& c) {
    std::map<std::string, std::string> out;
    for (const auto& m : c["volumeMounts"]) out[m["name"]] = m["mountPath"];
    return out;
  };
  render_options v2;
  v2.reconciler_version = 2;
  auto r2 = render(base_doc(), v2);
  const auto& d2 = *find(r2.objects, "Deployment", "mysql-orders-iad");
  auto vol = volumes_of(d2);
  BOOST_TEST_REQUIRE(vol.count("keys") == 1u);
  BOOST_TEST(vol["keys"]["secret"]["secretName"] == "mysql-orders-keys");
  std::set<std::string> items;
  for (const auto& i : vol["keys"]["secret"]["items"]) {
    BOOST_TEST(i["key"] == i["path"]);
    items.insert(i["key"].get<std::string>());
  }
  std::set<std::string> want_items = {"operator.pub", "site-iad.key", "site-iad.pub",
                                      "site-pdx.pub", "site-sea.pub"};
  BOOST_TEST(items == want_items, "only this site's private key is projected");
  BOOST_TEST(mounts_of(container(d2, "sidecar"))["keys"] == "/etc/bloodraven/keys");
  BOOST_TEST(mounts_of(container(d2, "mysql")).count("keys") == 0u);  // the sidecar's only
  BOOST_TEST(env_map(container(d2, "sidecar")["env"])["KEYS_DIR"] == "/etc/bloodraven/keys");

  render_options v1;
  v1.reconciler_version = 1;
  auto r1 = render(base_doc(), v1);
  const auto& d1 = *find(r1.objects, "Deployment", "mysql-orders-iad");
  BOOST_TEST(volumes_of(d1).count("keys") == 0u);
  BOOST_TEST(mounts_of(container(d1, "sidecar")).count("keys") == 0u);
  BOOST_TEST(env_map(container(d1, "sidecar")["env"]).count("KEYS_DIR") == 0u);
  BOOST_TEST(d1["metadata"]["annotations"]["bloodraven.shipstream.io/reconciler-version"] == "1");
  BOOST_TEST(d2["metadata"]["annotations"]["bloodraven.shipstream.io/reconciler-version"] == "2");
}

BOOST_AUTO_TEST_CASE(images) {
  auto doc = base_doc();
  render_options o;
  o.default_sidecar_image = "reg.example/sidecar:2.0.0";
  auto r = render(doc, o);
  const auto& d = *find(r.objects, "Deployment", "mysql-orders-iad");
  BOOST_TEST(container(d, "mysql")["image"] == "mysql:9.7");
  BOOST_TEST(container(d, "sidecar")["image"] == "reg.example/sidecar:2.0.0");
  doc["spec"]["sidecarImage"] = "reg.example/sidecar:2.1.0";
  doc["spec"]["image"] = "mysql:9.8";
  auto r2 = render(doc, o);
  const auto& d2 = *find(r2.objects, "Deployment", "mysql-orders-iad");
  BOOST_TEST(container(d2, "sidecar")["image"] == "reg.example/sidecar:2.1.0");
  BOOST_TEST(container(d2, "mysql")["image"] == "mysql:9.8");
}

BOOST_AUTO_TEST_CASE(pvc) {
  auto doc = base_doc();
  doc["spec"]["sites"][1]["storage"]["storageClassName"] = "gp3";
  auto r = render(doc);
  const auto* iad = find(r.objects, "PersistentVolumeClaim", "mysql-orders-iad-data");
  const auto* pdx = find(r.objects, "PersistentVolumeClaim", "mysql-orders-pdx-data");
  BOOST_TEST_REQUIRE((iad && pdx));
  BOOST_TEST((*iad)["spec"]["accessModes"] == json::array({"ReadWriteOnce"}));
  BOOST_TEST((*iad)["spec"]["resources"]["requests"]["storage"] == "10Gi");
  BOOST_TEST(!(*iad)["spec"].contains("storageClassName"));  // cluster default
  BOOST_TEST((*pdx)["spec"]["storageClassName"] == "gp3");
}

BOOST_AUTO_TEST_SUITE_END()
