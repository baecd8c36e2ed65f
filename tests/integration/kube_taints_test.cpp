// set_nodes_taint against the API simulator (a simulation of the Kubernetes API server): a
// selector that was never validated still cannot taint nodes outside the site, because every node
// must carry shipstream.io/site.<group>=<site> (defence in depth behind config/group_validate.cpp).
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/platform/kube_taints.hpp"
#include "io/kube/client.hpp"
#include "tests/support/kube_sim/simulator.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

json node(const std::string& name, json labels) {
  return {{"apiVersion", "v1"},
          {"kind", "Node"},
          {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
          {"spec", json::object()}};
}

struct fixture {
  kube_sim::simulator sim{kube_sim::options{}};
  std::shared_ptr<kube::client> c;
  kube_platform_options o;
  fixture() {
    sim.start();
    kube::client_options co;
    co.timeout = 5000ms;
    c = std::make_shared<kube::client>(kube_sim::test::sim_config(sim), co);
    o.client = c;
    o.ns = "default";
    o.group = "g";
    o.call_timeout = 5000ms;
    for (const auto& [name, labels] :
         std::vector<std::pair<std::string, json>>{
             {"node-a", {{"shipstream.io/site.g", "a"}, {"kubernetes.io/os", "linux"}}},
             {"node-b", {{"shipstream.io/site.g", "b"}, {"kubernetes.io/os", "linux"}}},
             {"node-h", {{"shipstream.io/site.h", "a"}, {"kubernetes.io/os", "linux"}}},
             {"node-x", {{"kubernetes.io/os", "linux"}}}}) {
      auto r = c->create(kube::resources::nodes, "", node(name, labels));
      BOOST_REQUIRE_MESSAGE(r.ok(), (r.ok() ? std::string{} : r.error().describe()));
    }
  }
  bool tainted(const std::string& name) {
    auto n = c->get(kube::resources::nodes, "", name, 5000ms);
    BOOST_REQUIRE(n.ok());
    return has_readonly_taint((*n)["spec"].value("taints", json::array()), "g");
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(kube_taints)

BOOST_FIXTURE_TEST_CASE(an_unvalidated_selector_taints_only_the_sites_nodes, fixture) {
  // A selector the validator would refuse: it picks every Linux node.
  auto problem = set_nodes_taint(*c, o, "a", {{"kubernetes.io/os", "linux"}}, true);
  BOOST_TEST(tainted("node-a"));
  BOOST_TEST(!tainted("node-b"));  // another site of the group
  BOOST_TEST(!tainted("node-h"));  // site a of another group
  BOOST_TEST(!tainted("node-x"));  // not labelled for any site
  for (const char* n : {"node-b", "node-h", "node-x"})
    BOOST_TEST(problem.find(std::string{n} + " not tainted") != std::string::npos, problem);
  BOOST_TEST(problem.find("node-a") == std::string::npos, problem);

  // Removal is not restricted: it only drops this group's own taint.
  BOOST_TEST(set_nodes_taint(*c, o, "a", {{"kubernetes.io/os", "linux"}}, false) == "");
  BOOST_TEST(!tainted("node-a"));
}

BOOST_FIXTURE_TEST_CASE(a_valid_selector_taints_the_site_without_complaint, fixture) {
  size_t written = 99;
  BOOST_TEST(set_nodes_taint(*c, o, "b", {{"shipstream.io/site.g", "b"}}, true, &written) == "");
  BOOST_TEST(written == 1u);
  BOOST_TEST(tainted("node-b"));
  BOOST_TEST(!tainted("node-a"));
  // Idempotent: nothing written (the taint actor logs "site nodes tainted" only on a change).
  BOOST_TEST(set_nodes_taint(*c, o, "b", {{"shipstream.io/site.g", "b"}}, true, &written) == "");
  BOOST_TEST(written == 0u);
  BOOST_TEST(set_nodes_taint(*c, o, "b", {{"shipstream.io/site.g", "b"}}, false, &written) == "");
  BOOST_TEST(written == 1u);
  BOOST_TEST(!tainted("node-b"));
  // A selector that matches no node writes nothing.
  BOOST_TEST(set_nodes_taint(*c, o, "b", {{"shipstream.io/site.g", "nowhere"}}, true, &written) == "");
  BOOST_TEST(written == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
