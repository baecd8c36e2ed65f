// MysqlFailoverGroup validation: one table row per rule, each with its exact field path.
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

json base(run_mode mode) {
  return config_spec_test::json_of(mode == run_mode::kubernetes
                                       ? config_spec_test::kube_base_yaml
                                       : config_spec_test::standalone_base_yaml);
}

std::function<void(json&)> set(const char* pointer, json value) {
  return [p = json::json_pointer{pointer}, value](json& doc) { doc[p] = value; };
}

std::function<void(json&)> erase(const char* pointer) {
  return
      [p = json::json_pointer{pointer}](json& doc) { doc.at(p.parent_pointer()).erase(p.back()); };
}

struct rule_row {
  const char* rule;
  run_mode mode;
  std::vector<std::function<void(json&)>> edits;
  const char* path;       // "" means: the edit must validate cleanly
  const char* fragment;   // expected in the message
  std::size_t count = 1;  // total errors expected
};

constexpr auto K = run_mode::kubernetes;
constexpr auto S = run_mode::standalone;

json many_sites(std::size_t n) {
  json sites = json::array();
  for (std::size_t i = 0; i < n; ++i)
    sites.push_back({{"name", "s" + std::to_string(i)}, {"address", {{"host", "h"}}}});
  return sites;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_spec_validate)

BOOST_AUTO_TEST_CASE(base_documents_are_valid) {
  BOOST_TEST(load(base(K), K).empty(), dump(load(base(K), K)));
  BOOST_TEST(load(base(S), S).empty(), dump(load(base(S), S)));
}

BOOST_AUTO_TEST_CASE(every_rule_reports_its_path) {
  const rule_row rows[] = {
      // Sites: count, names, roles.
      {"too few sites",
       S,
       {set("/spec/sites", many_sites(1))},
       "spec.sites",
       "between 2 and 16 sites, got 1",
       2},
      {"too many sites",
       S,
       {set("/spec/sites", many_sites(17))},
       "spec.sites",
       "between 2 and 16 sites, got 17"},
      {"one candidate",
       K,
       {set("/spec/sites/1/role", "dr-only")},
       "spec.sites",
       "at least two sites must have role primary-candidate, got 1"},
      {"empty name", K, {set("/spec/sites/1/name", "")}, "spec.sites[1].name", "required"},
      {"uppercase name",
       K,
       {set("/spec/sites/1/name", "PDX")},
       "spec.sites[1].name",
       "invalid site name \"PDX\""},
      {"name too long",
       K,
       {set("/spec/sites/1/name", std::string(64, 'a'))},
       "spec.sites[1].name",
       "at most 63"},
      {"name ends with dash",
       K,
       {set("/spec/sites/1/name", "pdx-")},
       "spec.sites[1].name",
       "invalid site name"},
      {"duplicate name",
       K,
       {set("/spec/sites/2/name", "iad")},
       "spec.sites[2].name",
       "duplicate site name \"iad\""},
      // Split-brain policy.
      {"preferSite unknown",
       K,
       {set("/spec/splitBrainPolicy/preferSite", "lax")},
       "spec.splitBrainPolicy.preferSite",
       "\"lax\" is not a site of this group"},
      {"preferSite reader",
       K,
       {set("/spec/splitBrainPolicy/preferSite", "sea")},
       "spec.splitBrainPolicy.preferSite",
       "site \"sea\" has role read-only"},
      {"preferSite ok", K, {set("/spec/splitBrainPolicy/preferSite", "pdx")}, "", ""},
      {"sitePriorities reader",
       K,
       {set("/spec/splitBrainPolicy/sitePriorities", {"iad", "sea"})},
       "spec.splitBrainPolicy.sitePriorities[1]",
       "only primary-candidate sites can win a split brain"},
      {"sitePriorities unknown",
       K,
       {set("/spec/splitBrainPolicy/sitePriorities", {"lax"})},
       "spec.splitBrainPolicy.sitePriorities[0]",
       "is not a site"},
      {"sitePriorities duplicate",
       K,
       {set("/spec/splitBrainPolicy/sitePriorities", {"iad", "pdx", "iad"})},
       "spec.splitBrainPolicy.sitePriorities[2]",
       "duplicate entry \"iad\""},
      {"preferSite and sitePriorities",
       K,
       {set("/spec/splitBrainPolicy/preferSite", "iad"),
        set("/spec/splitBrainPolicy/sitePriorities", {"iad"})},
       "spec.splitBrainPolicy",
       "mutually exclusive"},
      // Bootstrap seed.
      {"seedSite unknown",
       K,
       {set("/spec/bootstrap/seedSite", "lax")},
       "spec.bootstrap.seedSite",
       "\"lax\" is not a site of this group"},
      {"seedSite reader",
       K,
       {set("/spec/bootstrap/seedSite", "sea")},
       "spec.bootstrap.seedSite",
       "only a primary-candidate site can seed the group"},
      {"seedSite candidate", K, {set("/spec/bootstrap/seedSite", "pdx")}, "", ""},
      // Durations must be positive.
      {"pollInterval 0",
       K,
       {set("/spec/pollInterval", "0s")},
       "spec.pollInterval",
       "must be a positive duration, got \"0s\""},
      {"failoverCooldown 0",
       K,
       {set("/spec/failoverCooldown", "0")},
       "spec.failoverCooldown",
       "positive duration"},
      {"connectionDrainTimeout 0",
       K,
       {set("/spec/connectionDrainTimeout", "0s")},
       "spec.connectionDrainTimeout",
       "not implemented yet"},
      {"relayDrainTimeout 0",
       K,
       {set("/spec/relayDrainTimeout", "0s")},
       "spec.relayDrainTimeout",
       "positive"},
      {"promotionGateTimeout 0",
       K,
       {set("/spec/promotionGateTimeout", "0s")},
       "spec.promotionGateTimeout",
       "positive"},
      {"fenceTimeout 0",
       K,
       {set("/spec/sidecar/fenceTimeout", "0s")},
       "spec.sidecar.fenceTimeout",
       "positive"},
      {"maxLagWait 0",
       K,
       {set("/spec/plannedFailover/maxLagWait", "0s")},
       "spec.plannedFailover.maxLagWait",
       "positive"},
      {"drainTimeout 0",
       K,
       {set("/spec/plannedFailover/drainTimeout", "0s")},
       "spec.plannedFailover.drainTimeout",
       "positive"},
      {"maxSyncWait 0",
       K,
       {set("/spec/dragonfly/plannedFailover/maxSyncWait", "0s")},
       "spec.dragonfly.plannedFailover.maxSyncWait",
       "positive"},
      {"negative duration",
       K,
       {set("/spec/pollInterval", "-1s")},
       "spec.pollInterval",
       "sign not allowed"},
      // Thresholds and clone timeout.
      {"failureThreshold 0",
       K,
       {set("/spec/failureThreshold", 0)},
       "spec.failureThreshold",
       "must be at least 1, got 0"},
      {"recoveryThreshold 0",
       K,
       {set("/spec/recoveryThreshold", 0)},
       "spec.recoveryThreshold",
       "must be at least 1, got 0"},
      {"cloneTimeout 59",
       K,
       {set("/spec/cloneTimeout", 59)},
       "spec.cloneTimeout",
       "must be at least 60 seconds, got 59"},
      {"cloneTimeout 60", K, {set("/spec/cloneTimeout", 60)}, "", ""},
      // Sidecar lease arithmetic.
      {"peerCheckInterval 500ms",
       K,
       {set("/spec/sidecar/peerCheckInterval", "500ms")},
       "spec.sidecar.peerCheckInterval",
       "must be at least 1s, got \"500ms\""},
      {"lease < 3 x interval",
       K,
       {set("/spec/sidecar/leaseTimeout", "14s")},
       "spec.sidecar.leaseTimeout",
       "must be at least 15s (3 x peerCheckInterval, and at least 3s), got \"14s\""},
      {"lease < 3s",
       K,
       {set("/spec/sidecar/leaseTimeout", "2s"), set("/spec/sidecar/peerCheckInterval", "1s")},
       "spec.sidecar.leaseTimeout",
       "must be at least 3s"},
      {"lease == 3 x interval", K, {set("/spec/sidecar/leaseTimeout", "15s")}, "", ""},
      // Defaults: 1.1 x (20s + 5s + 20s + 2s) = 51.7s.
      {"gate shorter than fencing wait",
       K,
       {set("/spec/promotionGateTimeout", "49s")},
       "spec.promotionGateTimeout",
       "must be longer than leaseTimeout + peerCheckInterval + fenceTimeout + requestTimeout plus "
       "10% (51s700ms)"},
      {"gate equal to fencing wait",
       K,
       {set("/spec/promotionGateTimeout", "51s700ms")},
       "spec.promotionGateTimeout",
       "(51s700ms), got \"51s700ms\""},
      {"gate just over fencing wait", K, {set("/spec/promotionGateTimeout", "51s700ms1ns")}, "", ""},
      // 1.1 x (20s + 5s + 20s + 10s) = 60.5s: requestTimeout is the rule-3 sum's fourth term.
      {"gate counts requestTimeout",
       K,
       {set("/spec/sidecar/requestTimeout", "10s"), set("/spec/promotionGateTimeout", "60s")},
       "spec.promotionGateTimeout",
       "(1m500ms)"},
      {"gate irrelevant under Fast",
       K,
       {set("/spec/promotionGateTimeout", "49s"), set("/spec/promotionPolicy", "Fast")},
       "",
       ""},
      // Upper (and non-trivial lower) bounds of every duration: the maximum itself is accepted,
      // one nanosecond more is refused with the field's path (config/duration_limits.hpp).
      // Rows that raise a sidecar timing also raise the gate, which must exceed the rule-3 wait.
      {"pollInterval max", K, {set("/spec/pollInterval", "10m")}, "", ""},
      {"pollInterval over max",
       K,
       {set("/spec/pollInterval", "10m1ns")},
       "spec.pollInterval",
       "must be at most 10m, got \"10m1ns\""},
      {"failoverCooldown max", K, {set("/spec/failoverCooldown", "168h")}, "", ""},
      {"failoverCooldown over max",
       K,
       {set("/spec/failoverCooldown", "168h1ns")},
       "spec.failoverCooldown",
       "must be at most 168h, got \"168h1ns\""},
      {"connectionDrainTimeout default", K, {set("/spec/connectionDrainTimeout", "30s")}, "", ""},
      {"connectionDrainTimeout non-default",
       K,
       {set("/spec/connectionDrainTimeout", "1h")},
       "spec.connectionDrainTimeout",
       "not implemented yet: client connections are not drained"},
      {"relayDrainTimeout max", K, {set("/spec/relayDrainTimeout", "24h")}, "", ""},
      {"relayDrainTimeout over max",
       K,
       {set("/spec/relayDrainTimeout", "24h1ns")},
       "spec.relayDrainTimeout",
       "must be at most 24h"},
      {"promotionGateTimeout max", K, {set("/spec/promotionGateTimeout", "24h")}, "", ""},
      {"promotionGateTimeout over max",
       K,
       {set("/spec/promotionGateTimeout", "24h1ns")},
       "spec.promotionGateTimeout",
       "must be at most 24h"},
      {"leaseTimeout max",
       K,
       {set("/spec/sidecar/leaseTimeout", "1h"), set("/spec/promotionGateTimeout", "24h")},
       "",
       ""},
      {"leaseTimeout over max",
       K,
       {set("/spec/sidecar/leaseTimeout", "1h1ns"), set("/spec/promotionGateTimeout", "24h")},
       "spec.sidecar.leaseTimeout",
       "must be at most 1h"},
      {"peerCheckInterval max",
       K,
       {set("/spec/sidecar/peerCheckInterval", "1m"), set("/spec/sidecar/leaseTimeout", "3m"),
        set("/spec/promotionGateTimeout", "24h")},
       "",
       ""},
      {"peerCheckInterval over max",
       K,
       {set("/spec/sidecar/peerCheckInterval", "1m1ns"), set("/spec/sidecar/leaseTimeout", "3m"),
        set("/spec/promotionGateTimeout", "24h")},
       "spec.sidecar.peerCheckInterval",
       "must be at most 1m"},
      {"fenceTimeout max",
       K,
       {set("/spec/sidecar/fenceTimeout", "10m"), set("/spec/promotionGateTimeout", "24h")},
       "",
       ""},
      {"fenceTimeout over max",
       K,
       {set("/spec/sidecar/fenceTimeout", "10m1ns"), set("/spec/promotionGateTimeout", "24h")},
       "spec.sidecar.fenceTimeout",
       "must be at most 10m"},
      {"fenceTimeout under 1s",
       K,
       {set("/spec/sidecar/fenceTimeout", "999ms")},
       "spec.sidecar.fenceTimeout",
       "must be at least 1s, got \"999ms\""},
      {"fenceTimeout 1s", K, {set("/spec/sidecar/fenceTimeout", "1s")}, "", ""},
      {"requestTimeout 0",
       K,
       {set("/spec/sidecar/requestTimeout", "0s")},
       "spec.sidecar.requestTimeout",
       "positive"},
      {"requestTimeout under 100ms",
       K,
       {set("/spec/sidecar/requestTimeout", "99ms")},
       "spec.sidecar.requestTimeout",
       "must be at least 100ms"},
      {"requestTimeout 100ms", K, {set("/spec/sidecar/requestTimeout", "100ms")}, "", ""},
      {"requestTimeout max",
       K,
       {set("/spec/sidecar/requestTimeout", "1m"), set("/spec/promotionGateTimeout", "24h")},
       "",
       ""},
      {"requestTimeout over max",
       K,
       {set("/spec/sidecar/requestTimeout", "1m1ns"), set("/spec/promotionGateTimeout", "24h")},
       "spec.sidecar.requestTimeout",
       "must be at most 1m"},
      {"maxLagWait max", K, {set("/spec/plannedFailover/maxLagWait", "24h")}, "", ""},
      {"maxLagWait over max",
       K,
       {set("/spec/plannedFailover/maxLagWait", "24h1ns")},
       "spec.plannedFailover.maxLagWait",
       "must be at most 24h"},
      {"drainTimeout max", K, {set("/spec/plannedFailover/drainTimeout", "1h")}, "", ""},
      {"drainTimeout over max",
       K,
       {set("/spec/plannedFailover/drainTimeout", "1h1ns")},
       "spec.plannedFailover.drainTimeout",
       "must be at most 1h"},
      {"maxSyncWait max", K, {set("/spec/dragonfly/plannedFailover/maxSyncWait", "1h")}, "", ""},
      {"maxSyncWait over max",
       K,
       {set("/spec/dragonfly/plannedFailover/maxSyncWait", "1h1ns")},
       "spec.dragonfly.plannedFailover.maxSyncWait",
       "must be at most 1h"},
      // The largest durations the parser accepts (int64 nanoseconds): the lease is refused, and
      // the rule-3 sum saturates instead of wrapping negative, so the gate check still fires.
      {"huge lease keeps the gate check",
       K,
       {set("/spec/sidecar/leaseTimeout", "2562047h47m16.854775807s")},
       "spec.promotionGateTimeout",
       "must be longer than",
       2},
      {"huge lease is refused",
       K,
       {set("/spec/sidecar/leaseTimeout", "2562047h47m16.854775807s")},
       "spec.sidecar.leaseTimeout",
       "must be at most 1h",
       2},
      {"huge sidecar timings keep the gate check",
       K,
       {set("/spec/sidecar/leaseTimeout", "2562047h"), set("/spec/sidecar/fenceTimeout", "2562047h"),
        set("/spec/sidecar/requestTimeout", "2562047h"),
        set("/spec/promotionGateTimeout", "24h")},
       "spec.promotionGateTimeout",
       "must be longer than",
       4},
      // Integer seconds.
      {"cloneTimeout max", K, {set("/spec/cloneTimeout", 604800)}, "", ""},
      {"cloneTimeout over max",
       K,
       {set("/spec/cloneTimeout", 604801)},
       "spec.cloneTimeout",
       "must be at most 604800 seconds, got 604801"},
      // Kubernetes-mode site requirements.
      {"candidate without lbIP",
       K,
       {erase("/spec/sites/0/lbIP")},
       "spec.sites[0].lbIP",
       "required for primary-candidate sites in Kubernetes mode"},
      {"candidate without taints",
       K,
       {erase("/spec/sites/1/taintNodeSelector")},
       "spec.sites[1].taintNodeSelector",
       "required for primary-candidate sites in Kubernetes mode"},
      {"candidate with empty taints",
       K,
       {set("/spec/sites/1/taintNodeSelector", json::object())},
       "spec.sites[1].taintNodeSelector",
       "at least one node label"},
      {"dr-only without lbIP",
       K,
       {set("/spec/sites/2/role", "dr-only")},
       "spec.sites[2].lbIP",
       "required for dr-only sites",
       2},
      {"dr-only without taints",
       K,
       {set("/spec/sites/2/role", "dr-only")},
       "spec.sites[2].taintNodeSelector",
       "required for dr-only sites",
       2},
      // A selector picks only its own site's nodes: shipstream.io/site.<group>=<site>.
      {"taints without the site label",
       K,
       {set("/spec/sites/1/taintNodeSelector", {{"kubernetes.io/os", "linux"}})},
       "spec.sites[1].taintNodeSelector",
       "must carry the label \"shipstream.io/site.orders\" with value \"pdx\""},
      {"taints naming another site",
       K,
       {set("/spec/sites/1/taintNodeSelector", {{"shipstream.io/site.orders", "iad"}})},
       "spec.sites[1].taintNodeSelector",
       "with value \"pdx\""},
      {"taints of another group",
       K,
       {set("/spec/sites/0/taintNodeSelector", {{"shipstream.io/site.billing", "iad"}})},
       "spec.sites[0].taintNodeSelector",
       "\"shipstream.io/site.orders\""},
      {"reader taints without the site label",
       K,
       {set("/spec/sites/2/taintNodeSelector", {{"site", "sea"}})},
       "spec.sites[2].taintNodeSelector",
       "so that it selects only this site's nodes"},
      {"taints with the site label and more",
       K,
       {set("/spec/sites/1/taintNodeSelector",
            {{"shipstream.io/site.orders", "pdx"}, {"node-pool", "db"}})},
       "",
       ""},
      {"zone",
       K,
       {erase("/spec/sites/0/zone")},
       "spec.sites[0].zone",
       "required in Kubernetes mode"},
      {"storage size",
       K,
       {erase("/spec/sites/0/storage")},
       "spec.sites[0].storage.size",
       "required in Kubernetes mode"},
      {"address in Kubernetes mode",
       K,
       {set("/spec/sites/0/address", {{"host", "h"}})},
       "spec.sites[0].address",
       "only used in standalone mode"},
      {"sidecarAddress in Kubernetes mode",
       K,
       {set("/spec/sites/0/sidecarAddress", "h:1")},
       "spec.sites[0].sidecarAddress",
       "only used in standalone mode"},
      // Standalone-mode site requirements.
      {"standalone without address",
       S,
       {erase("/spec/sites/1/address")},
       "spec.sites[1].address",
       "required in standalone mode"},
      {"standalone empty host",
       S,
       {set("/spec/sites/1/address/host", "")},
       "spec.sites[1].address.host",
       "required"},
      {"standalone bad port",
       S,
       {set("/spec/sites/1/address/port", 70000)},
       "spec.sites[1].address.port",
       "must be between 1 and 65535, got 70000"},
      {"standalone bad sidecarAddress",
       S,
       {set("/spec/sites/0/sidecarAddress", "nohost")},
       "spec.sites[0].sidecarAddress",
       "invalid address \"nohost\": expected host:port"},
      {"standalone lbIP optional", S, {set("/spec/sites/0/lbIP", "1.2.3.4")}, "", ""},
      // Credentials and DNS.
      {"no credentials (Kubernetes)",
       K,
       {erase("/spec/secretName")},
       "spec.secretName",
       "one of secretName or credentials is required"},
      {"both credentials",
       K,
       {set("/spec/credentials", {{"operatorSecret", "op"}})},
       "spec.credentials",
       "mutually exclusive"},
      {"both credentials (standalone)",
       S,
       {set("/spec/credentials", {{"operatorSecret", "op"}}), set("/spec/secretName", "s")},
       "spec.credentials",
       "mutually exclusive"},
      {"credentials without operatorSecret",
       K,
       {erase("/spec/secretName"), set("/spec/credentials", json::object())},
       "spec.credentials.operatorSecret",
       "required"},
      {"no dns hostname",
       K,
       {erase("/spec/dns/hostname")},
       "spec.dns.hostname",
       "required in Kubernetes mode"},
      {"dns ttl 0", K, {set("/spec/dns/ttl", 0)}, "spec.dns.ttl", "must be at least 1, got 0"},
      {"dns ttl max", K, {set("/spec/dns/ttl", 86400)}, "", ""},
      {"dns ttl over max",
       K,
       {set("/spec/dns/ttl", 86401)},
       "spec.dns.ttl",
       "must be at most 86400 seconds, got 86401"},
      {"dns ttl 0 (standalone)",
       S,
       {set("/spec/dns", {{"ttl", 0}})},
       "spec.dns.ttl",
       "must be at least 1"},
      // Enumerations (rejected while parsing, same path style).
      {"promotionPolicy",
       K,
       {set("/spec/promotionPolicy", "Slow")},
       "spec.promotionPolicy",
       "unsupported value \"Slow\": supported values: \"Safe\", \"Fast\""},
      {"updateStrategy",
       K,
       {set("/spec/updateStrategy", "Rolling")},
       "spec.updateStrategy",
       "supported values: \"OrderedUpdate\", \"Recreate\""},
      {"site role",
       K,
       {set("/spec/sites/0/role", "primary")},
       "spec.sites[0].role",
       "unsupported value \"primary\""},
      // Replication, image, Dragonfly, metadata.
      {"replication secret and user",
       K,
       {set("/spec/replication", {{"secretName", "r"}, {"user", "u"}})},
       "spec.replication.secretName",
       "mutually exclusive with user and password"},
      {"replication password without user",
       K,
       {set("/spec/replication/password", "p")},
       "spec.replication.user",
       "required when password is set"},
      {"maxLagSeconds negative",
       K,
       {set("/spec/replication/maxLagSeconds", -1)},
       "spec.replication.maxLagSeconds",
       "must be at least 0"},
      {"readOnlyMaxLagSeconds negative",
       K,
       {set("/spec/replication/readOnlyMaxLagSeconds", -5)},
       "spec.replication.readOnlyMaxLagSeconds",
       "must be at least 0, got -5"},
      {"maxLagSeconds max", K, {set("/spec/replication/maxLagSeconds", 604800)}, "", ""},
      {"maxLagSeconds over max",
       K,
       {set("/spec/replication/maxLagSeconds", 604801)},
       "spec.replication.maxLagSeconds",
       "must be at most 604800 seconds"},
      {"readOnlyMaxLagSeconds over max",
       K,
       {set("/spec/replication/readOnlyMaxLagSeconds", 604801)},
       "spec.replication.readOnlyMaxLagSeconds",
       "must be at most 604800 seconds, got 604801"},
      {"empty image", K, {set("/spec/image", "")}, "spec.image", "must not be empty"},
      // Accepted by the reference API, not implemented here: refused with the field path.
      {"dragonfly enabled",
       K,
       {set("/spec/dragonfly", {{"enabled", true}, {"image", "reg:5000/df/dragonfly:v1.38.0"}})},
       "spec.dragonfly.enabled",
       "not implemented yet in Kubernetes mode"},
      {"dragonfly enabled (standalone) needs every dragonflyAddress",
       S,
       {set("/spec/dragonfly", {{"enabled", true}}), set("/spec/sites/0/dragonflyAddress", "127.0.0.1:6379")},
       "spec.sites[1].dragonflyAddress",
       "required in standalone mode when spec.dragonfly.enabled",
       2},  // sites[1] and sites[2]
      {"standalone bad dragonflyAddress",
       S,
       {set("/spec/sites/0/dragonflyAddress", "nohost")},
       "spec.sites[0].dragonflyAddress",
       "invalid address \"nohost\": expected host:port"},
      {"dragonflyAddress in Kubernetes mode",
       K,
       {set("/spec/sites/0/dragonflyAddress", "h:1")},
       "spec.sites[0].dragonflyAddress",
       "only used in standalone mode"},
      {"dragonfly disabled", K, {set("/spec/dragonfly", {{"enabled", false}})}, "", ""},
      // spec.backup is modelled (config/backup_spec.hpp); its rules: unit_backup_spec.
      {"backup empty object", K, {set("/spec/backup", json::object())}, "", ""},
      {"credentials appSecret",
       K,
       {erase("/spec/secretName"), set("/spec/credentials", {{"operatorSecret", "op"}, {"appSecret", "a"}})},
       "spec.credentials.appSecret",
       "not implemented yet: the operator does not read this Secret"},
      {"credentials readOnlySecret",
       K,
       {erase("/spec/secretName"),
        set("/spec/credentials", {{"operatorSecret", "op"}, {"readOnlySecret", "r"}})},
       "spec.credentials.readOnlySecret",
       "not implemented yet"},
      {"credentials monitorSecret",
       K,
       {erase("/spec/secretName"),
        set("/spec/credentials", {{"operatorSecret", "op"}, {"monitorSecret", "m"}})},
       "spec.credentials.monitorSecret",
       "not implemented yet"},
      {"credentials backupSecret",
       K,
       {erase("/spec/secretName"),
        set("/spec/credentials", {{"operatorSecret", "op"}, {"backupSecret", "b"}})},
       "spec.credentials.backupSecret",
       "not implemented yet"},
      {"onCooldown defer", K, {set("/spec/plannedFailover/onCooldown", "defer")}, "", ""},
      {"dragonfly port",
       K,
       {set("/spec/dragonfly/port", 0)},
       "spec.dragonfly.port",
       "between 1 and 65535"},
      {"dragonfly auth",
       K,
       {set("/spec/dragonfly/auth", json::object())},
       "spec.dragonfly.auth.secretName",
       "required"},
      {"metadata name missing", K, {erase("/metadata/name")}, "metadata.name", "required"},
      {"metadata name invalid",
       K,
       {set("/metadata/name", "Orders.Prod")},
       "metadata.name",
       "invalid group name"},
  };
  for (const auto& row : rows) {
    BOOST_TEST_CONTEXT("rule: " << row.rule) {
      json doc = base(row.mode);
      for (const auto& edit : row.edits) edit(doc);
      auto errs = load(doc, row.mode);
      if (std::string{row.path}.empty()) {
        BOOST_TEST(errs.empty(), dump(errs));
        continue;
      }
      BOOST_TEST(find_error(errs, row.path, row.fragment),
                 "missing " << row.path << ": " << row.fragment << "\ngot: " << dump(errs));
      BOOST_TEST(errs.size() == row.count, dump(errs));
    }
  }
}

BOOST_AUTO_TEST_CASE(every_error_is_reported_at_once) {
  json doc = base(K);
  doc["spec"]["sites"][2]["name"] = "iad";
  doc["spec"]["failureThreshold"] = 0;
  doc["spec"]["pollInterval"] = "0s";
  doc["spec"]["dns"].erase("hostname");
  doc["spec"]["sites"][0].erase("lbIP");
  doc["spec"]["splitBrainPolicy"] = {{"preferSite", "nowhere"}};
  doc["spec"]["bogus"] = true;
  auto errs = load(doc, K);
  BOOST_TEST(errs.size() == 7u, dump(errs));
  for (const char* path :
       {"spec.sites[2].name", "spec.failureThreshold", "spec.pollInterval", "spec.dns.hostname",
        "spec.sites[0].lbIP", "spec.splitBrainPolicy.preferSite", "spec.bogus"})
    BOOST_TEST(find_error(errs, path), path << " not reported:\n" << dump(errs));
  // Parse errors come first, then validation errors in document order.
  BOOST_TEST(errs.front().path == "spec.bogus");
  BOOST_TEST(errs.front().to_string() == "spec.bogus: unknown field \"bogus\"");
}

BOOST_AUTO_TEST_CASE(load_from_text_combines_parse_and_validation) {
  auto res = load_group_yaml(
      "kind: MysqlFailoverGroup\nmetadata: {name: x}\nspec:\n  sites: []\n  colour: red\n",
      run_mode::standalone);
  BOOST_TEST(find_error(res.errors, "spec.colour", "unknown field"), dump(res.errors));
  BOOST_TEST(find_error(res.errors, "spec.sites", "between 2 and 16"), dump(res.errors));
  auto garbage = load_group_json("[1, 2]", run_mode::standalone);
  BOOST_TEST(garbage.errors.size() == 1u, dump(garbage.errors));
  BOOST_TEST(!garbage.readable);
}

BOOST_AUTO_TEST_CASE(dns_label_rule) {
  for (const char* good : {"a", "iad", "us-east-1", "0"}) BOOST_TEST(is_dns_label(good), good);
  BOOST_TEST(is_dns_label(std::string(63, 'x')));
  for (const char* bad : {"", "-a", "a-", "A", "a_b", "a.b", "ä"})
    BOOST_TEST(!is_dns_label(bad), bad);
  BOOST_TEST(!is_dns_label(std::string(64, 'x')));
}

BOOST_AUTO_TEST_SUITE_END()
