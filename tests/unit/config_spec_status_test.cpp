// MysqlFailoverGroup status: JSON round trip, omitted empties, lenient reading, bad values.
#include <boost/test/unit_test.hpp>

#include "config/group_status.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br::config;
using json = nlohmann::json;

namespace {

timestamp at(const char* text) {
  return parse_rfc3339(text).value();
}

group_status sample() {
  group_status s;
  s.active_site = "pdx";
  s.last_failover = at("2024-05-01T12:00:00Z");
  s.last_failover_target = "pdx";
  s.promotion_gtid_executed = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77";
  s.epoch = 42;
  s.deposing_site = "iad";
  s.observed_at = at("2024-05-01T12:00:01.500Z");
  site_status iad;
  iad.name = "iad";
  iad.role = br::site_role::primary_candidate;
  iad.state = br::site_state::unreachable;
  iad.last_seen = at("2024-05-01T11:59:50Z");
  iad.recovery_state = recovery_state::blocked;
  iad.divergent_gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:78-80";
  iad.divergent_transaction_count = 3;
  site_status pdx;
  pdx.name = "pdx";
  pdx.state = br::site_state::writable;
  pdx.gtid_executed = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77";
  pdx.serving_healthy = true;
  site_status sea;
  sea.name = "sea";
  sea.role = br::site_role::read_only;
  sea.state = br::site_state::read_only;
  sea.replicating = true;
  sea.seconds_behind_source = 0;
  sea.source_host = "mysql-orders-pdx";
  sea.recovery_state = recovery_state::in_progress;
  s.sites = {iad, pdx, sea};
  s.conditions = {
      {"Ready", "False", "NoPrimary", "failover in progress", at("2024-05-01T12:00:00Z")},
      {"RecoveryPending", "True", "DivergentTransactions", "", std::nullopt}};
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_spec_status)

BOOST_AUTO_TEST_CASE(json_round_trip_is_lossless) {
  auto s = sample();
  json j = s;
  auto back = j.get<group_status>();
  BOOST_TEST((back == s), j.dump(2));
  // Also through text, as the API server would store it.
  BOOST_TEST((json::parse(j.dump()).get<group_status>() == s));
}

BOOST_AUTO_TEST_CASE(keys_are_camel_case_and_empties_omitted) {
  json j = sample();
  BOOST_TEST(j["activeSite"] == "pdx");
  BOOST_TEST(j["lastFailover"] == "2024-05-01T12:00:00Z");
  BOOST_TEST(j["observedAt"] == "2024-05-01T12:00:01.500Z");
  BOOST_TEST(j["epoch"] == 42);
  BOOST_TEST(j["deposingSite"] == "iad");
  const json& iad = j["sites"][0];
  BOOST_TEST(iad["state"] == "unreachable");
  BOOST_TEST(iad["role"] == "primary-candidate");
  BOOST_TEST(iad["recoveryState"] == "RecoveryBlocked");
  BOOST_TEST(iad["divergentTransactionCount"] == 3);
  BOOST_TEST(!iad.contains("secondsBehindSource"));
  BOOST_TEST(!iad.contains("servingHealthy"));
  BOOST_TEST(!iad.contains("gtidExecuted"));
  const json& pdx = j["sites"][1];
  BOOST_TEST(!pdx.contains("role"));
  BOOST_TEST(!pdx.contains("recoveryState"));
  BOOST_TEST(pdx["servingHealthy"] == true);
  BOOST_TEST(j["sites"][2]["secondsBehindSource"] == 0);
  BOOST_TEST(j["sites"][2]["sourceHost"] == "mysql-orders-pdx");
  BOOST_TEST(!j["conditions"][1].contains("message"));
  BOOST_TEST(!j["conditions"][1].contains("lastTransitionTime"));
  BOOST_TEST(j["conditions"][0]["lastTransitionTime"] == "2024-05-01T12:00:00Z");

  json empty = group_status{};
  BOOST_TEST(empty == json({{"epoch", 0}}), empty.dump());
}

BOOST_AUTO_TEST_CASE(reads_reference_status_leniently) {
  // As the Go implementation writes it: extra members we do not model are ignored.
  auto j = json::parse(R"({
    "activeSite": "iad", "updatePhase": "", "topologyGeneration": 9,
    "sites": [{"name": "iad", "state": "writable", "replicating": false,
               "sourceConvergenceState": "Converged", "recoveryState": ""}],
    "conditions": [{"type": "Ready", "status": "True", "reason": "Healthy", "message": "",
                    "lastTransitionTime": "2024-05-01T12:00:00Z", "observedGeneration": 3}]
  })");
  auto s = j.get<group_status>();
  BOOST_TEST(s.active_site == "iad");
  BOOST_TEST((s.sites.at(0).state == br::site_state::writable));
  BOOST_TEST((s.sites.at(0).recovery_state == recovery_state::none));
  BOOST_TEST(s.conditions.at(0).reason == "Healthy");
  BOOST_TEST(s.epoch == 0u);
}

BOOST_AUTO_TEST_CASE(bad_values_report_paths) {
  struct row {
    const char* json_text;
    const char* path;
    const char* fragment;
  };
  const row rows[] = {
      {R"({"sites": [{"name": "a", "state": "up"}]})", "status.sites[0].state",
       "unsupported value \"up\""},
      {R"({"sites": [{"name": "a", "recoveryState": "Stuck"}]})", "status.sites[0].recoveryState",
       "unsupported value"},
      {R"({"epoch": -1})", "status.epoch", "out of range"},
      {R"({"lastFailover": "yesterday"})", "status.lastFailover", "invalid RFC 3339 timestamp"},
      {R"({"sites": [{"secondsBehindSource": "3"}]})", "status.sites[0].secondsBehindSource",
       "expected integer, got string"},
      {R"({"conditions": {}})", "status.conditions", "expected array"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.json_text) {
      field_errors errs;
      group_status s;
      read(json::parse(r.json_text), "status", s, errs);
      BOOST_TEST(errs.size() == 1u, to_string(errs));
      BOOST_TEST(config_spec_test::find_error(errs, r.path, r.fragment), to_string(errs));
      BOOST_CHECK_THROW(json::parse(r.json_text).get<group_status>(), std::invalid_argument);
    }
  }
}

BOOST_AUTO_TEST_CASE(site_state_names) {
  for (auto st : {br::site_state::unknown, br::site_state::writable, br::site_state::read_only,
                  br::site_state::unreachable})
    BOOST_TEST((parse_site_state(br::to_string(st)) == st));
  BOOST_TEST(!parse_site_state("down").has_value());
}

BOOST_AUTO_TEST_SUITE_END()
