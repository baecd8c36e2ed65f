// Rendering: the per-site Deployment (containers, probes, env, volumes) and PVC.
#include <boost/test/unit_test.hpp>

#include <set>

#include "config/duration.hpp"
#include "config/render/names.hpp"
#include "config/sidecar_config.hpp"
#include "config/render/workload.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::render;
using namespace render_test;

namespace {

/// What bloodraven-sidecar builds from a rendered environment (fieldRefs filled in as the
/// kubelet would, the credentials files present).
br::config::sidecar_config_result sidecar_config_from(std::map<std::string, std::string> env) {
  for (auto& [k, v] : env)
    if (v.rfind("fieldRef:", 0) == 0) v = k == "POD_NAMESPACE" ? "db" : "pod-0";
  const char* argv[] = {"bloodraven-sidecar"};
  auto flags = br::config::parse_flags(br::config::sidecar_flag_defs(), 1, argv,
                                       [&](const char* n) -> const char* {
                                         auto it = env.find(n);
                                         return it == env.end() ? nullptr : it->second.c_str();
                                       });
  br::config::sidecar_config_result out;
  if (flags.what != br::config::parsed_flags::action::run) {
    out.error = flags.error;
    return out;
  }
  return br::config::build_sidecar_config(flags, [](const std::string&) {
    return std::optional<std::string>{"x\n"};
  });
}

}  // namespace

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
  doc["spec"]["sidecar"] = {{"leaseTimeout", "30s"},
                            {"peerCheckInterval", "2s"},
                            {"fenceTimeout", "7s"},
                            {"requestTimeout", "1500ms"}};
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
      {"FENCE_TIMEOUT", "7s"},
      {"REQUEST_TIMEOUT", "1s500ms"},
      {"SIDECAR_STATE_DIR", "/var/lib/bloodraven-sidecar"},
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

BOOST_AUTO_TEST_CASE(sidecar_timeouts_and_state_dir_from_reconciler_version_4) {
  // The sidecar runs with the spec's fenceTimeout and requestTimeout (the values the operator's
  // gate rule 3 counts, not the sidecar's own 20s/2s defaults) and persists its view in a
  // writable directory (its root filesystem is read-only).
  struct row {
    const char* name;
    json sidecar;  // spec.sidecar
    const char* fence;
    const char* request;
  };
  const row rows[] = {
      {"defaults", json::object(), "20s", "2s"},
      {"short", {{"fenceTimeout", "1s"}, {"requestTimeout", "100ms"}}, "1s", "100ms"},
      {"fractional", {{"fenceTimeout", "2.5s"}, {"requestTimeout", "750ms"}}, "2s500ms", "750ms"},
      {"maxima",
       {{"fenceTimeout", "10m"}, {"requestTimeout", "1m"}},
       "10m",
       "1m"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto doc = base_doc();
      doc["spec"]["sidecar"] = r.sidecar;
      doc["spec"]["promotionGateTimeout"] = "1h";  // above the rule-3 wait of every row
      auto g = group_of(doc);
      auto out = render(doc);
      for (std::string site : {"iad", "pdx", "sea"}) {
        BOOST_TEST_CONTEXT(site) {
          const auto& d = *find(out.objects, "Deployment", "mysql-orders-" + site);
          const auto& sidecar = container(d, "sidecar");
          auto env = env_map(sidecar["env"]);
          BOOST_TEST(env["FENCE_TIMEOUT"] == r.fence);
          BOOST_TEST(env["REQUEST_TIMEOUT"] == r.request);
          // The rendered text parses back to exactly what the operator uses for rule 3.
          auto fence = br::config::parse_duration(env["FENCE_TIMEOUT"]);
          auto request = br::config::parse_duration(env["REQUEST_TIMEOUT"]);
          BOOST_TEST_REQUIRE((fence && request));
          BOOST_TEST(fence.value->count() == g.spec.sidecar.fence_timeout.count());
          BOOST_TEST(request.value->count() == g.spec.sidecar.request_timeout.count());
          // And the sidecar, started with this environment, runs with them.
          auto cfg = sidecar_config_from(env);
          BOOST_TEST_REQUIRE(cfg.config.has_value(), cfg.error);
          BOOST_TEST(cfg.config->fence_timeout.count() == g.spec.sidecar.fence_timeout.count());
          BOOST_TEST(cfg.config->request_timeout.count() == g.spec.sidecar.request_timeout.count());
          BOOST_TEST(cfg.config->state_dir == env["SIDECAR_STATE_DIR"]);
          for (const auto& w : cfg.config->warnings)
            BOOST_TEST(w.find("SIDECAR_STATE_DIR") == std::string::npos, w);

          // SIDECAR_STATE_DIR is a mount of a writable emptyDir, in the sidecar only.
          std::string state_dir = env["SIDECAR_STATE_DIR"];
          BOOST_TEST_REQUIRE(!state_dir.empty());
          const json* mount = nullptr;
          for (const auto& m : sidecar["volumeMounts"]) {
            std::string path = m["mountPath"];
            if (path == state_dir) mount = &m;
            // No read-only mount covers the state directory (or lies inside it).
            bool overlaps = state_dir.rfind(path + "/", 0) == 0 || path.rfind(state_dir + "/", 0) == 0;
            BOOST_TEST(!overlaps, path << " overlaps " << state_dir);
          }
          BOOST_TEST_REQUIRE(mount != nullptr, "nothing mounted at " << state_dir);
          BOOST_TEST(!mount->value("readOnly", false), "state mount is read-only");
          BOOST_TEST(!mount->contains("subPath"));
          const json* volume = nullptr;
          for (const auto& v : d["spec"]["template"]["spec"]["volumes"])
            if (v["name"] == (*mount)["name"]) volume = &v;
          BOOST_TEST_REQUIRE(volume != nullptr);
          BOOST_TEST(volume->contains("emptyDir"));
          BOOST_TEST((*volume)["emptyDir"].value("medium", "") != "Memory");
          BOOST_TEST(sidecar["securityContext"]["readOnlyRootFilesystem"] == true);
          for (const auto& m : container(d, "mysql")["volumeMounts"])
            BOOST_TEST(m["name"] != (*mount)["name"], "mysql mounts the sidecar's state");
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(sidecar_env_before_reconciler_version_4_is_unchanged) {
  // A group still reconciled with version 3 renders exactly as before (no rollout).
  render_options v3;
  v3.reconciler_version = 3;
  auto r = render(base_doc(), v3);
  const auto& d = *find(r.objects, "Deployment", "mysql-orders-iad");
  auto env = env_map(container(d, "sidecar")["env"]);
  for (const char* var : {"FENCE_TIMEOUT", "REQUEST_TIMEOUT", "SIDECAR_STATE_DIR"})
    BOOST_TEST(env.count(var) == 0u, var);
  for (const auto& v : d["spec"]["template"]["spec"]["volumes"])
    BOOST_TEST(v["name"] != "sidecar-state");
  BOOST_TEST(container(d, "sidecar")["volumeMounts"].size() == 3u);  // creds, data, keys
  BOOST_TEST(d["metadata"]["annotations"]["bloodraven.shipstream.io/reconciler-version"] == "3");
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
