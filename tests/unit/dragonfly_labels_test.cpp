// Kubernetes mode's Dragonfly traffic label (decide/dragonfly_labels.hpp) as table tests: the
// writes that make one pod the only one the active Service selects (removals first), and the
// strip of a site's traffic. Also status.dragonfly (decide/dragonfly_status.hpp).
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/dragonfly_labels.hpp"
#include "actors/operator/decide/dragonfly_status.hpp"

using namespace br::dragonfly;

namespace {

cache_pod pod(const std::string& site, const std::string& role, const std::string& traffic, bool terminating = false) {
  return {"g-dragonfly-" + site + "-0", site, role, traffic, terminating};
}

label_write w(const std::string& site, const std::string& role, const std::string& traffic) {
  return {"g-dragonfly-" + site + "-0", role, traffic};
}

/// The pods the active Service selects after the writes (role=master AND traffic=enabled).
std::vector<std::string> selected_after(std::vector<cache_pod> pods, const std::vector<label_write>& writes) {
  for (const auto& x : writes)
    for (auto& p : pods)
      if (p.name == x.pod) {
        if (!x.role.empty()) p.role = x.role;
        if (!x.traffic.empty()) p.traffic = x.traffic;
      }
  std::vector<std::string> out;
  for (const auto& p : pods)
    if (p.role == "master" && p.traffic == "enabled") out.push_back(p.site);
  return out;
}

/// At no point between the writes are two pods selected.
bool never_two_selected(const std::vector<cache_pod>& pods, const std::vector<label_write>& writes) {
  for (std::size_t n = 0; n <= writes.size(); ++n)
    if (selected_after(pods, {writes.begin(), writes.begin() + static_cast<std::ptrdiff_t>(n)}).size() > 1)
      return false;
  return true;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(dragonfly_labels)

BOOST_AUTO_TEST_CASE(master_label_plan) {
  struct row {
    const char* name;
    std::vector<cache_pod> pods;
    std::string master;
    std::vector<label_write> writes;
    bool problem;
  };
  const std::vector<row> rows = {
      {"fresh pods (template: replica, enabled): only the master's role",
       {pod("a", "replica", "enabled"), pod("b", "replica", "enabled")}, "a", {w("a", "master", "")}, false},
      {"already right: nothing written (asserted every poll)",
       {pod("a", "master", "enabled"), pod("b", "replica", "enabled")}, "a", {}, false},
      {"the master moves: the old one loses its role before the new one gets it",
       {pod("a", "master", "enabled"), pod("b", "replica", "enabled")}, "b",
       {w("a", "replica", ""), w("b", "master", "")}, false},
      {"the new master's traffic was stripped (the fallback move back): enabled again",
       {pod("a", "master", "disabled"), pod("b", "replica", "disabled")}, "b",
       {w("a", "replica", ""), w("b", "master", "enabled")}, false},
      {"a stripped stale master keeps its traffic label when it loses the role",
       {pod("a", "master", "disabled"), pod("b", "replica", "enabled"), pod("c", "master", "enabled")}, "b",
       {w("a", "replica", ""), w("c", "replica", ""), w("b", "master", "")}, false},
      {"a pod without the labels (hand-made) counts as not replica",
       {pod("a", "", ""), pod("b", "replica", "enabled")}, "b", {w("a", "replica", ""), w("b", "master", "")}, false},
      {"no pod for the master: the removals only, and the problem",
       {pod("a", "master", "enabled"), pod("b", "replica", "enabled")}, "c", {w("a", "replica", "")}, true},
      {"the master's pod is terminating: never labelled",
       {pod("a", "replica", "enabled", true), pod("b", "master", "enabled")}, "a", {w("b", "replica", "")}, true},
      {"a terminating pod elsewhere still loses the role",
       {pod("a", "master", "enabled", true), pod("b", "replica", "enabled")}, "b",
       {w("a", "replica", ""), w("b", "master", "")}, false},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto p = plan_master_labels(r.pods, r.master);
      BOOST_TEST((p.writes == r.writes));
      BOOST_TEST(p.problem.empty() == !r.problem, p.problem);
      BOOST_TEST(never_two_selected(r.pods, p.writes));
      auto sel = selected_after(r.pods, p.writes);
      if (!r.problem) BOOST_TEST((sel == std::vector<std::string>{r.master}));
      else BOOST_TEST(sel.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(strip_label_plan) {
  std::vector<cache_pod> pods = {pod("a", "master", "enabled"), pod("b", "replica", "disabled")};
  auto p = plan_strip_labels(pods, "a");
  BOOST_TEST((p.writes == std::vector<label_write>{w("a", "", "disabled")}));
  BOOST_TEST(selected_after(pods, p.writes).empty());
  BOOST_TEST(plan_strip_labels(pods, "b").writes.empty());  // already stripped
  BOOST_TEST(plan_strip_labels(pods, "c").writes.empty());  // no pod: nothing to take out
}

BOOST_AUTO_TEST_CASE(status_reports_master_sites_lag_and_last_failover) {
  steer_input in;
  site_observation a, b, c;
  a.site = "a";
  a.reachable = true;
  a.host = "df-a";
  a.info.role = server_role::master;
  a.info.master_repl_offset = 1000;
  a.info.connected_replicas = 1;
  b.site = "b";
  b.reachable = true;
  b.host = "df-b";
  b.info.role = server_role::replica;
  b.info.master_host = "df-a";
  b.info.master_port = 6379;
  b.info.link_up = true;
  b.info.last_io_seconds_ago = 0;
  b.info.replica_offset = 900;
  c.site = "c";
  in.sites = {a, b, c};
  in.master_site = "a";
  in.mysql_active = "a";
  auto plan = plan_steering(in);
  status_facts f;
  f.master_site = "a";
  auto s = status_json(in, plan, f);
  BOOST_TEST(s["masterSite"] == "a");
  BOOST_TEST(s["phase"] == "Degraded");  // c does not answer
  BOOST_TEST(s["sites"].size() == 3u);
  BOOST_TEST(s["sites"][0]["role"] == "master");
  BOOST_TEST(s["sites"][0]["offset"] == 1000);
  BOOST_TEST(!s["sites"][0].contains("lagBytes"));
  BOOST_TEST(s["sites"][1]["role"] == "replica");
  BOOST_TEST(s["sites"][1]["lagBytes"] == 100);
  BOOST_TEST(s["sites"][1]["masterLinkStatus"] == "up");
  BOOST_TEST(s["sites"][2]["role"] == "unreachable");
  BOOST_TEST(!s["sites"][2].contains("offset"));
  BOOST_TEST(!s.contains("lastFailover"));  // unknown: the stored one stays
  BOOST_TEST(!s.contains("replTakeoverSupported"));  // not probed yet
  f.takeover_supported = false;
  f.takeover_message = "no REPLTAKEOVER";
  f.last_failover = cache_failover{"2026-11-27T03:00:00Z", "a", "b", "REPLICAOF NO ONE", "MasterLost", false};
  s = status_json(in, plan, f);
  BOOST_TEST(s["replTakeoverSupported"] == false);
  BOOST_TEST(s["lastFailover"]["toSite"] == "b");
  BOOST_TEST(s["lastFailover"]["sessionsPreserved"] == false);
  BOOST_TEST(s["lastFailover"]["method"] == "REPLICAOF NO ONE");
  // A server naming a huge master host: the site's message stays bounded.
  in.sites[1].info.master_host = std::string(100000, 'h');
  s = status_json(in, plan_steering(in), f);
  BOOST_TEST(s["sites"][1]["message"].get<std::string>().size() <= 259u);
}

BOOST_AUTO_TEST_SUITE_END()
