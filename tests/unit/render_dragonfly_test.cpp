// Dragonfly's Kubernetes objects (config/render/dragonfly*): the operator-owned flags filtered
// out of the user's args, the per-site StatefulSet/Service/PDB, the active Service's selector.
#include <boost/test/unit_test.hpp>

#include "config/render/dragonfly.hpp"
#include "config/render/dragonfly_args.hpp"
#include "config/render/names.hpp"
#include "tests/unit/render_test_util.hpp"

using nlohmann::json;
using strings = std::vector<std::string>;
namespace rt = render_test;

namespace {

/// The base Kubernetes group with spec.dragonfly set; it must validate cleanly.
br::config::failover_group group_with(const json& dragonfly) {
  auto doc = rt::base_doc();
  doc["spec"]["dragonfly"] = dragonfly;
  auto res = br::config::parse_group(doc);
  BOOST_TEST_REQUIRE(res.errors.empty(), br::config::to_string(res.errors));
  for (const auto& e : br::config::validate(res.group, br::config::run_mode::kubernetes))
    BOOST_TEST(false, "unexpected validation error: " << e.to_string());
  return res.group;
}

const json enabled = {{"enabled", true}, {"image", "docker.dragonflydb.io/dragonflydb/dragonfly:v1.38.0"}};

std::vector<json> objects(const json& dragonfly) {
  auto r = br::render::render_dragonfly(group_with(dragonfly), {});
  BOOST_TEST_REQUIRE(r.ok(), br::config::to_string(r.errors));
  return r.objects;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_dragonfly)

BOOST_AUTO_TEST_CASE(user_args_lose_every_operator_owned_flag) {
  struct row {
    const char* what;
    strings in, out;
  };
  const std::vector<row> rows = {
      {"nothing owned", {"--cache_mode=true", "--dbnum", "4"}, {"--cache_mode=true", "--dbnum", "4"}},
      {"--flag=value", {"--port=7000", "--cache_mode=true"}, {"--cache_mode=true"}},
      {"--flag value", {"--port", "7000", "--cache_mode=true"}, {"--cache_mode=true"}},
      {"single dash", {"-port", "7000", "-dir=/tmp"}, {}},
      {"a prefix of an owned flag is not it", {"--portx=1", "--dirs", "a"}, {"--portx=1", "--dirs", "a"}},
      {"owned flag last, no value", {"--dbnum=2", "--port"}, {"--dbnum=2"}},
      {"--dir followed by another flag keeps that flag", {"--dir", "--dbnum=2"}, {"--dbnum=2"}},
      {"every owned flag",
       {"--port=1", "--admin_port", "2", "--bind", "127.0.0.1", "--maxmemory=1gb",
        "--proactor_threads", "8", "--dir=/x", "--s3_endpoint", "h:9000", "--s3_use_https=false",
        "--s3_sign_payload", "--requirepass=hunter2", "--break_replication_on_master_restart=false"},
       {}},
      {"a boolean flag takes no separate value",
       {"--break_replication_on_master_restart", "--s3_use_https", "x"}, {"x"}},
      {"--noflag negates a boolean one", {"--nobreak_replication_on_master_restart", "--noport"}, {"--noport"}},
      {"values that look like flags of ours stay values", {"--tiered_prefix", "--port"}, {"--tiered_prefix"}},
  };
  for (const auto& r : rows)
    BOOST_TEST(br::render::filter_dragonfly_args(r.in) == r.out, r.what);
}

BOOST_AUTO_TEST_CASE(the_operator_owned_flags_come_first) {
  br::config::dragonfly_spec d;
  d.port = 6380;
  d.admin_port = 9998;
  d.args = {"--port=1", "--cache_mode=true"};
  const strings base = {"--port=6380", "--admin_port=9998", "--bind=0.0.0.0",
                        "--break_replication_on_master_restart", "--dir=/data"};
  auto want = base;
  want.push_back("--cache_mode=true");
  BOOST_TEST(br::render::dragonfly_args(d) == want);

  d.max_memory_mb = 512;
  d.proactor_threads = 2;
  d.auth = br::config::dragonfly_auth_spec{"cache-auth", "pw"};
  want = base;
  for (const char* a : {"--maxmemory=512mb", "--proactor_threads=2",
                        "--requirepass=$(DRAGONFLY_PASSWORD)", "--cache_mode=true"})
    want.push_back(a);
  BOOST_TEST(br::render::dragonfly_args(d) == want);
}

BOOST_AUTO_TEST_CASE(disabled_renders_nothing) {
  auto r = br::render::render_dragonfly(group_with({{"enabled", false}}), {});
  BOOST_TEST(r.ok());
  BOOST_TEST(r.objects.empty());
}

BOOST_AUTO_TEST_CASE(each_site_gets_a_statefulset_service_and_pdb) {
  auto objs = objects(enabled);
  BOOST_TEST(objs.size() == 3u * 3u + 1u);
  for (const std::string site : {"iad", "pdx", "sea"}) {
    const auto name = "orders-dragonfly-" + site;
    const auto* sts = rt::find(objs, "StatefulSet", name);
    const auto* svc = rt::find(objs, "Service", name);
    const auto* pdb = rt::find(objs, "PodDisruptionBudget", name);
    BOOST_TEST_REQUIRE(sts);
    BOOST_TEST_REQUIRE(svc);
    BOOST_TEST_REQUIRE(pdb);
    for (const auto* o : {sts, svc, pdb}) {
      const auto& md = o->at("metadata");
      BOOST_TEST(md.at("namespace") == "db");
      BOOST_TEST(md.at("labels").at("app.kubernetes.io/name") == "dragonfly");
      BOOST_TEST(md.at("labels").at("shipstream.io/site") == site);
      BOOST_TEST(md.at("ownerReferences")[0].at("uid") == "0f1e2d3c-uid");
    }
    const auto& spec = sts->at("spec");
    BOOST_TEST(spec.at("replicas") == 1);
    BOOST_TEST(!spec.contains("volumeClaimTemplates"));
    const auto& tmpl = spec.at("template");
    const auto& labels = tmpl.at("metadata").at("labels");
    BOOST_TEST(rt::selects(spec.at("selector").at("matchLabels"), labels));
    BOOST_TEST(labels.at("shipstream.io/dragonfly-role") == "replica");
    BOOST_TEST(labels.at("shipstream.io/dragonfly-traffic") == "enabled");
    BOOST_TEST(labels.at("shipstream.io/failover-group") == "orders");
    const auto& pod = tmpl.at("spec");
    BOOST_TEST(pod.at("volumes") == json::parse(R"([{"name":"data","emptyDir":{}}])"));
    BOOST_TEST(pod.at("nodeSelector").at("topology.kubernetes.io/zone") ==
               (site == "iad" ? "us-east-1a" : site == "pdx" ? "us-west-2a" : "us-west-2b"));
    BOOST_TEST(pod.at("tolerations") ==
               json::parse(R"([{"key":"shipstream.io/db-readonly-orders","operator":"Exists","effect":"NoExecute"}])"));
    BOOST_TEST(pod.at("automountServiceAccountToken") == false);
    const auto& c = rt::container(*sts, "dragonfly");
    BOOST_TEST(c.at("image") == enabled.at("image"));
    BOOST_TEST(c.at("ports") == json::parse(R"([{"name":"client","containerPort":6379,"protocol":"TCP"},
                                                {"name":"admin","containerPort":9999,"protocol":"TCP"}])"));
    BOOST_TEST(c.at("livenessProbe") ==
               json::parse(R"({"tcpSocket":{"port":"client"},"initialDelaySeconds":5,"periodSeconds":10})"));
    BOOST_TEST(c.at("readinessProbe") ==
               json::parse(R"({"tcpSocket":{"port":"client"},"initialDelaySeconds":2,"periodSeconds":5})"));
    BOOST_TEST(c.at("volumeMounts")[0].at("mountPath") == "/data");
    BOOST_TEST(c.at("securityContext").at("allowPrivilegeEscalation") == false);
    BOOST_TEST(!c.contains("env"));  // no auth: no password

    // The site Service: ClusterIP (not headless), this site's pod only, both ports.
    BOOST_TEST(svc->at("spec").at("type") == "ClusterIP");
    BOOST_TEST(!svc->at("spec").contains("clusterIP"));
    BOOST_TEST(rt::selects(svc->at("spec").at("selector"), labels));
    BOOST_TEST(svc->at("spec").at("ports").size() == 2u);
    BOOST_TEST(pdb->at("spec").at("minAvailable") == 1);
    BOOST_TEST(rt::selects(pdb->at("spec").at("selector").at("matchLabels"), labels));
  }
}

BOOST_AUTO_TEST_CASE(selectors_keep_dragonfly_and_mysql_apart) {
  auto objs = objects(enabled);
  auto mysql = rt::render(rt::base_doc()).objects;
  json df_pod = rt::find(objs, "StatefulSet", "orders-dragonfly-iad")->at("spec").at("template").at("metadata").at("labels");
  json mysql_pod = rt::find(mysql, "Deployment", "mysql-orders-iad")->at("spec").at("template").at("metadata").at("labels");
  // Another site's Dragonfly pod is not selected by iad's Service or PDB.
  json other = df_pod;
  other["shipstream.io/site"] = "pdx";
  for (const auto* o : {rt::find(objs, "Service", "orders-dragonfly-iad")})
    BOOST_TEST(!rt::selects(o->at("spec").at("selector"), other));
  BOOST_TEST(!rt::selects(rt::find(objs, "PodDisruptionBudget", "orders-dragonfly-iad")->at("spec").at("selector").at("matchLabels"), other));
  // MySQL's PDB and Services never select a Dragonfly pod; Dragonfly's never a MySQL pod.
  for (const auto& m : mysql) {
    if (m.at("kind") == "PodDisruptionBudget")
      BOOST_TEST(!rt::selects(m.at("spec").at("selector").at("matchLabels"), df_pod));
    if (m.at("kind") == "Service") BOOST_TEST(!rt::selects(m.at("spec").at("selector"), df_pod));
  }
  for (const auto& d : objs)
    if (d.at("kind") == "Service") BOOST_TEST(!rt::selects(d.at("spec").at("selector"), mysql_pod));
}

BOOST_AUTO_TEST_CASE(the_active_service_selects_the_master_that_carries_traffic) {
  auto objs = objects(enabled);
  const auto* active = rt::find(objs, "Service", "orders-dragonfly");
  BOOST_TEST_REQUIRE(active);
  BOOST_TEST(active->at("spec").at("type") == "ClusterIP");
  BOOST_TEST(!active->at("metadata").at("labels").contains("shipstream.io/site"));
  BOOST_TEST(active->at("spec").at("ports") ==
             json::parse(R"([{"name":"client","port":6379,"targetPort":"client","protocol":"TCP"}])"));
  const auto& sel = active->at("spec").at("selector");
  json pod = rt::find(objs, "StatefulSet", "orders-dragonfly-pdx")->at("spec").at("template").at("metadata").at("labels");
  struct row {
    const char* role;
    const char* traffic;  // nullptr: label absent (stripped by the manager)
    bool selected;
  };
  for (const auto& r : std::vector<row>{{"master", "enabled", true},
                                        {"replica", "enabled", false},  // the template default
                                        {"master", nullptr, false},     // a stale master
                                        {"master", "disabled", false}}) {
    json p = pod;
    p["shipstream.io/dragonfly-role"] = r.role;
    if (r.traffic)
      p["shipstream.io/dragonfly-traffic"] = r.traffic;
    else
      p.erase("shipstream.io/dragonfly-traffic");
    BOOST_TEST(rt::selects(sel, p) == r.selected, r.role << "/" << (r.traffic ? r.traffic : "-"));
  }
}

BOOST_AUTO_TEST_CASE(ports_args_and_password_follow_the_spec) {
  json d = enabled;
  d["port"] = 6380;
  d["adminPort"] = 9000;
  d["maxMemoryMb"] = 256;
  d["args"] = {"--maxmemory", "8gb", "--cache_mode=true"};
  d["auth"] = {{"secretName", "cache-auth"}};
  auto objs = objects(d);
  const auto& c = rt::container(*rt::find(objs, "StatefulSet", "orders-dragonfly-sea"), "dragonfly");
  BOOST_TEST(c.at("ports")[0].at("containerPort") == 6380);
  BOOST_TEST(c.at("ports")[1].at("containerPort") == 9000);
  BOOST_TEST(c.at("args") == json(strings{"--port=6380", "--admin_port=9000", "--bind=0.0.0.0",
                                           "--break_replication_on_master_restart", "--dir=/data",
                                           "--maxmemory=256mb", "--requirepass=$(DRAGONFLY_PASSWORD)",
                                           "--cache_mode=true"}));
  BOOST_TEST(rt::env_map(c.at("env")) ==
             (std::map<std::string, std::string>{{"DRAGONFLY_PASSWORD", "secret:cache-auth/password"}}));
  BOOST_TEST(rt::find(objs, "Service", "orders-dragonfly")->at("spec").at("ports")[0].at("port") == 6380);
  BOOST_TEST(rt::find(objs, "Service", "orders-dragonfly-sea")->at("spec").at("ports")[1].at("port") == 9000);
}

BOOST_AUTO_TEST_CASE(a_long_name_is_refused_with_its_site_path) {
  auto doc = rt::base_doc();
  doc["spec"]["dragonfly"] = enabled;
  doc["spec"]["sites"][1]["name"] = std::string(40, 'p');
  auto res = br::config::parse_group(doc);
  auto r = br::render::render_dragonfly(res.group, {});
  BOOST_TEST_REQUIRE(r.errors.size() == 1u);
  BOOST_TEST(r.errors[0].path == "spec.sites[1].name");
  BOOST_TEST(r.objects.empty());
}

BOOST_AUTO_TEST_CASE(stale_objects_are_those_no_longer_rendered) {
  auto objs = objects(enabled);
  auto list = [](std::initializer_list<const char*> names) {
    json items = json::array();
    for (const char* n : names) items.push_back({{"metadata", {{"name", n}}}});
    return json{{"items", items}};
  };
  // A removed site's objects go; rendered ones stay; a same-named object of another kind is no cover.
  BOOST_TEST(br::render::stale_dragonfly_objects(
                 list({"orders-dragonfly-iad", "orders-dragonfly-lax"}), "StatefulSet", objs) ==
             strings{"orders-dragonfly-lax"});
  BOOST_TEST(br::render::stale_dragonfly_objects(list({"orders-dragonfly"}), "Service", objs).empty());
  BOOST_TEST(br::render::stale_dragonfly_objects(list({"orders-dragonfly"}), "StatefulSet", objs) ==
             strings{"orders-dragonfly"});
  // Disabled: everything listed goes.
  BOOST_TEST(br::render::stale_dragonfly_objects(list({"orders-dragonfly", "orders-dragonfly-iad"}),
                                                 "Service", {}) ==
             (strings{"orders-dragonfly", "orders-dragonfly-iad"}));
  BOOST_TEST(br::render::stale_dragonfly_objects(json::object(), "Service", {}).empty());
  BOOST_TEST(br::render::dragonfly_selector("orders") ==
             "app.kubernetes.io/name=dragonfly,shipstream.io/failover-group=orders,"
             "app.kubernetes.io/managed-by=bloodraven");
}

BOOST_AUTO_TEST_SUITE_END()
