// Process kubelet, pure parts (tests/support/process_kubelet/pod_config.hpp): env resolution as
// a kubelet does it, Service selection and ports, the DNAT document, the hosts file, and paths
// inside the chroot that never escape it.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <unistd.h>

#include "io/codec/base64.hpp"
#include "tests/support/process_kubelet/pod_config.hpp"

using namespace br::test::kubelet;
using nlohmann::json;

namespace {

json pod() {
  return {{"metadata", {{"name", "mysql-g-a-1-1"}, {"namespace", "ns1"}}}, {"spec", json::object()}};
}

pod_refs refs() {
  pod_refs r;
  r.secrets["creds"] = {{"metadata", {{"name", "creds"}}},
                        {"data", {{"MYSQL_ROOT_PASSWORD", br::base64_encode("r00t")},
                                  {"username", br::base64_encode("bloodraven")}}}};
  r.configmaps["cfg"] = {{"metadata", {{"name", "cfg"}}}, {"data", {{"my.cnf", "[mysqld]\n"}, {"k", "v"}}}};
  return r;
}

json secret_env(const std::string& name, const std::string& secret, const std::string& key,
                bool optional = false) {
  json ref = {{"name", secret}, {"key", key}};
  if (optional) ref["optional"] = true;
  return {{"name", name}, {"valueFrom", {{"secretKeyRef", ref}}}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kubelet_pod_config)

BOOST_AUTO_TEST_CASE(env_values_refs_and_fields) {
  json c = {{"name", "mysql"},
            {"env", json::array({{{"name", "A"}, {"value", "1"}},
                                 secret_env("ROOT", "creds", "MYSQL_ROOT_PASSWORD"),
                                 {{"name", "CM"}, {"valueFrom", {{"configMapKeyRef", {{"name", "cfg"}, {"key", "k"}}}}}},
                                 {{"name", "POD"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.name"}}}}}},
                                 {{"name", "NS"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "metadata.namespace"}}}}}},
                                 {{"name", "IP"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.podIP"}}}}}},
                                 {{"name", "A"}, {"value", "2"}}})}};
  auto r = resolve_env(c, pod(), "10.244.0.11", refs());
  BOOST_TEST_REQUIRE(r.error.empty(), r.error);
  std::vector<std::pair<std::string, std::string>> want = {
      {"A", "2"}, {"ROOT", "r00t"}, {"CM", "v"}, {"POD", "mysql-g-a-1-1"}, {"NS", "ns1"}, {"IP", "10.244.0.11"}};
  BOOST_TEST(r.env == want);
}

BOOST_AUTO_TEST_CASE(env_missing_secret_or_key_is_an_error_unless_optional) {
  struct row {
    json env;
    std::string error_part;  // "" = no error
  };
  const std::vector<row> rows = {
      {secret_env("X", "nope", "k"), "secret \"nope\" not found"},
      {secret_env("X", "creds", "MYSQL_REPLICATION_PASSWORD"), "couldn't find key MYSQL_REPLICATION_PASSWORD in Secret ns1/creds"},
      {secret_env("X", "creds", "missing", true), ""},
      {secret_env("X", "nope", "k", true), ""},
      {{{"name", "X"}, {"valueFrom", {{"fieldRef", {{"fieldPath", "status.hostIP"}}}}}}, "fieldPath: status.hostIP is not supported"},
      {{{"name", "X"}, {"valueFrom", {{"resourceFieldRef", {{"resource", "limits.cpu"}}}}}}, "is not supported by the process kubelet"},
  };
  for (const auto& r : rows) {
    json c = {{"name", "c"}, {"env", json::array({r.env})}};
    auto got = resolve_env(c, pod(), "10.244.0.11", refs());
    BOOST_TEST_CONTEXT(r.env.dump()) {
      if (r.error_part.empty()) {
        BOOST_TEST(got.error.empty());
        BOOST_TEST(got.env.empty());  // optional and missing: not set at all
      } else {
        BOOST_TEST(got.error.find(r.error_part) != std::string::npos, got.error);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(volume_projection_decodes_secrets_and_honours_items_and_modes) {
  auto all = project_volume({{"name", "creds"}, {"secret", {{"secretName", "creds"}, {"defaultMode", 0440}}}}, refs());
  BOOST_TEST_REQUIRE(all.error.empty());
  BOOST_TEST_REQUIRE(all.files.size() == 2u);
  BOOST_TEST(all.files[0].path == "MYSQL_ROOT_PASSWORD");
  BOOST_TEST(all.files[0].content == "r00t");
  BOOST_TEST(all.files[0].mode == 0440);
  auto items = project_volume(
      {{"name", "c"}, {"configMap", {{"name", "cfg"}, {"items", json::array({{{"key", "my.cnf"}, {"path", "x/my.cnf"}}})}}}},
      refs());
  BOOST_TEST_REQUIRE(items.files.size() == 1u);
  BOOST_TEST(items.files[0].path == "x/my.cnf");
  BOOST_TEST(items.files[0].mode == 0644);
  BOOST_TEST(project_volume({{"name", "c"}, {"configMap", {{"name", "gone"}}}}, refs()).error ==
             "configmap \"gone\" not found");
  BOOST_TEST(project_volume({{"name", "c"}, {"secret", {{"secretName", "creds"}, {"items", json::array({{{"key", "zz"}, {"path", "zz"}}})}}}}, refs())
                 .error.find("couldn't find key zz") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_projected_service_account_volume_is_written) {
  // The Group Replication member pod's token volume (config/render/workload.cpp).
  json pod = {{"metadata", {{"name", "p1"}, {"namespace", "ns1"}}},
              {"spec", {{"serviceAccountName", "mysql-g-a-member"}}}};
  json v = {{"name", "member-token"},
            {"projected",
             {{"sources",
               json::array({{{"serviceAccountToken", {{"path", "token"}, {"expirationSeconds", 3607}}}},
                            {{"configMap", {{"name", "kube-root-ca.crt"},
                                            {"items", json::array({{{"key", "ca.crt"}, {"path", "ca.crt"}}})}}}},
                            {{"downwardAPI", {{"items", json::array({{{"path", "namespace"},
                                                                      {"fieldRef", {{"fieldPath", "metadata.namespace"}}}}})}}}}})}}}};
  auto r = project_projected(v, pod, refs());
  BOOST_TEST_REQUIRE(r.error.empty(), r.error);
  BOOST_TEST_REQUIRE(r.files.size() == 2u);  // no kube-root-ca.crt here: skipped
  BOOST_TEST(r.files[0].path == "token");
  BOOST_TEST(r.files[0].content == "process-kubelet:ns1:mysql-g-a-member");
  BOOST_TEST(r.files[1].path == "namespace");
  BOOST_TEST(r.files[1].content == "ns1");
  json cfg = v;
  cfg["projected"]["sources"] = json::array({{{"configMap", {{"name", "gone"}}}}});
  BOOST_TEST(project_projected(cfg, pod, refs()).error == "configmap \"gone\" not found");
  cfg["projected"]["sources"] = json::array({{{"clusterTrustBundle", json::object()}}});
  BOOST_TEST(!project_projected(cfg, pod, refs()).error.empty());
}

BOOST_AUTO_TEST_CASE(services_select_ready_pods_by_label_and_resolve_named_ports) {
  auto p = [](const std::string& name, const std::string& role, const std::string& ip, bool ready) {
    return json{{"metadata", {{"name", name}, {"namespace", "ns1"}, {"labels", {{"app", "mysql"}, {"role", role}}}}},
                {"spec", {{"containers", json::array({{{"name", "mysql"}, {"ports", json::array({{{"name", "mysql"}, {"containerPort", 3306}}})}}})}}},
                {"status", {{"podIP", ip}, {"conditions", json::array({{{"type", "Ready"}, {"status", ready ? "True" : "False"}}})}}}};
  };
  std::vector<json> pods = {p("b", "replica", "10.244.0.12", true), p("a", "primary", "10.244.0.11", true),
                            p("c", "primary", "10.244.0.13", false)};
  json svc = {{"metadata", {{"name", "mysql-g-primary"}, {"namespace", "ns1"}}},
              {"spec", {{"selector", {{"app", "mysql"}, {"role", "primary"}}},
                        {"ports", json::array({{{"port", 3306}, {"targetPort", "mysql"}}})}}}};
  auto eps = service_endpoints(svc, pods);
  BOOST_TEST_REQUIRE(eps[3306].size() == 1u);  // c is not ready
  BOOST_TEST(eps[3306][0].ip == "10.244.0.11");
  BOOST_TEST(eps[3306][0].port == 3306);
  svc["spec"]["publishNotReadyAddresses"] = true;
  eps = service_endpoints(svc, pods);
  BOOST_TEST_REQUIRE(eps[3306].size() == 2u);
  BOOST_TEST(eps[3306][1].ip == "10.244.0.13");  // sorted by pod name
  svc["spec"]["selector"] = json::object();      // selects nothing
  BOOST_TEST(service_endpoints(svc, pods)[3306].empty());
  pods[1]["metadata"]["namespace"] = "other";  // another namespace never matches
  svc["spec"]["selector"] = {{"app", "mysql"}, {"role", "primary"}};
  svc["spec"]["publishNotReadyAddresses"] = false;
  BOOST_TEST(service_endpoints(svc, pods)[3306].empty());

  // Headless (Group Replication's site Services): the name is the selected pod's own address,
  // not-ready pods included when the Service publishes them.
  json site = {{"metadata", {{"name", "mysql-g-a"}, {"namespace", "ns1"}}},
               {"spec", {{"clusterIP", "None"}, {"selector", {{"app", "mysql"}, {"role", "primary"}}},
                         {"ports", json::array({{{"port", 3306}, {"targetPort", "mysql"}}})}}}};
  BOOST_TEST(is_headless(site));
  BOOST_TEST(!is_headless(svc));
  pods[1]["metadata"]["namespace"] = "ns1";
  BOOST_TEST(headless_address(site, pods) == "10.244.0.11");
  pods[1]["status"]["conditions"][0]["status"] = "False";
  BOOST_TEST(headless_address(site, pods) == "");
  site["spec"]["publishNotReadyAddresses"] = true;
  BOOST_TEST(headless_address(site, pods) == "10.244.0.11");
}

BOOST_AUTO_TEST_CASE(dnat_document_and_hosts_text) {
  auto doc = nat_rules_document("BRK-SVC", {{"10.244.0.200", 3306, {"10.244.0.11", 3306}},
                                            {"10.244.0.201", 8082, {"", 0}}});
  BOOST_TEST(doc ==
             "*nat\n:BRK-SVC - [0:0]\n-F BRK-SVC\n"
             "-A BRK-SVC -d 10.244.0.200/32 -p tcp -m tcp --dport 3306 -j DNAT --to-destination 10.244.0.11:3306\n"
             "COMMIT\n");
  auto hosts = hosts_text({{"default/mysql-g-a", "10.244.0.200"}});
  BOOST_TEST(hosts.find("10.244.0.200\tmysql-g-a.default.svc.cluster.local mysql-g-a.default.svc mysql-g-a.default\n") !=
             std::string::npos);
  BOOST_TEST(hosts.find("127.0.0.1\tlocalhost\n") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(paths_inside_the_root_follow_links_without_escaping) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "brk-root-XXXXXX").string();
  BOOST_TEST_REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
  const fs::path root = tmpl;
  fs::create_directories(root / "run/mysqld");
  fs::create_directories(root / "var");
  fs::create_symlink("/run", root / "var/run");        // absolute: relative to the root
  fs::create_symlink("../../..", root / "var/up");     // never above the root
  const std::string r = root.string();
  BOOST_TEST(path_in_root(r, "/var/run/mysqld") == r + "/run/mysqld");
  BOOST_TEST(path_in_root(r, "/var/up/etc/hosts") == r + "/etc/hosts");
  BOOST_TEST(path_in_root(r, "/../../etc/hosts") == r + "/etc/hosts");
  BOOST_TEST(path_in_root(r, "/var/lib/mysql") == r + "/var/lib/mysql");
  fs::remove_all(root);
}

BOOST_AUTO_TEST_SUITE_END()
