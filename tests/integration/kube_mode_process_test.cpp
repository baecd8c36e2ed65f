// The real bloodraven binary in Kubernetes mode against the API simulator: it takes the Lease,
// runs the groups it finds (/debug/actors), and on losing the Lease stops them, then exits non-zero.
#include <boost/test/unit_test.hpp>

#include <csignal>
#include <chrono>
#include <functional>
#include <thread>

#include "io/http/client.hpp"
#include "io/kube/client.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/eventually.hpp"

using namespace std::chrono_literals;
using nlohmann::json;
using br::test::binary_path;
using br::test::child_process;

namespace {

const br::kube::resource_ref mfg{"shipstream.io", "v1alpha1", "mysqlfailovergroups", true};

bool eventually(const std::function<bool()>& cond, std::chrono::milliseconds within) {
  return br::test::eventually(cond, within, 100ms);
}

bool find_alive(const json& node, const std::string& path) {
  if (node.value("path", "") == path) return node.value("alive", false);
  for (const auto& c : node.value("children", json::array()))
    if (find_alive(c, path)) return true;
  return false;
}

json site(const std::string& name) {
  return {{"name", name},
          {"zone", "z-" + name},
          {"lbIP", name == "iad" ? "10.0.0.1" : "10.0.0.2"},
          {"taintNodeSelector", {{"shipstream.io/site.orders", name}}},
          {"storage", {{"size", "1Gi"}}}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(operator_leads_runs_groups_and_exits_nonzero_after_losing_the_lease) {
  br::kube_sim::simulator sim;
  sim.start();
  br::kube_sim::test::temp_dir dir;
  br::kube::client_options co;
  co.identity = "test-driver";
  br::kube::client c(br::kube_sim::test::sim_config(sim), co);
  auto crd = br::kube_sim::test::yaml_to_json(YAML::LoadFile(
      std::string(std::getenv("BR_SOURCE_DIR")) +
      "/charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"));
  BOOST_TEST_REQUIRE(c.create(br::kube::resources::crds, "", crd).ok());
  json secret = {{"apiVersion", "v1"},
                 {"kind", "Secret"},
                 {"metadata", {{"name", "orders-op"}, {"namespace", "default"}}},
                 {"data", {{"username", "b3A="}, {"password", "cHc="}}}};
  BOOST_TEST_REQUIRE(c.create(br::kube::resources::secrets, "default", secret).ok());
  json group = {{"apiVersion", "shipstream.io/v1alpha1"},
                {"kind", "MysqlFailoverGroup"},
                {"metadata", {{"name", "orders"}, {"namespace", "default"}}},
                {"spec",
                 {{"credentials", {{"operatorSecret", "orders-op"}}},
                  {"dns", {{"hostname", "orders.example.com"}}},
                  {"sites", json::array({site("iad"), site("pdx")})}}}};
  BOOST_TEST_REQUIRE(c.create(mfg, "default", group).ok());

  auto kubeconfig = sim.write_kubeconfig(dir.path.string());
  child_process p(binary_path("bloodraven"),
                  {"--kubeconfig", kubeconfig, "--listen", "127.0.0.1:0", "--metrics-listen", "",
                   "--namespace", "default"},
                  {{"POD_NAME", "op-a"}});
  auto line = p.wait_for_line("http server listening", 30s);
  BOOST_TEST_REQUIRE(line.has_value(), p.output());
  const std::string base =
      "http://127.0.0.1:" + std::to_string(br::test::listening_port(*line));
  BOOST_TEST_REQUIRE(p.wait_for_line("leading; starting group work", 30s).has_value(), p.output());

  // The Lease is ours, and the group runs under the group source.
  auto lease = c.get(br::kube::resources::leases, "default", "bloodraven.shipstream.io");
  BOOST_TEST_REQUIRE(lease.ok());
  BOOST_TEST((*lease)["spec"].value("holderIdentity", "") == "op-a");
  br::http::client http;
  const std::string group_path = "root/group_source/group:orders.default";
  bool running = eventually(
      [&] {
        auto r = http.get(base + "/debug/actors");
        if (r.status != 200) return false;
        auto tree = json::parse(r.body, nullptr, false);
        if (!tree.is_object()) return false;
        for (const auto& n : tree["actors"])
          if (find_alive(n, group_path + "/poller:pdx")) return true;
        return false;
      },
      30s);
  BOOST_TEST_REQUIRE(running, p.output());
  auto active = http.get(base + "/active-site?namespace=default&group=orders");
  BOOST_TEST(active.status == 200, active.body);

  // Another holder takes the Lease (as after a partition): op-a cannot renew, loses it within
  // the renew deadline (10 s), stops every group, then exits non-zero.
  json stolen = *lease;
  stolen["spec"]["holderIdentity"] = "intruder";
  stolen["spec"]["leaseDurationSeconds"] = 3600;
  stolen["spec"]["renewTime"] = "2030-01-01T00:00:00.000000Z";
  BOOST_TEST_REQUIRE(c.update(br::kube::resources::leases, stolen).ok());
  BOOST_TEST_REQUIRE(p.wait_for_line("leader lease lost", 30s).has_value(), p.output());
  auto exit_code = p.wait_exit(30s);
  BOOST_TEST_REQUIRE(exit_code.has_value(), p.output());
  BOOST_TEST(*exit_code != 0);
  // Order (S8): the loss, then the group stopping, then the exit.
  const auto& out = p.output();
  auto lost_at = out.find("leader lease lost");
  auto group_stop_at = out.find("\"group stopped\"", lost_at);
  auto sup_stop_at = out.find("supervisor stopping", lost_at);
  auto exiting_at = out.find("groups stopped after the lease loss", lost_at);
  BOOST_TEST(sup_stop_at != std::string::npos, out);
  BOOST_TEST(exiting_at != std::string::npos, out);
  BOOST_TEST(sup_stop_at < exiting_at);
  (void)group_stop_at;
  // The Lease still names the intruder: the loser never took it back.
  auto after = c.get(br::kube::resources::leases, "default", "bloodraven.shipstream.io");
  BOOST_TEST_REQUIRE(after.ok());
  BOOST_TEST((*after)["spec"].value("holderIdentity", "") == "intruder");
}

BOOST_AUTO_TEST_CASE(sigterm_stops_groups_then_releases_the_lease_and_exits_zero) {
  br::kube_sim::simulator sim;
  sim.start();
  br::kube_sim::test::temp_dir dir;
  br::kube::client c(br::kube_sim::test::sim_config(sim));
  auto crd = br::kube_sim::test::yaml_to_json(YAML::LoadFile(
      std::string(std::getenv("BR_SOURCE_DIR")) +
      "/charts/bloodraven/crds/shipstream.io_mysqlfailovergroups.yaml"));
  BOOST_TEST_REQUIRE(c.create(br::kube::resources::crds, "", crd).ok());
  child_process p(binary_path("bloodraven"),
                  {"--kubeconfig", sim.write_kubeconfig(dir.path.string()), "--listen",
                   "127.0.0.1:0", "--metrics-listen", "", "--namespace", "default",
                   "--watch-namespaces", "default"},
                  {{"POD_NAME", "op-b"}});
  BOOST_TEST_REQUIRE(p.wait_for_line("group source started", 30s).has_value(), p.output());
  auto lease = c.get(br::kube::resources::leases, "default", "bloodraven.shipstream.io");
  BOOST_TEST_REQUIRE(lease.ok());
  BOOST_TEST((*lease)["spec"].value("holderIdentity", "") == "op-b");
  p.signal(SIGTERM);
  auto code = p.wait_exit(20s);
  BOOST_TEST_REQUIRE(code.has_value(), p.output());
  BOOST_TEST(*code == 0, p.output());
  // Released on the way out, so a successor need not wait for the lease to expire.
  auto after = c.get(br::kube::resources::leases, "default", "bloodraven.shipstream.io");
  BOOST_TEST_REQUIRE(after.ok());
  BOOST_TEST((*after)["spec"].value("holderIdentity", "x") == "");
  const auto& out = p.output();
  BOOST_TEST(out.find("group source stopped") != std::string::npos, out);
}
