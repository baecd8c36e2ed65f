// spec.replication.mode (issue 22): reading, canonical JSON and the mode's validation rules, one
// table row per rule with its exact field path.
#include <boost/test/unit_test.hpp>
#include <functional>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br::config;
using config_spec_test::find_error;
using json = nlohmann::json;

namespace {

using config_spec_test::dump;
using config_spec_test::load;

// A valid 3-member standalone Group Replication group.
const char* gr_standalone_yaml = R"(
apiVersion: shipstream.io/v1alpha1
kind: MysqlFailoverGroup
metadata: {name: orders}
spec:
  replication:
    mode: groupReplication
    groupReplication: {consistency: BEFORE, exitStateAction: OFFLINE_MODE, autoRejoinTries: 5,
                       groupName: 9f1c2a3b-1111-4222-8333-0123456789ab, maxSwitchoverDelay: 30s}
  sites:
    - {name: a, address: {host: 127.0.0.1, port: 3306}, groupReplication: {localAddress: "127.0.0.1:13306"}}
    - {name: b, address: {host: 127.0.0.1, port: 3307}, groupReplication: {localAddress: "127.0.0.1:13307"}}
    - {name: c, address: {host: 127.0.0.1, port: 3308}, groupReplication: {localAddress: "127.0.0.1:13308"}}
)";

json doc_of(const char* yaml) { return config_spec_test::json_of(yaml); }


}  // namespace

BOOST_AUTO_TEST_SUITE(config_replication_mode)

BOOST_AUTO_TEST_CASE(reads_the_mode_and_round_trips) {
  auto res = parse_group(doc_of(gr_standalone_yaml));
  BOOST_TEST_REQUIRE(res.errors.empty(), dump(res.errors));
  const auto& r = res.group.spec.replication;
  BOOST_TEST((r.mode == replication_mode::group_replication));
  BOOST_TEST_REQUIRE(r.group_replication.has_value());
  BOOST_TEST((r.group_replication->consistency == gr_consistency::before));
  BOOST_TEST((r.group_replication->exit_state_action == gr_exit_state_action::offline_mode));
  BOOST_TEST(r.group_replication->auto_rejoin_tries == 5);
  BOOST_TEST(r.group_replication->group_name == "9f1c2a3b-1111-4222-8333-0123456789ab");
  BOOST_TEST(r.group_replication->max_switchover_delay == std::chrono::seconds(30));
  BOOST_TEST(res.group.spec.sites[1].group_replication->local_address == "127.0.0.1:13307");
  // Canonical JSON reads back to the same spec.
  json again = {{"apiVersion", "shipstream.io/v1alpha1"},
                {"kind", "MysqlFailoverGroup"},
                {"metadata", {{"name", "orders"}}},
                {"spec", to_json(res.group.spec)}};
  auto back = parse_group(again);
  BOOST_TEST_REQUIRE(back.errors.empty(), dump(back.errors));
  BOOST_TEST((back.group.spec == res.group.spec));
}

BOOST_AUTO_TEST_CASE(defaults_and_async_json_unchanged) {
  json doc = doc_of(config_spec_test::standalone_base_yaml);
  auto res = parse_group(doc);
  BOOST_TEST_REQUIRE(res.errors.empty(), dump(res.errors));
  BOOST_TEST((res.group.spec.replication.mode == replication_mode::async));
  // An async group's canonical JSON has no mode member (so nothing derived from it changes).
  auto j = to_json(res.group.spec);
  BOOST_TEST(!j["replication"].contains("mode"));
  BOOST_TEST(!j["replication"].contains("groupReplication"));
  // GR defaults (seed 002): BEFORE_ON_PRIMARY_FAILOVER, READ_ONLY, 3 tries.
  group_replication_spec d;
  BOOST_TEST(to_string(d.consistency) == "BEFORE_ON_PRIMARY_FAILOVER");
  BOOST_TEST(to_string(d.exit_state_action) == "READ_ONLY");
  BOOST_TEST(d.auto_rejoin_tries == 3);
}

BOOST_AUTO_TEST_CASE(semi_sync_reads_and_round_trips) {
  json doc = doc_of(config_spec_test::standalone_base_yaml);
  auto plain = parse_group(doc);
  BOOST_TEST_REQUIRE(plain.errors.empty(), dump(plain.errors));
  BOOST_TEST(!plain.group.spec.replication.semi_sync.enabled);
  BOOST_TEST(plain.group.spec.replication.semi_sync.wait_for_replica_count == 1u);
  // Off at its defaults: not in the canonical JSON (nothing derived from an old group changes).
  BOOST_TEST(!to_json(plain.group.spec)["replication"].contains("semiSync"));

  doc["spec"]["replication"]["semiSync"] = {{"enabled", true}, {"waitForReplicaCount", 2}};
  auto res = parse_group(doc);
  BOOST_TEST_REQUIRE(res.errors.empty(), dump(res.errors));
  const auto& ss = res.group.spec.replication.semi_sync;
  BOOST_TEST(ss.enabled);
  BOOST_TEST(ss.wait_for_replica_count == 2u);
  json again = {{"apiVersion", "shipstream.io/v1alpha1"},
                {"kind", "MysqlFailoverGroup"},
                {"metadata", {{"name", "orders"}}},
                {"spec", to_json(res.group.spec)}};
  BOOST_TEST(again["spec"]["replication"]["semiSync"]["waitForReplicaCount"] == 2);
  auto back = parse_group(again);
  BOOST_TEST_REQUIRE(back.errors.empty(), dump(back.errors));
  BOOST_TEST((back.group.spec == res.group.spec));
  BOOST_TEST(load(doc, run_mode::standalone).empty());
}

BOOST_AUTO_TEST_CASE(bad_values_name_their_path) {
  json doc = doc_of(gr_standalone_yaml);
  doc["spec"]["replication"]["mode"] = "multiSource";
  doc["spec"]["replication"]["groupReplication"]["consistency"] = "STRONG";
  doc["spec"]["replication"]["groupReplication"]["quorum"] = 2;
  auto errs = parse_group(doc).errors;
  BOOST_TEST(find_error(errs, "spec.replication.mode", "unsupported value \"multiSource\""),
             dump(errs));
  BOOST_TEST(find_error(errs, "spec.replication.groupReplication.consistency", "\"STRONG\""),
             dump(errs));
  BOOST_TEST(find_error(errs, "spec.replication.groupReplication.quorum"), dump(errs));
}

/// The standalone group as a Kubernetes group: no addresses (the operator renders them), what
/// Kubernetes mode requires (zones, LB IPs, storage, DNS, credentials).
void as_kubernetes(json& d) {
  d["spec"]["secretName"] = "s";
  d["spec"]["dns"]["hostname"] = "orders.example.com";
  for (auto& s : d["spec"]["sites"]) {
    s.erase("address");
    s.erase("groupReplication");
    s["zone"] = "z";
    s["lbIP"] = "10.0.0.1";
    s["storage"]["size"] = "1Gi";
    s["taintNodeSelector"]["shipstream.io/site.orders"] = s["name"];
  }
}

struct row {
  const char* rule;
  run_mode mode;
  std::function<void(json&)> edit;
  const char* path;      // "" : valid
  const char* fragment;
};

BOOST_AUTO_TEST_CASE(every_rule_reports_its_path) {
  constexpr auto S = run_mode::standalone;
  constexpr auto K = run_mode::kubernetes;
  auto gr = [](json& d) -> json& { return d["spec"]["replication"]["groupReplication"]; };
  const row rows[] = {
      {"valid group", S, [](json&) {}, "", ""},
      {"one member is allowed (development)", S,
       [](json& d) {
         auto& sites = d["spec"]["sites"];
         sites.erase(sites.begin() + 1, sites.end());
       }, "", ""},
      {"ten members", S,
       [](json& d) {
         for (int i = 3; i < 10; ++i)
           d["spec"]["sites"].push_back(
               {{"name", "m" + std::to_string(i)},
                {"address", {{"host", "h"}}},
                {"groupReplication", {{"localAddress", "h:" + std::to_string(14000 + i)}}}});
       },
       "spec.sites", "1 to 9 members (one per site), got 10"},
      {"reader role", S, [](json& d) { d["spec"]["sites"][2]["role"] = "read-only"; },
       "spec.sites[2].role", "roles other than primary-candidate do not apply"},
      {"no local address in standalone", S,
       [](json& d) { d["spec"]["sites"][1].erase("groupReplication"); },
       "spec.sites[1].groupReplication.localAddress", "required in standalone"},
      {"bad local address", S,
       [](json& d) { d["spec"]["sites"][1]["groupReplication"]["localAddress"] = "nowhere"; },
       "spec.sites[1].groupReplication.localAddress", "expected host:port"},
      {"shared local address", S,
       [](json& d) {
         d["spec"]["sites"][2]["groupReplication"]["localAddress"] = "127.0.0.1:13306";
       },
       "spec.sites[2].groupReplication.localAddress", "duplicate address"},
      {"multi-primary", S, [&](json& d) { gr(d)["multiPrimary"] = true; },
       "spec.replication.groupReplication.multiPrimary", "multi-primary mode is not supported"},
      {"group name not a UUID", S, [&](json& d) { gr(d)["groupName"] = "orders"; },
       "spec.replication.groupReplication.groupName", "must be a UUID"},
      {"rejoin tries", S, [&](json& d) { gr(d)["autoRejoinTries"] = 2017; },
       "spec.replication.groupReplication.autoRejoinTries", "between 0 and 2016"},
      {"switchover delay", S, [&](json& d) { gr(d)["maxSwitchoverDelay"] = "2h"; },
       "spec.replication.groupReplication.maxSwitchoverDelay", "between 1s and 1h"},
      {"old server", S, [](json& d) { d["spec"]["image"] = "mysql:8.0.21"; }, "spec.image",
       "needs MySQL 8.0.27 or later (the MySQL communication stack)"},
      {"8.0.26: no MySQL communication stack", S,
       [](json& d) { d["spec"]["image"] = "mysql:8.0.26"; }, "spec.image",
       "needs MySQL 8.0.27 or later"},
      {"8.0.27 is enough", S, [](json& d) { d["spec"]["image"] = "reg.io/x/mysql:8.0.27-debian"; },
       "", ""},
      {"split-brain policy", S,
       [](json& d) { d["spec"]["splitBrainPolicy"]["preferSite"] = "a"; }, "spec.splitBrainPolicy",
       "not used in groupReplication mode"},
      {"promotion policy", S, [](json& d) { d["spec"]["promotionPolicy"] = "Fast"; },
       "spec.promotionPolicy", "the operator never promotes"},
      {"deferred planned failover", S,
       [](json& d) { d["spec"]["plannedFailover"]["onCooldown"] = "defer"; },
       "spec.plannedFailover.onCooldown", "group_replication_set_as_primary"},
      {"failover cooldown", S, [](json& d) { d["spec"]["failoverCooldown"] = "1m"; },
       "spec.failoverCooldown", "not used in groupReplication mode"},
      {"sidecar lease", S, [](json& d) { d["spec"]["sidecar"]["leaseTimeout"] = "30s"; },
       "spec.sidecar", "not used in groupReplication mode"},
      {"planned lag wait", S, [](json& d) { d["spec"]["plannedFailover"]["maxLagWait"] = "1m"; },
       "spec.plannedFailover.maxLagWait", "not used in groupReplication mode"},
      {"backups (from an ONLINE SECONDARY)", S,
       [](json& d) {
         d["spec"]["backup"] = {
             {"profiles",
              {{{"name", "p"}, {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "c"}}}}}}}}};
       },
       "", ""},
      {"backups with PITR", S,
       [](json& d) {
         d["spec"]["backup"] = {
             {"profiles",
              {{{"name", "p"}, {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "c"}}}}}}}},
             {"pitr", {{"enabled", true}, {"profileName", "p"}}}};
       },
       "spec.backup.pitr", "no binlog archiving for a group"},
      {"backups with a lag bound", S,
       [](json& d) {
         d["spec"]["backup"] = {
             {"profiles",
              {{{"name", "p"}, {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "c"}}}}}}}},
             {"maxLagSecondsForSource", 60}};
       },
       "spec.backup.maxLagSecondsForSource", "not used in groupReplication mode"},
      {"replica lag bound", S, [](json& d) { d["spec"]["replication"]["maxLagSeconds"] = 60; },
       "spec.replication.maxLagSeconds", "not used in groupReplication mode"},
      {"read-only lag bound", S,
       [](json& d) { d["spec"]["replication"]["readOnlyMaxLagSeconds"] = 60; },
       "spec.replication.readOnlyMaxLagSeconds", "not used in groupReplication mode"},
      {"semi-sync", S,
       [](json& d) { d["spec"]["replication"]["semiSync"] = {{"enabled", true}}; },
       "spec.replication.semiSync", "not used in groupReplication mode"},
      {"semi-sync off with its defaults is fine", S,
       [](json& d) {
         d["spec"]["replication"]["semiSync"] = {{"enabled", false}, {"waitForReplicaCount", 1}};
       },
       "", ""},
      {"failure threshold", S, [](json& d) { d["spec"]["failureThreshold"] = 5; },
       "spec.failureThreshold", "not used in groupReplication mode"},
      {"recovery threshold", S, [](json& d) { d["spec"]["recoveryThreshold"] = 4; },
       "spec.recoveryThreshold", "not used in groupReplication mode"},
      {"the defaults written out are fine", S,
       [](json& d) {
         d["spec"]["replication"]["maxLagSeconds"] = 300;
         d["spec"]["failureThreshold"] = 3;
         d["spec"]["recoveryThreshold"] = 2;
       },
       "", ""},
      {"Kubernetes: recreate updates", K,
       [](json& d) {
         as_kubernetes(d);
         d["spec"]["updateStrategy"] = "Recreate";
       },
       "spec.updateStrategy", "does not survive; use OrderedUpdate"},
      {"Kubernetes: a restore into a new group", K,
       [](json& d) {
         as_kubernetes(d);
         d["spec"]["initFromBackup"] = {{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}}};
       },
       "spec.initFromBackup", "not implemented yet in groupReplication mode"},
      {"Kubernetes: the rendered address", K, as_kubernetes, "", ""},
      {"Kubernetes: an address of the user's", K,
       [](json& d) {
         as_kubernetes(d);
         d["spec"]["sites"][1]["groupReplication"]["localAddress"] = "10.1.2.3:3306";
       },
       "", ""},
      {"Kubernetes: a site Service that cannot be headless", K,
       [](json& d) {
         as_kubernetes(d);
         d["spec"]["sites"][2]["serviceTemplate"]["spec"]["type"] = "LoadBalancer";
       },
       "spec.sites[2].serviceTemplate.spec.type", "must be ClusterIP in groupReplication mode"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      json doc = doc_of(gr_standalone_yaml);
      r.edit(doc);
      auto errs = load(doc, r.mode);
      if (std::string{r.path}.empty()) {
        BOOST_TEST(errs.empty(), dump(errs));
      } else {
        BOOST_TEST(find_error(errs, r.path, r.fragment), dump(errs));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(async_refuses_group_replication_members) {
  json doc = doc_of(config_spec_test::standalone_base_yaml);
  doc["spec"]["replication"]["groupReplication"] = {{"autoRejoinTries", 1}};
  doc["spec"]["sites"][0]["groupReplication"] = {{"localAddress", "127.0.0.1:1"}};
  auto errs = load(doc, run_mode::standalone);
  BOOST_TEST(errs.size() == 2u, dump(errs));
  BOOST_TEST(find_error(errs, "spec.replication.groupReplication", "only used with mode"),
             dump(errs));
  BOOST_TEST(find_error(errs, "spec.sites[0].groupReplication", "only used with mode"),
             dump(errs));
  // An explicit async is the default and valid.
  json plain = doc_of(config_spec_test::standalone_base_yaml);
  plain["spec"]["replication"]["mode"] = "async";
  BOOST_TEST(load(plain, run_mode::standalone).empty(), dump(load(plain, run_mode::standalone)));
}

BOOST_AUTO_TEST_SUITE_END()
