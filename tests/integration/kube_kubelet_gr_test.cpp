// Group Replication in Kubernetes mode on the process kubelet (issue 22, acceptance 5): the
// rendered pods run for real (mysqld 9.7 from the sandbox chroot with the rendered my.cnf and
// init container, the real sidecar in REPLICATION_MODE=groupReplication) in their own network
// namespaces; the headless site Services resolve to the pods (SIMULATED DNS: the kubelet's hosts
// file). In order: a 3-site group bootstraps from empty PVCs (the operator's account has the
// rendered GROUP_REPLICATION_ADMIN grant), status.groupReplication shows 3 ONLINE, writes through
// the -primary Service reach every member, -primary/-replicas/-readers select the PRIMARY / the
// SECONDARIES / all three; kill -9 of the primary's mysqld: the group elects, status follows,
// FailoverObserved, the labels move, a write through -primary lands on the new primary, and the
// killed member (its container restarted by the kubelet, OFFLINE) is started into the group again
// and returns to -replicas and -readers.
#include <boost/test/unit_test.hpp>

#include <csignal>

#include "tests/integration/kube_gr_routes.hpp"
#include "tests/integration/kube_kubelet_fixture.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::kubelet_e2e::eventually;

namespace {

const std::string group = "kg";
const std::string ns = "default";
const std::vector<std::string> sites = {"a", "b", "c"};
const std::string primary_svc = "mysql-" + group + "-primary.default.svc.cluster.local";

json group_object() {
  json list = json::array();
  for (const auto& s : sites)
    list.push_back({{"name", s},
                    {"zone", "zone-" + s},
                    {"taintNodeSelector", {{"shipstream.io/site." + group, s}}},  // no such nodes here
                    {"lbIP", "192.0.2.8" + std::to_string(list.size() + 1)},
                    {"storage", {{"size", "1Gi"}}}});
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", group + ".example.com"}, {"ttl", 30}}},
            {"pollInterval", "500ms"},
            {"replication", {{"mode", "groupReplication"}}},
            {"sites", list}}}};
}

struct gr_kubelet_fixture : br::test::kubelet_e2e::operator_on_kubelet {
  gr_kubelet_fixture() : operator_on_kubelet(::group, ::sites) {}
  test::gr_routes routes{*c, ns, group, sites};

  json gr() { return status().value("groupReplication", json::object()); }
  int online() { return test::online_members(gr()); }
  size_t events(const std::string& reason) {
    auto r = c->list(kube::resources::events, ns);
    size_t n = 0;
    if (r)
      for (const auto& e : (*r)["items"])
        if (e["involvedObject"].value("name", "") == group && e.value("reason", "") == reason) ++n;
    return n;
  }
  std::string describe() {
    std::string out = "status: " + status().dump() + "\nroutes: " + routes.describe() + "\n";
    for (const auto& s : sites) {
      auto m = kubelet->container(dep(s), "mysql");
      out += s + ": pod ip " + pod_ip(s) + " mysql " +
             (m ? std::to_string(m->pid) + " restarts " + std::to_string(m->restarts) : "none") + "\n";
    }
    return out + "operator log tail:\n" + br::test::kubelet_e2e::log_capture::tail();
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_kubelet_gr, gr_kubelet_fixture)

BOOST_AUTO_TEST_CASE(empty_pvcs_to_a_group_then_kill_the_primary) {
  auto crds = cluster.install_crds();
  BOOST_TEST_REQUIRE(crds.empty(), crds);

  // -- (1) apply: the group bootstraps from empty PVCs ------------------------------------------
  auto t0 = std::chrono::steady_clock::now();
  auto made = c->create(mfg_resource, ns, group_object());
  BOOST_TEST_REQUIRE(made.ok(), "create the group: " << (made.ok() ? "" : made.error().describe()));
  start();
  BOOST_TEST_REQUIRE(eventually([&] {
    auto g = gr();
    return g.value("bootstrapped", false) && g.value("viewKnown", false) && online() == 3 &&
           !g.value("primaryMember", "").empty() && active() == g.value("primaryMember", "");
  }, 420s), "no 3-member group: " << describe());
  phase("apply to 3 ONLINE", t0);
  const std::string first = active();
  std::set<std::string> secondaries;
  for (const auto& s : sites)
    if (s != first) secondaries.insert(s);
  // The members name themselves by their headless site Service (report_host).
  BOOST_TEST(qs(first, "SELECT @@report_host") == dep(first) + ".default.svc.cluster.local");
  BOOST_TEST(qs(first, "SELECT @@super_read_only") == "0");
  for (const auto& s : secondaries) BOOST_TEST(qs(s, "SELECT @@super_read_only") == "1", s);

  // -- (2) the Services select by the verdict; writes through -primary reach every member --------
  BOOST_TEST_REQUIRE(eventually([&] { return routes.are(first, secondaries); }, 60s), describe());
  BOOST_TEST_REQUIRE(eventually([&] { return q(primary_svc, "SELECT @@hostname") != ""; }, 60s), describe());
  q(primary_svc, "CREATE DATABASE app");
  q(primary_svc, "CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(20))");
  for (int k = 1; k <= 20; ++k) q(primary_svc, "INSERT INTO app.t VALUES (" + std::to_string(k) + ", 'one')");
  for (const auto& s : sites)
    BOOST_TEST(eventually([&] { return qs(s, "SELECT COUNT(*) FROM app.t") == "20"; }, 30s), s);

  // -- (3) kill -9 of the primary's mysqld -------------------------------------------------------
  for (const auto& s : sites)  // the election in seconds, not the default expel timeout's 20 s
    qs(s, "SET GLOBAL group_replication_member_expel_timeout = 0");
  const auto failovers = events("FailoverObserved");
  const auto killed = *kubelet->container(dep(first), "mysql");
  BOOST_TEST_REQUIRE(killed.pid > 0);
  auto t3 = std::chrono::steady_clock::now();
  ::kill(killed.pid, SIGKILL);
  std::string next;
  BOOST_TEST_REQUIRE(eventually([&] {
    auto g = gr();
    next = g.value("primaryMember", "");
    return g.value("viewKnown", false) && !next.empty() && next != first && active() == next;
  }, 120s), "no election followed: " << describe());
  phase("kill -9 to the new primary in status", t3);
  std::set<std::string> rest;
  for (const auto& s : sites)
    if (s != first && s != next) rest.insert(s);
  // Until the killed member is back ONLINE it is in no Service.
  BOOST_TEST(eventually([&] {
    return routes.selected_by("primary") == std::set<std::string>{next} &&
           !routes.selected_by("readers").contains(first);
  }, 60s), describe());
  phase("kill -9 to the labels moved", t3);
  BOOST_TEST(eventually([&] { return events("FailoverObserved") > failovers; }, 30s), describe());
  BOOST_TEST_REQUIRE(eventually([&] {
    return q(primary_svc, "INSERT INTO app.t VALUES (21, 'two')") == "" &&
           qs(next, "SELECT COUNT(*) FROM app.t") == "21";
  }, 60s), "no write through -primary after the election: " << describe());

  // -- (4) the killed member comes back (container restarted, OFFLINE) and is started again ----
  rest.insert(first);
  BOOST_TEST_REQUIRE(eventually([&] { return online() == 3 && routes.are(next, rest); }, 240s),
                     "the killed member did not rejoin: " << describe());
  phase("kill -9 to the old primary back in -replicas", t3);
  BOOST_TEST(eventually([&] { return qs(first, "SELECT COUNT(*) FROM app.t") == "21"; }, 30s), describe());
}

BOOST_AUTO_TEST_SUITE_END()
