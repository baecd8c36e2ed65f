// Rendering: the DNSEndpoint of the active site and the node taint plan.
#include <boost/test/unit_test.hpp>

#include "config/render/traffic.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::render;
using namespace render_test;

BOOST_AUTO_TEST_SUITE(render_traffic)

BOOST_AUTO_TEST_CASE(dns_endpoint_points_at_the_active_candidate) {
  auto doc = base_doc();
  doc["spec"]["dns"]["ttl"] = 45;
  auto g = group_of(doc);
  struct row {
    const char* active;
    const char* target;  // nullptr: no DNSEndpoint
  };
  const row rows[] = {
      {"iad", "10.0.0.1"}, {"pdx", "10.0.0.2"}, {"sea", nullptr}, {"", nullptr}, {"lax", nullptr}};
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.active) {
      auto ep = render_dns_endpoint(g, r.active, {});
      BOOST_TEST(ep.has_value() == (r.target != nullptr));
      if (!ep || !r.target) continue;
      BOOST_TEST((*ep)["apiVersion"] == "externaldns.k8s.io/v1alpha1");
      BOOST_TEST((*ep)["kind"] == "DNSEndpoint");
      BOOST_TEST((*ep)["metadata"]["name"] == "bloodraven-orders");
      BOOST_TEST((*ep)["metadata"]["ownerReferences"][0]["kind"] == "MysqlFailoverGroup");
      const auto& eps = (*ep)["spec"]["endpoints"];
      BOOST_TEST_REQUIRE(eps.size() == 1u);
      BOOST_TEST(eps[0]["dnsName"] == "orders-db.example.com");
      BOOST_TEST(eps[0]["recordType"] == "A");
      BOOST_TEST(eps[0]["recordTTL"] == 45);
      BOOST_TEST(eps[0]["targets"] == json::array({r.target}));
    }
  }
}

BOOST_AUTO_TEST_CASE(taints_go_on_every_non_active_steered_site) {
  auto doc = base_doc();
  doc["spec"]["sites"][2]["role"] = "dr-only";
  doc["spec"]["sites"][2]["lbIP"] = "10.0.0.3";
  doc["spec"]["sites"][2]["taintNodeSelector"] = {{"shipstream.io/site.orders", "sea"}};
  auto g = group_of(doc);
  struct row {
    const char* active;
    std::map<std::string, bool> want;  // site -> tainted
  };
  const row rows[] = {
      {"iad", {{"iad", false}, {"pdx", true}, {"sea", true}}},
      {"pdx", {{"iad", true}, {"pdx", false}, {"sea", true}}},
      {"", {}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.active) {
      std::map<std::string, bool> got;
      for (const auto& t : plan_taints(g.spec, r.active)) {
        got[t.site] = t.tainted;
        BOOST_TEST(t.node_selector == g.spec.sites[t.site == "iad"   ? 0
                                                   : t.site == "pdx" ? 1
                                                                     : 2]
                                          .taint_node_selector);
      }
      BOOST_TEST(json(got) == json(r.want));
    }
  }
  // Readers never receive taints.
  auto reader = group_of(base_doc());
  for (const auto& t : plan_taints(reader.spec, "iad")) BOOST_TEST(t.site != "sea");
  BOOST_TEST(plan_taints(reader.spec, "iad").size() == 2u);
}

BOOST_AUTO_TEST_CASE(node_taint_patch_keeps_other_taints) {
  json ours = {
      {"key", "shipstream.io/db-readonly-orders"}, {"value", "true"}, {"effect", "NoExecute"}};
  json other_group = {
      {"key", "shipstream.io/db-readonly-billing"}, {"value", "true"}, {"effect", "NoExecute"}};
  json unrelated = {{"key", "dedicated"}, {"value", "db"}, {"effect", "NoSchedule"}};
  BOOST_TEST(readonly_taint("orders") == ours);
  json base = json::array({unrelated, other_group});
  auto added = with_readonly_taint(base, "orders", true);
  BOOST_TEST(added == json::array({unrelated, other_group, ours}));
  BOOST_TEST(with_readonly_taint(added, "orders", true) == added);  // idempotent
  BOOST_TEST(with_readonly_taint(added, "orders", false) == base);
  BOOST_TEST(with_readonly_taint(base, "orders", false) == base);
  BOOST_TEST(with_readonly_taint(json(nullptr), "orders", true) == json::array({ours}));
}

BOOST_AUTO_TEST_SUITE_END()
