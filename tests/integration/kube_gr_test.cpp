// Group Replication in Kubernetes mode (issue 22, acceptance 5) on the API simulator, with a
// SIMULATED kubelet (tests/integration/kubelet_sim.hpp: pods are created from the Deployments'
// templates, nothing runs in them) and three real MySQL 9.7 members (sandbox instances 201-203,
// the group_replication plugin loaded; the sites' MySQL and group communication addresses are
// overridden to them). The operator runs under the chart's RBAC. One scenario, in order: the
// group's objects are rendered for Group Replication (my.cnf, headless site Services with the
// mysql port, -readers, the sidecar's settings); the operator bootstraps the group from empty
// servers and status.groupReplication shows 3 ONLINE; the pods' labels follow the verdict (the
// PRIMARY in -primary, the SECONDARIES in -replicas, all three in -readers); kill -9 of the
// primary's mysqld: the group elects, status follows, FailoverObserved, the labels move and the
// dead member leaves every Service.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <map>
#include <set>

#include "tests/integration/kube_gr_fixture.hpp"
#include "tests/integration/kube_gr_routes.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

/// The sandbox instances reserved for this test (201-203), group "grk".
struct gr_fixture : test::kube_gr_fixture {
  gr_fixture() : kube_gr_fixture({201, 202, 203}, "grk") {}

  json get(const kube::resource_ref& r, const std::string& name) {
    auto got = c->get(r, ns, name);
    return got ? *got : json(nullptr);
  }
  int online() { return test::online_members(gr()); }
  using kube_gr_fixture::online;

  /// The site's (only) pod's labels; null when there is not exactly one.
  json pod_labels(const std::string& s) {
    kube::list_options lo;
    lo.label_selector = "shipstream.io/failover-group=" + group + ",shipstream.io/site=" + s;
    auto pods = c->list(kube::resources::pods, ns, lo);
    if (!pods || (*pods)["items"].size() != 1) return nullptr;
    return (*pods)["items"][0]["metadata"].value("labels", json::object());
  }

  test::gr_routes routes{*c, ns, group, sites};

};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_gr, gr_fixture)

BOOST_AUTO_TEST_CASE(rendered_bootstrapped_routed_and_failed_over) {
  members_up();
  start_group();
  const auto t0 = std::chrono::steady_clock::now();
  auto since = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };

  // -- (1) the objects are rendered for Group Replication -----------------------------------
  BOOST_TEST_REQUIRE(test::eventually([&] {
    return get(kube::resources::services, "mysql-" + group + "-readers").is_object() &&
           get(kube::resources::deployments, "mysql-" + group + "-c").is_object();
  }, 60s, 250ms), "objects never rendered: " << status().dump());
  for (const auto& s : sites) {
    BOOST_TEST_CONTEXT(s) {
      auto svc = get(kube::resources::services, "mysql-" + group + "-" + s);
      BOOST_TEST_REQUIRE(svc.is_object());
      BOOST_TEST(svc["spec"].value("clusterIP", "") == "None");
      bool mysql_port = false;  // the group communicates there (the MySQL stack)
      for (const auto& p : svc["spec"]["ports"]) mysql_port = mysql_port || p.value("port", 0) == 3306;
      BOOST_TEST(mysql_port);
      auto dep = get(kube::resources::deployments, "mysql-" + group + "-" + s);
      std::string cm;
      for (const auto& v : dep["spec"]["template"]["spec"]["volumes"])
        if (v.value("name", "") == "config") cm = v["configMap"].value("name", "");
      auto cnf = get(kube::resources::configmaps, cm);
      BOOST_TEST_REQUIRE(cnf.is_object(), cm);
      const std::string text = cnf["data"].value("my.cnf", "");
      BOOST_TEST(text.find("plugin-load-add = mysql_clone.so;group_replication.so") != std::string::npos);
      BOOST_TEST(text.find("loose-group-replication-local-address = " + address(instance_of(s))) != std::string::npos);
      BOOST_TEST(text.find("loose-group-replication-start-on-boot = OFF") != std::string::npos);
      BOOST_TEST(text.find("bootstrap-group") == std::string::npos);
      bool gr_mode = false;
      for (const auto& c : dep["spec"]["template"]["spec"]["containers"])
        for (const auto& e : c.value("env", json::array()))
          gr_mode = gr_mode || (e.value("name", "") == "REPLICATION_MODE" && e.value("value", "") == "groupReplication");
      BOOST_TEST(gr_mode);
    }
  }
  auto readers = get(kube::resources::services, "mysql-" + group + "-readers");
  BOOST_TEST(readers["spec"]["selector"].value("shipstream.io/reader", "") == "yes");
  BOOST_TEST(!readers["spec"].value("publishNotReadyAddresses", false));

  // -- (2) the operator bootstraps the group; every member ONLINE ---------------------------
  BOOST_TEST_REQUIRE(test::eventually([&] {
    auto g = gr();
    return g.value("bootstrapped", false) && g.value("viewKnown", false) && online() == 3 &&
           !g.value("primaryMember", "").empty() && status().value("activeSite", "") == g.value("primaryMember", "");
  }, 120s, 250ms), "no 3-member group: " << status().dump());
  BOOST_TEST_MESSAGE("3 ONLINE " << since() << " s after the group was created");
  const std::string first = gr().value("primaryMember", "");
  std::set<std::string> secondaries;
  for (const auto& s : sites)
    if (s != first) secondaries.insert(s);

  // -- (3) the labels follow the verdict: each Service picks its members --------------------
  BOOST_TEST_REQUIRE(test::eventually([&] { return routes.are(first, secondaries); }, 30s, 250ms),
                     "routes: " << routes.describe() << " status: " << status().dump());
  BOOST_TEST(pod_labels(first).value("shipstream.io/reader", "") == "yes");

  // Failover in seconds rather than the default expel timeout's 20 s (a test-time setting).
  for (int i : instances)
    test::gr_sandbox().must({"sql", std::to_string(i), "SET GLOBAL group_replication_member_expel_timeout=0"});

  // -- (4) kill -9 of the primary: the group elects, status and labels follow ----------------
  const auto failovers = events("FailoverObserved");
  const auto killed = std::chrono::steady_clock::now();
  test::gr_sandbox().kill9(instance_of(first));
  std::string next;
  BOOST_TEST_REQUIRE(test::eventually([&] {
    auto g = gr();
    next = g.value("primaryMember", "");
    return g.value("viewKnown", false) && !next.empty() && next != first &&
           status().value("activeSite", "") == next;
  }, 90s, 250ms), "no election followed: " << status().dump());
  BOOST_TEST_MESSAGE("new primary " << next << " in status "
                                    << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count()
                                    << " s after the kill");
  std::set<std::string> rest;
  for (const auto& s : sites)
    if (s != first && s != next) rest.insert(s);
  BOOST_TEST_REQUIRE(test::eventually([&] { return routes.are(next, rest); }, 30s, 250ms),
                     "routes: " << routes.describe() << " status: " << status().dump());
  // The dead member is in no Service at all.
  auto dead = pod_labels(first);
  BOOST_TEST(dead.value("shipstream.io/role", "") == "replica");
  BOOST_TEST(dead.value("shipstream.io/healthy", "") == "no");
  BOOST_TEST(dead.value("shipstream.io/reader", "") == "no");
  BOOST_TEST(test::eventually([&] { return events("FailoverObserved") > failovers; }, 20s, 250ms));
  BOOST_TEST_MESSAGE("labels moved "
                     << std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count()
                     << " s after the kill");
}

BOOST_AUTO_TEST_SUITE_END()
