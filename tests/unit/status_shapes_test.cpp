// Status API wire shapes: /status entries and /ws/status messages from a status.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <set>

#include "actors/operator/api/status_shapes.hpp"
#include "config/group_status.hpp"
#include "io/http/websocket_hub.hpp"

using nlohmann::json;

namespace {

// 2024-05-01T12:00:00Z
constexpr int64_t t0 = 1714564800000;

/// A status as the coordinator builds it: s1 active, s2 replicating 3 s behind, s3 divergent.
json sample_status() {
  using namespace br;
  config::group_status st;
  st.active_site = "s1";
  st.epoch = 7;
  st.deposing_site = "";
  st.last_failover = config::timestamp(std::chrono::milliseconds(t0 - 60000));
  st.last_failover_target = "s1";
  st.promotion_gtid_executed = "uuid:1-10";
  config::site_status a;
  a.name = "s1";
  a.role = site_role::primary_candidate;
  a.state = site_state::writable;
  a.gtid_executed = "uuid:1-12";
  a.last_seen = config::timestamp(std::chrono::milliseconds(t0));
  config::site_status b;
  b.name = "s2";
  b.role = site_role::primary_candidate;
  b.state = site_state::read_only;
  b.replicating = true;
  b.seconds_behind_source = 3;
  b.source_host = "10.0.0.1";
  config::site_status c;
  c.name = "s3";
  c.role = site_role::dr_only;
  c.state = site_state::read_only;
  c.recovery_state = config::recovery_state::blocked;
  c.divergent_gtid = "other:1-2";
  c.divergent_transaction_count = 2;
  st.sites = {a, b, c};
  st.conditions.push_back({"Ready", "False", "Degraded", "s3 diverged", std::nullopt});
  json j = st;
  return j;
}

std::set<std::string> keys_of(const json& o) {
  std::set<std::string> k;
  for (const auto& [key, v] : o.items()) k.insert(key);
  return k;
}

br::group_event event(const std::string& group, const std::string& reason, int64_t ms) {
  br::group_event e;
  e.group = group;
  e.reason = reason;
  e.message = reason + " happened";
  e.time_ms = ms;
  e.epoch = 7;
  return e;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(status_shapes)

BOOST_AUTO_TEST_CASE(api_status_entry_has_the_reference_members_plus_epoch) {
  auto e = br::api_status_entry(sample_status(), t0);
  BOOST_TEST((keys_of(e) == std::set<std::string>{"activeSite", "sites", "pollTime",
                                                    "promotionGtidExecuted", "epoch"}),
             e.dump());
  BOOST_TEST(e["activeSite"] == "s1");
  BOOST_TEST(e["epoch"] == 7);
  BOOST_TEST(e["pollTime"] == "2024-05-01T12:00:00Z");
  BOOST_TEST(e["promotionGtidExecuted"] == "uuid:1-10");
  BOOST_TEST_REQUIRE(e["sites"].size() == 3u);
  const auto& s1 = e["sites"][0];
  BOOST_TEST(s1["name"] == "s1");
  BOOST_TEST(s1["role"] == "primary-candidate");
  BOOST_TEST(s1["state"] == "writable");
  BOOST_TEST(s1["recoveryState"] == "");
  // Reference members only: nothing of the WS shape leaks into /status.
  for (const auto& s : e["sites"])
    for (const auto& [k, v] : s.items())
      BOOST_TEST((std::set<std::string>{"name", "role", "state", "sourceHost",
                                        "sourceConvergenceState", "sourceConvergenceReason",
                                        "servingHealthy", "recoveryState", "divergentGtid",
                                        "divergentTransactionCount"}
                      .count(k) == 1),
                 k);
  BOOST_TEST(e["sites"][1]["sourceHost"] == "10.0.0.1");
  BOOST_TEST(e["sites"][2]["recoveryState"] == "RecoveryBlocked");
  BOOST_TEST(e["sites"][2]["divergentGtid"] == "other:1-2");
  BOOST_TEST(e["sites"][2]["divergentTransactionCount"] == 2);
  BOOST_TEST(!e["sites"][0].contains("divergentGtid"));
}

BOOST_AUTO_TEST_CASE(api_status_entry_of_an_empty_status_is_well_formed) {
  for (const auto& in : {json::object(), json("garbage"), json::array()}) {
    auto e = br::api_status_entry(in, t0 + 250);
    BOOST_TEST(e["activeSite"] == "");
    BOOST_TEST(e["sites"].is_array());
    BOOST_TEST(e["sites"].empty());
    BOOST_TEST(e["epoch"] == 0);
    BOOST_TEST(e["pollTime"] == "2024-05-01T12:00:00.250Z");
  }
}

BOOST_AUTO_TEST_CASE(ws_message_has_the_reference_members_plus_epoch) {
  std::vector<br::group_event> evs;
  for (int i = 0; i < 30; ++i) evs.push_back(event(i % 3 == 0 ? "other" : "orders", "R" + std::to_string(i), t0 + i));
  auto m = br::ws_status_message("shop", "orders", sample_status(), t0, evs, 5);
  for (const char* k : {"namespace", "group", "activeSite", "sites", "lastFailover",
                        "lastFailoverTarget", "promotionGtidExecuted", "pollTime", "epoch"})
    BOOST_TEST(m.contains(k), k);
  BOOST_TEST(m["namespace"] == "shop");
  BOOST_TEST(m["group"] == "orders");
  BOOST_TEST(m["epoch"] == 7);
  BOOST_TEST(m["lastFailover"] == "2024-05-01T11:59:00Z");
  BOOST_TEST(m["lastFailoverTarget"] == "s1");
  BOOST_TEST_REQUIRE(m["sites"].size() == 3u);
  for (const auto& s : m["sites"])
    for (const char* k : {"name", "state", "lastSeen", "replicating", "secondsBehindSource",
                          "gtidExecuted", "recoveryState", "divergentGtid",
                          "divergentTransactionCount"})
      BOOST_TEST(s.contains(k), k);
  BOOST_TEST(m["sites"][0]["lastSeen"] == "2024-05-01T12:00:00Z");
  BOOST_TEST(m["sites"][0]["secondsBehindSource"].is_null());
  BOOST_TEST(m["sites"][1]["secondsBehindSource"] == 3);
  BOOST_TEST(m["sites"][1]["replicating"] == true);
  BOOST_TEST(m["sites"][1]["lastSeen"].is_null());
  BOOST_TEST(m["sites"][2]["divergentTransactionCount"] == 2);
  BOOST_TEST(m["sites"][2]["role"] == "dr-only");
  // Only this group's events, the newest 5, oldest first.
  BOOST_TEST_REQUIRE(m["recentEvents"].size() == 5u);
  std::vector<std::string> want;
  for (int i = 0; i < 30; ++i)
    if (i % 3 != 0) want.push_back("R" + std::to_string(i));
  want.erase(want.begin(), want.end() - 5);
  for (size_t i = 0; i < 5; ++i) BOOST_TEST(m["recentEvents"][i]["reason"] == want[i]);
  BOOST_TEST(m["recentEvents"][4]["time"] == "2024-05-01T12:00:00.029Z");
}

BOOST_AUTO_TEST_CASE(origin_list) {
  auto l = br::http::split_origins(" https://a.example , http://b:8082,,");
  BOOST_TEST_REQUIRE(l.size() == 2u);
  BOOST_TEST(l[0] == "https://a.example");
  BOOST_TEST(l[1] == "http://b:8082");
  BOOST_TEST(br::http::origin_allowed(l, "http://b:8082"));
  BOOST_TEST(!br::http::origin_allowed(l, "http://evil"));
  BOOST_TEST(br::http::origin_allowed({"*"}, "http://evil"));
  BOOST_TEST(!br::http::origin_allowed({}, "http://b:8082"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(losses_of_the_last_failover_reach_both_shapes) {
  auto cr = sample_status();
  cr["lastFailoverLosses"] = nlohmann::json::array(
      {{{"site", "s2"}, {"kind", "discarded"}, {"gtidSet", "u:8-9"}, {"count", 2}}});
  auto e = br::api_status_entry(cr, t0);
  BOOST_TEST_REQUIRE(e.contains("lastFailoverLosses"));
  BOOST_TEST(e["lastFailoverLosses"][0]["count"] == 2);
  auto m = br::ws_status_message("shop", "orders", cr, t0, {}, 5);
  BOOST_TEST(m["lastFailoverLosses"][0]["gtidSet"] == "u:8-9");
  BOOST_TEST(!br::api_status_entry(sample_status(), t0).contains("lastFailoverLosses"));
}
