// spec.tls in the pods (issue 26, config/render/tls_pod.hpp): the group's TLS Secret as a Secret
// volume mounted read-only at /etc/mysql/tls in mysqld, the sidecar and the init container.
#include <boost/test/unit_test.hpp>

#include "config/render/tls_pod.hpp"
#include "tests/unit/render_test_util.hpp"

using nlohmann::json;

namespace {

json deployment_of(const json& doc) {
  auto r = render_test::render(doc);
  const json* d = render_test::find(r.objects, "Deployment", "mysql-orders-iad");
  BOOST_TEST_REQUIRE(d != nullptr);
  return *d;
}

const json* volume(const json& pod_spec, const std::string& name) {
  for (const auto& v : pod_spec["volumes"])
    if (v.value("name", "") == name) return &v;
  return nullptr;
}

const json* mount(const json& container, const std::string& name) {
  if (!container.contains("volumeMounts")) return nullptr;
  for (const auto& m : container["volumeMounts"])
    if (m.value("name", "") == name) return &m;
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_CASE(tls_secret_mounted_in_mysqld_sidecar_and_init) {
  json doc = render_test::base_doc();
  doc["spec"]["tls"] = json::object();
  const json pod = deployment_of(doc)["spec"]["template"]["spec"];
  const json* v = volume(pod, "tls");
  BOOST_TEST_REQUIRE(v != nullptr);
  BOOST_TEST((*v)["secret"]["secretName"] == "orders-tls");  // the default <group>-tls
  BOOST_TEST((*v)["secret"]["defaultMode"] == 0440);
  BOOST_TEST((*v)["secret"]["items"].size() == 3u);
  BOOST_TEST(!(*v)["secret"].contains("optional"));  // the pods wait for the certificate
  std::vector<json> containers(pod["containers"].begin(), pod["containers"].end());
  for (const auto& c : pod.value("initContainers", json::array())) containers.push_back(c);
  int mounted = 0;
  for (const auto& c : containers) {
    const json* m = mount(c, "tls");
    if (!m) continue;
    ++mounted;
    BOOST_TEST((*m)["mountPath"] == "/etc/mysql/tls", c.value("name", ""));
    BOOST_TEST((*m)["readOnly"] == true, c.value("name", ""));
    BOOST_TEST(!m->contains("subPath"), c.value("name", ""));  // subPath mounts are never updated
  }
  BOOST_TEST(mounted == 3);  // mysql, sidecar, init-datadir
  // The sidecar's: verification of its local mysqld, and the files it watches for a reload.
  std::map<std::string, std::string> env;
  for (const auto& e : pod["containers"][1]["env"]) env[e.value("name", "")] = e.value("value", "");
  BOOST_TEST(env["MYSQL_TLS_CA"] == "/etc/mysql/tls/ca.crt");
  BOOST_TEST(env["MYSQL_TLS_WATCH"] == "/etc/mysql/tls/ca.crt,/etc/mysql/tls/tls.crt,/etc/mysql/tls/tls.key");
  for (const auto& e : pod["containers"][0].value("env", json::array()))
    BOOST_TEST(e.value("name", "").rfind("MYSQL_TLS", 0) != 0u);  // mysqld's own env untouched
}

BOOST_AUTO_TEST_CASE(secret_name_and_no_tls) {
  json doc = render_test::base_doc();
  const json plain = deployment_of(doc);
  BOOST_TEST(volume(plain["spec"]["template"]["spec"], "tls") == nullptr);
  for (const auto& c : plain["spec"]["template"]["spec"]["containers"]) BOOST_TEST(mount(c, "tls") == nullptr);
  doc["spec"]["tls"] = {{"secretName", "orders-certs"}};
  const json with = deployment_of(doc);
  BOOST_TEST_REQUIRE(volume(with["spec"]["template"]["spec"], "tls") != nullptr);
  BOOST_TEST((*volume(with["spec"]["template"]["spec"], "tls"))["secret"]["secretName"] == "orders-certs");
  // The template changed, so the pods roll when spec.tls is set.
  BOOST_TEST(with["metadata"]["annotations"]["shipstream.io/spec-hash"] !=
             plain["metadata"]["annotations"]["shipstream.io/spec-hash"]);
}
