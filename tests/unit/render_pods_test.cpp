// Pods a user can run (reconciler version 5): ServiceAccount, secure defaults, the accounts'
// init ConfigMap and environment, the user's pod fields, Service templates, and the sidecar's
// reduced credentials. Version 4 renders none of it (existing groups are not rolled).
#include <boost/test/unit_test.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "config/render/accounts.hpp"
#include "config/render/workload.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::render;
using namespace render_test;

namespace {

const json& pod_of(const std::vector<json>& objs, const std::string& site) {
  const auto* d = find(objs, "Deployment", "mysql-orders-" + site);
  BOOST_TEST_REQUIRE(d);
  return d->at("spec").at("template");
}

const json& container(const json& pod_template, const char* name) {
  for (const auto& c : pod_template["spec"]["containers"])
    if (c["name"] == name) return c;
  BOOST_FAIL("no container " << name);
  return pod_template;
}

const json* mount_at(const json& c, const std::string& path) {
  for (const auto& m : c["volumeMounts"])
    if (m["mountPath"] == path) return &m;
  return nullptr;
}

const json* volume(const json& pod_template, const std::string& name) {
  for (const auto& v : pod_template["spec"]["volumes"])
    if (v["name"] == name) return &v;
  return nullptr;
}

json credentials_doc() {
  auto doc = base_doc();
  doc["spec"].erase("secretName");
  doc["spec"]["credentials"] = {{"operatorSecret", "orders-operator"}};
  return doc;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_pods)

BOOST_AUTO_TEST_CASE(secure_defaults_and_accounts) {
  auto r = render(base_doc());
  const auto* sa = find(r.objects, "ServiceAccount", "mysql-orders");
  BOOST_TEST_REQUIRE(sa);
  BOOST_TEST((*sa)["automountServiceAccountToken"] == false);
  const auto* init = find(r.objects, "ConfigMap", "mysql-orders-init");
  BOOST_TEST_REQUIRE(init);
  BOOST_TEST((*init)["data"]["bloodraven-users.sh"] == users_script());
  BOOST_TEST((*init)["data"]["init-datadir.sh"] == init_datadir_script());
  for (const char* site : {"iad", "pdx", "sea"}) {
    BOOST_TEST_CONTEXT(site) {
      const auto& pod = pod_of(r.objects, site);
      const auto& spec = pod["spec"];
      BOOST_TEST(spec["serviceAccountName"] == "mysql-orders");
      BOOST_TEST(spec["automountServiceAccountToken"] == false);
      BOOST_TEST(spec["securityContext"] ==
                 json({{"runAsNonRoot", true}, {"runAsUser", 999}, {"runAsGroup", 999},
                       {"fsGroup", 999}, {"seccompProfile", {{"type", "RuntimeDefault"}}}}));
      const auto& mysql = container(pod, "mysql");
      const auto& sc = mysql["securityContext"];
      BOOST_TEST(sc["readOnlyRootFilesystem"] == true);
      BOOST_TEST(sc["allowPrivilegeEscalation"] == false);
      BOOST_TEST(sc["runAsNonRoot"] == true);
      BOOST_TEST(sc["capabilities"]["drop"] == json::array({"ALL"}));
      for (const char* dir : {"/tmp", "/var/run/mysqld"}) {
        const auto* m = mount_at(mysql, dir);
        BOOST_TEST_REQUIRE(m, dir);
        const auto* v = volume(pod, (*m)["name"]);
        BOOST_TEST_REQUIRE(v);
        BOOST_TEST(v->contains("emptyDir"));
      }
      // Version 6: the mysql container neither runs the accounts script nor holds the
      // accounts' passwords; the init container does both.
      BOOST_TEST(!mount_at(mysql, "/docker-entrypoint-initdb.d"));
      std::map<std::string, json> mysql_env;
      for (const auto& e : mysql["env"]) mysql_env[e["name"]] = e;
      BOOST_TEST(mysql_env.size() == 1u);
      BOOST_TEST(mysql_env.contains("MYSQL_ROOT_PASSWORD"));
      BOOST_TEST_REQUIRE(spec["initContainers"].size() == 1u);
      const auto& init = spec["initContainers"][0];
      BOOST_TEST(init["name"] == "init-datadir");
      BOOST_TEST(init["image"] == mysql["image"]);
      BOOST_TEST(init["command"] == json::array({"bash", "/bloodraven-init/init-datadir.sh"}));
      BOOST_TEST(init["securityContext"] == mysql["securityContext"]);
      const auto* script = mount_at(init, "/bloodraven-init");
      BOOST_TEST_REQUIRE(script);
      BOOST_TEST((*volume(pod, (*script)["name"]))["configMap"]["name"] == "mysql-orders-init");
      for (const char* dir : {"/var/lib/mysql", "/etc/mysql/conf.d", "/tmp", "/var/run/mysqld"})
        BOOST_TEST(mount_at(init, dir), dir);
      std::map<std::string, json> env;
      for (const auto& e : init["env"]) env[e["name"]] = e;
      for (const char* k : {"MYSQL_ROOT_PASSWORD", "BLOODRAVEN_OPERATOR_USER",
                            "BLOODRAVEN_OPERATOR_PASSWORD", "MYSQL_REPLICATION_USER",
                            "MYSQL_REPLICATION_PASSWORD", "MYSQL_MONITOR_USER",
                            "MYSQL_MONITOR_PASSWORD", "MYSQL_BACKUP_USER", "MYSQL_BACKUP_PASSWORD"}) {
        BOOST_TEST_REQUIRE(env.contains(k), k);
        const auto& ref = env[k]["valueFrom"]["secretKeyRef"];
        BOOST_TEST(ref["name"] == "orders-mysql");
        BOOST_TEST(ref.value("optional", false) == (k != std::string{"MYSQL_ROOT_PASSWORD"}));
      }
      BOOST_TEST(!mysql.contains("resources"));
      BOOST_TEST(container(pod, "sidecar")["securityContext"]["readOnlyRootFilesystem"] == true);
    }
  }
}

// Version 5 (groups not yet rolled to 6): the image's first start runs the accounts script.
BOOST_AUTO_TEST_CASE(version_5_has_no_init_container) {
  render_options o;
  o.reconciler_version = 5;
  auto r = render(base_doc(), o);
  const auto& pod = pod_of(r.objects, "iad");
  BOOST_TEST(!pod["spec"].contains("initContainers"));
  const auto& mysql = container(pod, "mysql");
  const auto* initdb = mount_at(mysql, "/docker-entrypoint-initdb.d");
  BOOST_TEST_REQUIRE(initdb);
  BOOST_TEST((*volume(pod, (*initdb)["name"]))["configMap"]["name"] == "mysql-orders-init");
  std::set<std::string> env;
  for (const auto& e : mysql["env"]) env.insert(e["name"].get<std::string>());
  BOOST_TEST(env.contains("BLOODRAVEN_OPERATOR_PASSWORD"));
}

// Version 6 (groups not yet rolled to 7): the init container's template stays as it was,
// without the backup account's keys.
BOOST_AUTO_TEST_CASE(version_6_has_no_backup_account) {
  render_options o;
  o.reconciler_version = 6;
  auto r = render(base_doc(), o);
  const auto& init = pod_of(r.objects, "iad")["spec"]["initContainers"][0];
  std::set<std::string> env;
  for (const auto& e : init["env"]) env.insert(e["name"].get<std::string>());
  BOOST_TEST(env.contains("MYSQL_MONITOR_USER"));
  BOOST_TEST(!env.contains("MYSQL_BACKUP_USER"));
  BOOST_TEST(!env.contains("MYSQL_BACKUP_PASSWORD"));
}

BOOST_AUTO_TEST_CASE(version_4_renders_none_of_it) {
  render_options o;
  o.reconciler_version = 4;
  auto r = render(base_doc(), o);
  BOOST_TEST(!find(r.objects, "ServiceAccount", "mysql-orders"));
  BOOST_TEST(!find(r.objects, "ConfigMap", "mysql-orders-init"));
  const auto& pod = pod_of(r.objects, "iad");
  BOOST_TEST(!pod["spec"].contains("serviceAccountName"));
  BOOST_TEST(pod["spec"]["securityContext"] == json({{"fsGroup", 999}}));
  BOOST_TEST(!mount_at(container(pod, "mysql"), "/docker-entrypoint-initdb.d"));
}

BOOST_AUTO_TEST_CASE(user_pod_fields_are_applied) {
  auto doc = base_doc();
  auto& s = doc["spec"];
  s["resources"] = {{"requests", {{"cpu", "1"}}}, {"limits", {{"memory", "2Gi"}}}};
  s["sites"][1]["resources"] = {{"requests", {{"cpu", "4"}}}};
  s["sidecarResources"] = {{"limits", {{"cpu", "200m"}}}};
  s["podLabels"] = {{"team", "db"}};
  s["podAnnotations"] = {{"example.com/scrape", "true"}};
  s["tolerations"] = json::array({{{"key", "dedicated"}, {"operator", "Exists"}}});
  s["affinity"] = {{"podAntiAffinity", {{"preferredDuringSchedulingIgnoredDuringExecution", json::array()}}}};
  s["priorityClassName"] = "db-critical";
  s["podSecurityContext"] = {{"runAsUser", 1001}};
  s["containerSecurityContext"] = {{"readOnlyRootFilesystem", false}};
  auto r = render(doc);
  const auto& iad = pod_of(r.objects, "iad");
  const auto& pdx = pod_of(r.objects, "pdx");
  BOOST_TEST(container(iad, "mysql")["resources"] == s["resources"]);
  BOOST_TEST(container(pdx, "mysql")["resources"] == s["sites"][1]["resources"]);  // site wins
  BOOST_TEST(container(iad, "sidecar")["resources"] == s["sidecarResources"]);
  BOOST_TEST(iad["metadata"]["labels"]["team"] == "db");
  BOOST_TEST(iad["metadata"]["labels"]["shipstream.io/role"] == "replica");
  BOOST_TEST(iad["metadata"]["annotations"]["example.com/scrape"] == "true");
  BOOST_TEST(iad["metadata"]["annotations"].contains("shipstream.io/config-hash"));
  const auto& tol = iad["spec"]["tolerations"];
  BOOST_TEST_REQUIRE(tol.size() == 2u);
  BOOST_TEST(tol[0]["key"] == "shipstream.io/db-readonly-orders");  // the operator's stays first
  BOOST_TEST(tol[1] == s["tolerations"][0]);
  BOOST_TEST(iad["spec"]["affinity"] == s["affinity"]);
  BOOST_TEST(iad["spec"]["priorityClassName"] == "db-critical");
  BOOST_TEST(iad["spec"]["securityContext"] == s["podSecurityContext"]);  // as given
  BOOST_TEST(container(iad, "mysql")["securityContext"] == s["containerSecurityContext"]);
}

BOOST_AUTO_TEST_CASE(sidecar_mounts_only_what_it_reads) {
  auto r = render(credentials_doc());
  for (const char* site : {"iad", "pdx"}) {
    BOOST_TEST_CONTEXT(site) {
      const auto& pod = pod_of(r.objects, site);
      const auto* creds = volume(pod, "creds");
      BOOST_TEST_REQUIRE(creds);
      BOOST_TEST((*creds)["secret"]["secretName"] == "orders-operator");
      BOOST_TEST((*creds)["secret"]["items"] ==
                 json::array({{{"key", "username"}, {"path", "username"}},
                              {{"key", "password"}, {"path", "password"}}}));
      // No other site's private key in the keys projection.
      for (const auto& item : (*volume(pod, "keys"))["secret"]["items"]) {
        std::string key = item["key"];
        if (key.ends_with(".key")) BOOST_TEST(key == "site-" + std::string{site} + ".key");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(service_templates_shape_the_services) {
  auto doc = base_doc();
  doc["spec"]["primaryServiceTemplate"] = {
      {"metadata", {{"annotations", {{"example.com/lb", "internal"}}}, {"labels", {{"tier", "db"}}}}},
      {"spec", {{"type", "LoadBalancer"}, {"externalTrafficPolicy", "Local"}}}};
  doc["spec"]["replicaServiceTemplate"] = {
      {"spec", {{"ports", json::array({{{"name", "exporter"}, {"port", 9104}}})}}}};
  doc["spec"]["sites"][2]["serviceTemplate"] = {{"spec", {{"type", "NodePort"}}}};
  auto r = render(doc);
  const auto& primary = *find(r.objects, "Service", "mysql-orders-primary");
  BOOST_TEST(primary["spec"]["type"] == "LoadBalancer");
  BOOST_TEST(primary["spec"]["externalTrafficPolicy"] == "Local");
  BOOST_TEST(primary["metadata"]["annotations"]["example.com/lb"] == "internal");
  BOOST_TEST(primary["metadata"]["labels"]["tier"] == "db");
  BOOST_TEST(primary["spec"]["selector"]["shipstream.io/role"] == "primary");
  const auto& replicas = *find(r.objects, "Service", "mysql-orders-replicas");
  BOOST_TEST(replicas["spec"]["type"] == "ClusterIP");
  BOOST_TEST_REQUIRE(replicas["spec"]["ports"].size() == 2u);
  BOOST_TEST(replicas["spec"]["ports"][0]["port"] == 3306);
  BOOST_TEST(replicas["spec"]["ports"][1] ==
             json({{"name", "exporter"}, {"port", 9104}, {"targetPort", 9104}, {"protocol", "TCP"}}));
  BOOST_TEST((*find(r.objects, "Service", "mysql-orders-sea"))["spec"]["type"] == "NodePort");
  BOOST_TEST((*find(r.objects, "Service", "mysql-orders-iad"))["spec"]["type"] == "ClusterIP");
}

// The script is run by sh as the image's entrypoint would source it, with docker_process_sql
// replaced by a capture of its input: the SQL it sends, quoting included.
BOOST_AUTO_TEST_CASE(users_script_creates_the_accounts_idempotently) {
  char dir_template[] = "/tmp/br-users-XXXXXX";
  std::string dir = mkdtemp(dir_template);
  {
    std::ofstream{dir + "/users.sh"} << users_script();
  }
  std::string cmd =
      "cd " + dir +
      " && env -i PATH=/usr/bin:/bin BLOODRAVEN_OPERATOR_USER=bloodraven "
      "BLOODRAVEN_OPERATOR_PASSWORD=\"it's\\\\x\" MYSQL_REPLICATION_USER=repl "
      "MYSQL_REPLICATION_PASSWORD=r MYSQL_MONITOR_USER=monitor MYSQL_MONITOR_PASSWORD=m "
      "sh -c 'docker_process_sql() { cat > sql.out; }; . ./users.sh'";
  BOOST_TEST_REQUIRE(std::system(cmd.c_str()) == 0);
  std::ifstream in{dir + "/sql.out"};
  std::stringstream ss;
  ss << in.rdbuf();
  std::string sql = ss.str();
  BOOST_TEST(sql.starts_with("SET sql_log_bin=0;\n"), sql);
  for (const char* want :
       {"CREATE DATABASE IF NOT EXISTS bloodraven;",
        "CREATE USER IF NOT EXISTS 'bloodraven'@'%' IDENTIFIED BY 'it''s\\\\x';",
        "GRANT SYSTEM_VARIABLES_ADMIN, CONNECTION_ADMIN, PROCESS, REPLICATION_SLAVE_ADMIN, RELOAD, "
        "CLONE_ADMIN, REPLICATION CLIENT ON *.* TO 'bloodraven'@'%';",
        "GRANT SELECT ON performance_schema.* TO 'bloodraven'@'%';",
        "GRANT SELECT (User, Host, Super_priv) ON mysql.user TO 'bloodraven'@'%';",
        "GRANT SELECT, INSERT, UPDATE, CREATE, EVENT ON bloodraven.* TO 'bloodraven'@'%';",
        "CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY 'r';",
        "GRANT REPLICATION SLAVE, BACKUP_ADMIN ON *.* TO 'repl'@'%';",
        "CREATE USER IF NOT EXISTS 'monitor'@'%' IDENTIFIED BY 'm';",
        "GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'monitor'@'%';",
        "GRANT SELECT ON performance_schema.* TO 'monitor'@'%';"})
    BOOST_TEST(sql.find(want) != std::string::npos, want << "\nin:\n" << sql);
  // Least privilege (review finding 9): none of these is granted to anybody (RELOAD is: RESET
  // REPLICA needs it, integration_accounts).
  for (const char* never : {"SERVICE_CONNECTION_ADMIN", "SUPER", "ALL ON", "GRANT SELECT ON *.*",
                            "GRANT SELECT ON mysql.*"})
    BOOST_TEST(sql.find(never) == std::string::npos, never << "\nin:\n" << sql);
  // The operator account is not the replication account here, so it gets neither REPLICATION
  // SLAVE nor BACKUP_ADMIN.
  BOOST_TEST(sql.find("REPLICATION SLAVE, BACKUP_ADMIN ON *.* TO 'bloodraven'") == std::string::npos, sql);
  // Without the optional users only the operator account is created, and it is the
  // replication account as well.
  std::string cmd2 = "cd " + dir +
                     " && env -i PATH=/usr/bin:/bin BLOODRAVEN_OPERATOR_USER=op BLOODRAVEN_OPERATOR_PASSWORD=p "
                     "sh -c 'docker_process_sql() { cat > sql2.out; }; . ./users.sh'";
  BOOST_TEST_REQUIRE(std::system(cmd2.c_str()) == 0);
  std::ifstream in2{dir + "/sql2.out"};
  std::stringstream ss2;
  ss2 << in2.rdbuf();
  BOOST_TEST(ss2.str().find("'op'@'%'") != std::string::npos);
  BOOST_TEST(ss2.str().find("'repl'") == std::string::npos);
  BOOST_TEST(ss2.str().find("GRANT REPLICATION SLAVE, BACKUP_ADMIN ON *.* TO 'op'@'%';") != std::string::npos,
             ss2.str());
  std::system(("rm -rf " + dir).c_str());
}

BOOST_AUTO_TEST_SUITE_END()
