// Least privilege, checked: the API simulator enforces the RBAC the chart renders for the
// operator's ServiceAccount (the operator's client identity "operator-0" is that ServiceAccount;
// the test's own client stays unrestricted), and the operator, running under it, keeps a copy of
// a group's generated credentials Secret in its own namespace and deletes it with the group.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "actors/operator/api/operator_api.hpp"
#include "actors/operator/kube/core/generated_credentials.hpp"
#include "actors/operator/kube/core/kube_credentials.hpp"
#include "actors/operator/kube/core/status_writer.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "config/render/names.hpp"
#include "io/kube/retry.hpp"
#include "io/log/log.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

const std::string operator_ns = "bloodraven-system";  // the chart's release namespace here
const std::string group_ns = "shop";

int closed_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  int port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

json secret(const std::string& ns, const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"data", {{"password", base64_encode("pw")}}}};
}

/// What the operator's namespace copy holds of a generated Secret's data.
json copied_keys(const json& data) {
  json out = json::object();
  for (const auto& k : operator_copy_keys())
    if (data.contains(k)) out[k] = data[k];
  return out;
}

json node(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", name}}}, {"spec", json::object()}};
}

json site(const std::string& group, const std::string& name) {
  return {{"name", name},
          {"role", "primary-candidate"},
          {"zone", "zone-" + name},
          {"lbIP", name == "iad" ? "192.0.2.1" : "192.0.2.2"},
          {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
          {"storage", {{"size", "1Gi"}}}};
}

json group_object(const std::string& name) {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", name}, {"namespace", group_ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", name + "-operator"}}},
            {"dns", {{"hostname", name + ".example.com"}}},
            {"pollInterval", "200ms"},
            {"failureThreshold", 2},
            {"recoveryThreshold", 1},
            {"promotionPolicy", "Fast"},
            {"sites", json::array({site(name, "iad"), site(name, "pdx")})}}}};
}

struct rbac_fixture {
  br::kube_sim::test::sim_cluster cluster;  // the chart's RBAC on the operator's ServiceAccount
  br::kube_sim::simulator& sim = cluster.sim;
  std::shared_ptr<kube::client> c = cluster.client("test", 3s);  // the test (unrestricted)
  std::shared_ptr<kube::client> op = cluster.client(br::kube_sim::test::operator_identity, 3s);
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  br::kube_sim::test::operator_actors actors;

  rbac_fixture() {
    log::set_level(log::level::warn);
    for (const auto& n : {group_ns, operator_ns})
      must(c->create(kube::resources::namespaces, "",
                     {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", n}}}}),
           "namespace " + n);
    actors.spawn(sys, false);  // the registry; no site is reachable here
  }

  ~rbac_fixture() { actors.stop(self, 20s); }

  void must(const kube::result<json>& r, const std::string& what) {
    BOOST_REQUIRE_MESSAGE(r.ok(), what << ": " << (r.ok() ? "" : r.error().describe()));
  }

  void install_crd() {
    auto error = cluster.install_crds(false);
    BOOST_REQUIRE_MESSAGE(error.empty(), error);
  }

  void start_operator() {
    auto o = br::kube_sim::test::fast_group_source(op, {});
    o.operator_namespace = operator_ns;
    auto port = closed_port();
    o.site_address = [port](const std::string&, const std::string&, const std::string&) {
      return config::address_spec{"127.0.0.1", port};
    };
    o.sidecar_address = [](const std::string&, const std::string&, const std::string&) { return std::string{}; };
    o.credential_retry = 300ms;
    actors.start(sys, o);
  }

  std::string denials() { return "\n" + cluster.denials(); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_rbac, rbac_fixture)

BOOST_AUTO_TEST_CASE(requests_the_chart_does_not_grant_get_403_like_a_real_api_server) {
  must(c->create(kube::resources::secrets, group_ns, secret(group_ns, "s1")), "secret");
  must(c->create(kube::resources::secrets, operator_ns, secret(operator_ns, "s2")), "secret");
  must(c->create(kube::resources::nodes, "", node("n1")), "node");

  // Granted: get a Secret by name, create/update, patch a node, events.
  auto got = op->get(kube::resources::secrets, group_ns, "s1");
  BOOST_TEST(got.ok());
  BOOST_TEST(op->create(kube::resources::secrets, group_ns, secret(group_ns, "s3")).ok());
  auto n = op->get(kube::resources::nodes, "", "n1");
  BOOST_REQUIRE(n.ok());
  BOOST_TEST(op->update(kube::resources::nodes, *n).ok());  // taints: read-modify-write
  BOOST_TEST(op->list(kube::resources::pods, group_ns).ok());

  // Refused: list or watch Secrets (anywhere), delete one in a group namespace, patch a node.
  auto listed = op->list(kube::resources::secrets, group_ns);
  BOOST_REQUIRE(!listed.ok());
  BOOST_TEST(listed.error().status == 403);
  BOOST_TEST(listed.error().reason == "Forbidden");
  BOOST_TEST(listed.error().message ==
             "secrets is forbidden: User \"system:serviceaccount:bloodraven-system:bloodraven\" cannot "
             "list resource \"secrets\" in API group \"\" in the namespace \"shop\"");
  auto all = op->list(kube::resources::secrets, "");
  BOOST_REQUIRE(!all.ok());
  BOOST_TEST(all.error().status == 403);
  auto w = op->request("GET", "/api/v1/secrets?watch=true", "", "", 3s);
  BOOST_REQUIRE(!w.ok());
  BOOST_TEST(w.error().status == 403);
  auto del = op->remove(kube::resources::secrets, group_ns, "s1");
  BOOST_REQUIRE(!del.ok());
  BOOST_TEST(del.error().status == 403);
  BOOST_TEST(c->get(kube::resources::secrets, group_ns, "s1").ok());  // still there
  auto patched = op->merge_patch(kube::resources::nodes, "", "n1", {{"metadata", {{"labels", {{"x", "y"}}}}}});
  BOOST_REQUIRE(!patched.ok());
  BOOST_TEST(patched.error().status == 403);
  BOOST_TEST(!op->create(kube::resources::pods, group_ns,
                         {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", "p"}}}})
                  .ok());
  // Deleting a Secret is granted only in the operator's own namespace (the credential copies).
  BOOST_TEST(op->remove(kube::resources::secrets, operator_ns, "s2").ok());

  // The test's own client is not restricted; the refusals are logged with their attributes.
  BOOST_TEST(c->list(kube::resources::secrets, "").ok());
  BOOST_TEST(sim.denials().size() == 6u, denials());
  // A refused write is in the write log as a 403, nothing stored.
  bool logged = false;
  for (const auto& wr : sim.writes())
    if (wr.identity == "operator-0" && wr.verb == "DELETE" && wr.status == 403) logged = true;
  BOOST_TEST(logged);
}

BOOST_AUTO_TEST_CASE(the_generated_operator_secret_is_copied_to_the_operator_namespace_and_deleted_with_the_group) {
  install_crd();
  start_operator();
  const std::string g = "orders";
  must(c->create(mfg_resource, group_ns, group_object(g)), "group");
  const auto uid = (*c->get(mfg_resource, group_ns, g))["metadata"].value("uid", "");
  const auto copy_name = operator_secret_copy_name(group_ns, g);
  BOOST_TEST(copy_name == "mysql-shop.orders-operator");

  json source, copy;
  BOOST_REQUIRE_MESSAGE(br::test::eventually(
                            [&] {
                              auto s = c->get(kube::resources::secrets, group_ns, g + "-operator");
                              auto k = c->get(kube::resources::secrets, operator_ns, copy_name);
                              if (s) source = *s;
                              if (k) copy = *k;
                              return s.ok() && k.ok();
                            },
                            20s, 50ms),
                        "no copy" << denials());
  BOOST_TEST(source["metadata"]["ownerReferences"][0].value("uid", "") == uid);
  BOOST_TEST(copy["data"] == copied_keys(source["data"]));  // only the operator's keys (finding 11)
  BOOST_TEST(copy["data"].contains("password"));
  BOOST_TEST(!copy["data"].contains("MYSQL_ROOT_PASSWORD"));
  BOOST_TEST(!copy["metadata"].contains("ownerReferences"));
  BOOST_TEST(copy["metadata"]["labels"].value("shipstream.io/failover-group", "") == g);
  BOOST_TEST(copy["metadata"]["labels"].value("shipstream.io/failover-group-namespace", "") == group_ns);

  // The source changes (a password rotated by hand): the next resolution of the group (an edit)
  // brings the copy in line.
  auto rotated = kube::update_with_retry(*c, kube::resources::secrets, group_ns, g + "-operator", [](json& s) {
    s["data"]["password"] = base64_encode("rotated");
    return true;
  });
  BOOST_REQUIRE(rotated.ok());
  auto edited = kube::update_with_retry(*c, mfg_resource, group_ns, g, [](json& o) {
    o["spec"]["failureThreshold"] = 3;
    return true;
  });
  BOOST_REQUIRE(edited.ok());
  BOOST_TEST(br::test::eventually(
      [&] {
        auto k = c->get(kube::resources::secrets, operator_ns, copy_name);
        return k && (*k)["data"] == copied_keys((*rotated)["data"]);
      },
      20s, 50ms));

  // The reconciler adds the finalizer; deleting the group deletes the copy before releasing it.
  BOOST_REQUIRE(br::test::eventually(
      [&] {
        auto o = c->get(mfg_resource, group_ns, g);
        return o && !(*o)["metadata"].value("finalizers", json::array()).empty();
      },
      20s, 50ms));
  must(c->remove(mfg_resource, group_ns, g), "delete group");
  BOOST_TEST(br::test::eventually(
      [&] {
        auto o = c->get(mfg_resource, group_ns, g);
        return !o && o.error().not_found();
      },
      30s, 100ms));
  auto gone = c->get(kube::resources::secrets, operator_ns, copy_name);
  BOOST_REQUIRE(!gone.ok());
  BOOST_TEST(gone.error().not_found());
  // Everything the operator did, it did under the chart's RBAC.
  BOOST_TEST(sim.denials().empty(), denials());
}

// Review finding 12: Secrets only in the chart's groupNamespaces (the tests install default and
// shop). A group elsewhere cannot read its credentials Secret (403): it is reported
// (Ready=False, SecretReadFailed) and not started, and nothing is written there.
BOOST_AUTO_TEST_CASE(a_group_outside_group_namespaces_gets_403_and_does_not_start) {
  install_crd();
  const std::string ns = "elsewhere", g = "orders";
  must(c->create(kube::resources::namespaces, "",
                 {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}}),
       "namespace");
  must(c->create(kube::resources::secrets, ns, secret(ns, g + "-operator")), "secret");
  start_operator();
  auto object = group_object(g);
  object["metadata"]["namespace"] = ns;
  must(c->create(mfg_resource, ns, object), "group");
  json ready = json::object();
  const bool reported = br::test::eventually(
                 [&] {
                   auto o = c->get(mfg_resource, ns, g);
                   if (!o || !(*o).contains("status") || !(*o)["status"].is_object()) return false;
                   for (const auto& cond : (*o)["status"].value("conditions", json::array()))
                     if (cond.value("type", "") == "Ready") ready = cond;
                   return ready.value("reason", "") == "SecretReadFailed";
                 },
                 20s, 50ms);
  BOOST_TEST(reported, ready.dump() << denials());  // (after the wait: messages are evaluated eagerly)
  BOOST_TEST(ready.value("status", "") == "False");
  BOOST_TEST(ready.value("message", "").find("forbidden") != std::string::npos, ready.dump());
  bool secret_get_refused = false;
  for (const auto& d : sim.denials())
    if (d.attributes.verb == "get" && d.attributes.resource == "secrets" && d.attributes.ns == ns)
      secret_get_refused = true;
  BOOST_TEST(secret_get_refused, denials());
  // Not started: no keys Secret, no credentials copy, no finalizer.
  BOOST_TEST(!c->get(kube::resources::secrets, ns, render::keys_secret(g)).ok());
  BOOST_TEST(!c->get(kube::resources::secrets, operator_ns, operator_secret_copy_name(ns, g)).ok());
  auto o = c->get(mfg_resource, ns, g);
  BOOST_REQUIRE(o.ok());
  BOOST_TEST((*o)["metadata"].value("finalizers", json::array()).empty());
}

BOOST_AUTO_TEST_SUITE_END()
