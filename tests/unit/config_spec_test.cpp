// MysqlFailoverGroup parsing: defaults, YAML/JSON equivalence, strict unknown fields, type errors.
#include <boost/test/unit_test.hpp>
#include <set>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br::config;
using namespace std::chrono_literals;
using config_spec_test::find_error;

namespace {

std::string dump(const field_errors& errs) {
  return errs.empty() ? "(none)" : to_string(errs);
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_spec_parse)

BOOST_AUTO_TEST_CASE(defaults_fill_a_minimal_bare_spec) {
  auto res = parse_group_yaml("sites: [{name: a}, {name: b}]\n");
  BOOST_TEST_REQUIRE(res.ok(), dump(res.errors));
  const auto& s = res.group.spec;
  BOOST_TEST(s.image == "mysql:9.7");
  BOOST_TEST(s.sidecar_image.empty());
  BOOST_TEST_REQUIRE(s.sites.size() == 2u);
  BOOST_TEST((s.sites[0].role == br::site_role::primary_candidate));
  BOOST_TEST(!s.sites[0].address.has_value());
  BOOST_TEST(s.dns.ttl == 60);
  BOOST_TEST(s.poll_interval.count() == duration{2s}.count());
  BOOST_TEST(s.failure_threshold == 3);
  BOOST_TEST(s.recovery_threshold == 2);
  BOOST_TEST(s.failover_cooldown.count() == duration{5min}.count());
  BOOST_TEST(s.connection_drain_timeout.count() == duration{30s}.count());
  BOOST_TEST(s.relay_drain_timeout.count() == duration{30s}.count());
  BOOST_TEST(s.sidecar.lease_timeout.count() == duration{20s}.count());
  BOOST_TEST(s.sidecar.peer_check_interval.count() == duration{5s}.count());
  BOOST_TEST(s.sidecar.fence_timeout.count() == duration{20s}.count());
  BOOST_TEST(s.sidecar.request_timeout.count() == duration{2s}.count());
  BOOST_TEST((s.promotion_policy == promotion_policy::safe));
  BOOST_TEST(s.promotion_gate_timeout.count() == duration{2min}.count());
  BOOST_TEST(s.replication.max_lag_seconds == 300);
  BOOST_TEST(!s.replication.read_only_max_lag_seconds.has_value());
  BOOST_TEST(!s.replication.tls);
  BOOST_TEST((s.update_strategy == update_strategy::ordered_update));
  BOOST_TEST(s.clone_timeout == 3600);
  BOOST_TEST(s.planned_failover.max_lag_wait.count() == duration{5min}.count());
  BOOST_TEST(s.planned_failover.drain_timeout.count() == duration{30s}.count());
  BOOST_TEST((s.planned_failover.on_cooldown == cooldown_action::reject));
  BOOST_TEST(!s.dragonfly.enabled);
  BOOST_TEST(s.dragonfly.port == 6379);
  BOOST_TEST(s.dragonfly.admin_port == 9999);
  BOOST_TEST(!s.backup.has_value());
  BOOST_TEST(s.split_brain_policy.prefer_site.empty());
  BOOST_TEST(effective_bloodraven_address(s, "db") == "bloodraven.db.svc.cluster.local:8082");
  // A bare spec is also a valid standalone spec once addresses are given; here it is not.
  auto errs = validate_spec(s, run_mode::standalone);
  BOOST_TEST(find_error(errs, "spec.sites[0].address", "required in standalone mode"));
}

BOOST_AUTO_TEST_CASE(seed_site_default_order) {
  // seedSite, else preferSite, else the first sitePriorities entry, else the first candidate.
  struct row {
    const char* yaml;
    const char* seed;
  };
  const row rows[] = {
      {"sites: [{name: a, role: dr-only}, {name: b}, {name: c}]\n", "b"},
      {"sites: [{name: a}, {name: b}]\nsplitBrainPolicy: {sitePriorities: [b, a]}\n", "b"},
      {"sites: [{name: a}, {name: b}, {name: c}]\nsplitBrainPolicy: {preferSite: c}\n", "c"},
      {"sites: [{name: a}, {name: b}]\nsplitBrainPolicy: {preferSite: a}\n"
       "bootstrap: {seedSite: b}\n",
       "b"},
      {"sites: [{name: a, role: read-only}]\n", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.yaml) {
      auto res = parse_group_yaml(r.yaml);
      BOOST_TEST_REQUIRE(res.ok(), dump(res.errors));
      BOOST_TEST(effective_seed_site(res.group.spec) == r.seed);
    }
  }
}

BOOST_AUTO_TEST_CASE(defaults_equal_a_default_constructed_spec) {
  auto res = parse_group_json(R"({"sites": []})");
  BOOST_TEST_REQUIRE(res.ok(), dump(res.errors));
  BOOST_TEST((res.group.spec == group_spec{}));
}

constexpr const char* full_yaml = R"(
apiVersion: shipstream.io/v1alpha1
kind: MysqlFailoverGroup
metadata:
  name: orders
  namespace: db
  generation: 7
  resourceVersion: "12345"
  labels: {team: payments}
  annotations: {bloodraven.shipstream.io/last-failover: "2024-05-01T12:00:00Z"}
spec:
  image: mysql:9.7.1
  sidecarImage: ghcr.io/example/bloodraven-sidecar:0.1.0
  credentials: {operatorSecret: op, appSecret: app}
  dns: {hostname: db.example.com, ttl: 30}
  sites:
    - name: iad
      role: primary-candidate
      zone: z1
      lbIP: 10.0.0.1
      taintNodeSelector: {shipstream.io/site.orders: iad}
      storage: {storageClassName: fast, size: 10Gi}
      mysqlConf: {max_connections: "500"}
    - name: pdx
      zone: z2
      lbIP: 10.0.0.2
      taintNodeSelector: {shipstream.io/site.orders: pdx}
      storage: {size: 10Gi}
    - {name: ord, role: dr-only, zone: z3, lbIP: 10.0.0.3,
       taintNodeSelector: {shipstream.io/site.orders: ord},
       storage: {size: 10Gi}}
  pollInterval: 1500ms
  failureThreshold: 4
  recoveryThreshold: 3
  failoverCooldown: 1h30m
  connectionDrainTimeout: 10s
  relayDrainTimeout: 45s
  mysqlConf: {binlog_expire_logs_seconds: "86400"}
  replication: {maxLagSeconds: 60, readOnlyMaxLagSeconds: 0, secretName: repl, tls: true}
  updateStrategy: Recreate
  cloneTimeout: 7200
  splitBrainPolicy: {sitePriorities: [iad]}
  sidecar: {leaseTimeout: 30s, peerCheckInterval: 2s, bloodravenAddress: "op:8082", fenceTimeout: 10s,
            requestTimeout: 1500ms}
  promotionPolicy: Fast
  promotionGateTimeout: 90s
  plannedFailover: {maxLagWait: 1m, drainTimeout: 20s, onCooldown: defer}
  dragonfly:
    enabled: true
    image: docker.dragonflydb.io/dragonflydb/dragonfly:v1.38.0
    maxMemoryMb: 512
    args: ["--cache_mode=true"]
    auth: {secretName: df}
    plannedFailover: {maxSyncWait: 10s, onSyncTimeout: fail}
  backup: {profiles: [{name: nightly}]}
  bootstrap: {seedSite: pdx}
status:
  activeSite: iad
  epoch: 3
)";

constexpr const char* full_json = R"({
  "apiVersion": "shipstream.io/v1alpha1", "kind": "MysqlFailoverGroup",
  "metadata": {"name": "orders", "namespace": "db", "generation": 7, "resourceVersion": "12345",
               "labels": {"team": "payments"},
               "annotations": {"bloodraven.shipstream.io/last-failover": "2024-05-01T12:00:00Z"},
               "uid": "", "creationTimestamp": "2024-01-01T00:00:00Z", "managedFields": []},
  "spec": {
    "image": "mysql:9.7.1", "sidecarImage": "ghcr.io/example/bloodraven-sidecar:0.1.0",
    "credentials": {"operatorSecret": "op", "appSecret": "app"},
    "dns": {"hostname": "db.example.com", "ttl": 30},
    "sites": [
      {"name": "iad", "role": "primary-candidate", "zone": "z1", "lbIP": "10.0.0.1",
       "taintNodeSelector": {"shipstream.io/site.orders": "iad"}, "storage": {"storageClassName": "fast", "size": "10Gi"},
       "mysqlConf": {"max_connections": "500"}},
      {"name": "pdx", "zone": "z2", "lbIP": "10.0.0.2",
       "taintNodeSelector": {"shipstream.io/site.orders": "pdx"}, "storage": {"size": "10Gi"}},
      {"name": "ord", "role": "dr-only", "zone": "z3", "lbIP": "10.0.0.3",
       "taintNodeSelector": {"shipstream.io/site.orders": "ord"}, "storage": {"size": "10Gi"}}],
    "pollInterval": "1500ms", "failureThreshold": 4, "recoveryThreshold": 3,
    "failoverCooldown": "90m", "connectionDrainTimeout": "10s", "relayDrainTimeout": "45s",
    "mysqlConf": {"binlog_expire_logs_seconds": "86400"},
    "replication": {"maxLagSeconds": 60, "readOnlyMaxLagSeconds": 0, "secretName": "repl", "tls": true},
    "updateStrategy": "Recreate", "cloneTimeout": 7200,
    "splitBrainPolicy": {"sitePriorities": ["iad"]},
    "sidecar": {"leaseTimeout": "30s", "peerCheckInterval": "2s", "bloodravenAddress": "op:8082",
                "fenceTimeout": "10s", "requestTimeout": "1.5s"},
    "promotionPolicy": "Fast", "promotionGateTimeout": "1m30s",
    "plannedFailover": {"maxLagWait": "60s", "drainTimeout": "20s", "onCooldown": "defer"},
    "dragonfly": {"enabled": true, "image": "docker.dragonflydb.io/dragonflydb/dragonfly:v1.38.0",
                  "maxMemoryMb": 512, "args": ["--cache_mode=true"], "auth": {"secretName": "df"},
                  "plannedFailover": {"maxSyncWait": "10s", "onSyncTimeout": "fail"}},
    "backup": {"profiles": [{"name": "nightly"}]}, "bootstrap": {"seedSite": "pdx"}},
  "status": {"activeSite": "iad", "epoch": 3}
})";

BOOST_AUTO_TEST_CASE(yaml_and_json_give_equal_groups) {
  auto from_yaml = parse_group_yaml(full_yaml);
  auto from_json = parse_group_json(full_json);
  BOOST_TEST_REQUIRE(from_yaml.ok(), dump(from_yaml.errors));
  BOOST_TEST_REQUIRE(from_json.ok(), dump(from_json.errors));
  BOOST_TEST((from_yaml.group == from_json.group));
  const auto& g = from_yaml.group;
  BOOST_TEST(g.metadata.generation == 7);
  BOOST_TEST(g.metadata.resource_version == "12345");
  BOOST_TEST(g.spec.sites[0].mysql_conf.at("max_connections") == "500");
  BOOST_TEST((g.spec.sites[2].role == br::site_role::dr_only));
  BOOST_TEST(g.spec.failover_cooldown.count() == duration{90min}.count());
  BOOST_TEST(g.spec.sidecar.request_timeout.count() == duration{1500ms}.count());
  BOOST_TEST((g.spec.replication.read_only_max_lag_seconds == std::optional<std::int64_t>{0}));
  BOOST_TEST((g.spec.dragonfly.planned_failover.on_sync_timeout == sync_timeout_action::fail));
  BOOST_TEST_REQUIRE(g.spec.backup.has_value());
  BOOST_TEST(g.spec.backup->profiles[0].name == "nightly");
  BOOST_TEST(g.spec.bootstrap.seed_site == "pdx");
  BOOST_TEST_REQUIRE(g.status.has_value());
  BOOST_TEST(g.status->epoch == 3u);
  // The reference API parses in full; what is not implemented is refused by validation, each
  // member at its path (config_spec_validate_test.cpp has one row per refusal).
  auto errs = validate(g, run_mode::kubernetes);
  std::set<std::string> paths;
  for (const auto& e : errs) paths.insert(e.path);
  BOOST_TEST((paths == std::set<std::string>{"spec.backup.profiles[0].storage.type",
                                             "spec.credentials.appSecret",
                                             "spec.connectionDrainTimeout"}),
             dump(errs));
}

BOOST_AUTO_TEST_CASE(canonical_json_round_trips) {
  auto res = parse_group_yaml(full_yaml);
  BOOST_TEST_REQUIRE(res.ok(), dump(res.errors));
  auto again = parse_group(to_json(res.group));
  BOOST_TEST_REQUIRE(again.ok(), dump(again.errors));
  BOOST_TEST((again.group == res.group));
  BOOST_TEST(to_json(res.group.spec)["failoverCooldown"] == "1h30m");
}

BOOST_AUTO_TEST_CASE(examples_parse_and_validate_cleanly) {
  struct row {
    const char* file;
    run_mode mode;
  };
  for (auto r : {row{"deploy/examples/group.yaml", run_mode::kubernetes},
                 row{"deploy/examples/gr-group.yaml", run_mode::kubernetes},
                 row{"deploy/examples/standalone-group.yaml", run_mode::standalone}}) {
    BOOST_TEST_CONTEXT(r.file) {
      auto res = load_group_yaml(config_spec_test::read_source_file(r.file), r.mode);
      BOOST_TEST(res.ok(), dump(res.errors));
      BOOST_TEST(res.group.spec.sites.size() == 3u);
      BOOST_TEST(res.group.metadata.name == "orders");
    }
  }
  // The modes differ: the Kubernetes example lacks standalone addresses and vice versa.
  auto kube_as_standalone = load_group_yaml(
      config_spec_test::read_source_file("deploy/examples/group.yaml"), run_mode::standalone);
  BOOST_TEST(find_error(kube_as_standalone.errors, "spec.sites[0].address", "required"));
  auto standalone_as_kube =
      load_group_yaml(config_spec_test::read_source_file("deploy/examples/standalone-group.yaml"),
                      run_mode::kubernetes);
  BOOST_TEST(find_error(standalone_as_kube.errors, "spec.dns.hostname", "required"));
}

BOOST_AUTO_TEST_CASE(unknown_fields_are_reported_with_their_path) {
  struct row {
    const char* yaml;
    const char* path;
    const char* fragment;
  };
  const row rows[] = {
      {"sites: []\npollIntervall: 2s\n", "spec.pollIntervall", "did you mean \"pollInterval\""},
      {"sites: [{name: a}, {name: b, lbip: 1.2.3.4}]\n", "spec.sites[1].lbip",
       "did you mean \"lbIP\""},
      {"sites: []\nsidecar: {leaseTimout: 20s}\n", "spec.sidecar.leaseTimout", "unknown field"},
      {"sites: []\nreplication: {maxLag: 5}\n", "spec.replication.maxLag",
       "unknown field \"maxLag\""},
      {"sites: [{name: a, address: {host: h, prot: 1}}]\n", "spec.sites[0].address.prot",
       "did you mean \"port\""},
      {"sites: []\ndragonfly: {enabled: false, snapshot: {}}\n", "spec.dragonfly.snapshot",
       "does not support yet"},
      {"sites: []\nencryptionAtRest: {enabled: true}\n", "spec.encryptionAtRest",
       "does not support yet"},
      {"apiVersion: shipstream.io/v1alpha1\nkind: MysqlFailoverGroup\nspec: {sites: []}\nextra: "
       "1\n",
       "extra", "unknown field"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.yaml) {
      auto res = parse_group_yaml(r.yaml);
      BOOST_TEST(res.errors.size() == 1u, dump(res.errors));
      BOOST_TEST(find_error(res.errors, r.path, r.fragment), dump(res.errors));
    }
  }
}

BOOST_AUTO_TEST_CASE(metadata_and_status_tolerate_server_fields) {
  auto res = parse_group_yaml(R"(
apiVersion: shipstream.io/v1alpha1
kind: MysqlFailoverGroup
metadata: {name: x, uid: abc, creationTimestamp: "2024-01-01T00:00:00Z", finalizers: [f]}
spec: {sites: []}
status: {activeSite: iad, updatePhase: "", pitr: {enabled: false}}
)");
  BOOST_TEST(res.ok(), dump(res.errors));
  BOOST_TEST(res.group.metadata.uid == "abc");
  BOOST_TEST(res.group.status->active_site == "iad");
}

BOOST_AUTO_TEST_CASE(type_errors_name_path_and_expected_type) {
  struct row {
    const char* yaml;
    const char* path;
    const char* fragment;
  };
  const row rows[] = {
      {"sites: []\nfailureThreshold: \"3\"\n", "spec.failureThreshold",
       "expected integer, got string"},
      {"sites: {}\n", "spec.sites", "expected array, got object"},
      {"sites: [42]\n", "spec.sites[0]", "expected object, got integer"},
      {"sites: []\npollInterval: 2\n", "spec.pollInterval",
       "expected duration string like \"30s\", got integer"},
      {"sites: []\npollInterval: 2x\n", "spec.pollInterval", "unknown unit \"x\""},
      {"sites: []\nmysqlConf: {max_connections: 500}\n", "spec.mysqlConf[max_connections]",
       "expected string, got integer (quote the value in YAML)"},
      {"sites: [{name: a, role: primary}]\n", "spec.sites[0].role",
       "unsupported value \"primary\": supported values: \"primary-candidate\", \"dr-only\", "
       "\"read-only\""},
      {"sites: []\npromotionPolicy: safe\n", "spec.promotionPolicy",
       "supported values: \"Safe\", \"Fast\""},
      {"sites: []\nupdateStrategy: Rolling\n", "spec.updateStrategy",
       "unsupported value \"Rolling\""},
      {"sites: []\nplannedFailover: {onCooldown: later}\n", "spec.plannedFailover.onCooldown",
       "unsupported value \"later\""},
      {"sites: []\nfailureThreshold: 3000000000\n", "spec.failureThreshold", "out of range"},
      {"sites: []\nfailureThreshold: 1.5\n", "spec.failureThreshold",
       "expected integer, got number"},
      {"sites: []\nreplication: {tls: yes}\n", "spec.replication.tls",
       "expected boolean, got string"},
      {"sites: []\ndns: {hostname: true}\n", "spec.dns.hostname", "expected string, got boolean"},
      {"sites: []\nsplitBrainPolicy: {sitePriorities: iad}\n",
       "spec.splitBrainPolicy.sitePriorities", "expected array"},
      {"apiVersion: v1\nkind: MysqlFailoverGroup\nspec: {sites: []}\n", "apiVersion",
       "must be \"shipstream.io/v1alpha1\", got \"v1\""},
      {"kind: ConfigMap\nspec: {sites: []}\n", "kind", "must be \"MysqlFailoverGroup\""},
      {"kind: MysqlFailoverGroup\nmetadata: {name: x}\n", "spec", "required"},
      {"metadata: {name: x, labels: {a: 1}}\nspec: {sites: []}\n", "metadata.labels[a]",
       "expected string"},
      {"sites: []\nsites: []\n", "spec.sites", "duplicate key"},
      {"sites: [\n", "<yaml>", "line "},
      {"- a\n- b\n", "<document>", "expected object, got array"},
      {"sites: []\n---\nsites: []\n", "<yaml>", "expected one YAML document, found 2"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.yaml) {
      auto res = parse_group_yaml(r.yaml);
      BOOST_TEST(res.errors.size() == 1u, dump(res.errors));
      BOOST_TEST(find_error(res.errors, r.path, r.fragment), dump(res.errors));
    }
  }
  auto bad_json = parse_group_json("{\"sites\": [}");
  BOOST_TEST(find_error(bad_json.errors, "<json>", "parse error"), dump(bad_json.errors));
}

BOOST_AUTO_TEST_CASE(parse_errors_are_all_collected) {
  auto res = parse_group_yaml(
      "sites: [{name: a, role: boss, colour: red}]\npollInterval: soon\nfailureThreshold: x\n");
  BOOST_TEST(res.errors.size() == 4u, dump(res.errors));
  BOOST_TEST(find_error(res.errors, "spec.sites[0].role"));
  BOOST_TEST(find_error(res.errors, "spec.sites[0].colour", "unknown field"));
  BOOST_TEST(find_error(res.errors, "spec.pollInterval"));
  BOOST_TEST(find_error(res.errors, "spec.failureThreshold"));
}

BOOST_AUTO_TEST_CASE(yaml_scalars_follow_the_core_schema) {
  field_errors errs;
  auto j = yaml_to_json(R"(
a: 12
b: -7
c: 0x1f
d: 1.5
e: "12"
f: True
g: ~
h: 10.0.0.1
i: 'true'
j: |
  text
k: 18446744073709551615
)",
                        errs);
  BOOST_TEST_REQUIRE(errs.empty(), dump(errs));
  BOOST_TEST(j["a"] == 12);
  BOOST_TEST(j["b"] == -7);
  BOOST_TEST(j["c"] == 31);
  BOOST_TEST(j["d"] == 1.5);
  BOOST_TEST(j["e"] == "12");
  BOOST_TEST(j["f"] == true);
  BOOST_TEST(j["g"].is_null());
  BOOST_TEST(j["h"] == "10.0.0.1");
  BOOST_TEST(j["i"] == "true");
  BOOST_TEST(j["j"] == "text\n");
  BOOST_TEST(j["k"].get<std::uint64_t>() == 18446744073709551615ULL);
}

BOOST_AUTO_TEST_CASE(host_port_parsing) {
  BOOST_TEST(parse_host_port("10.0.0.1:8080")->port == 8080);
  BOOST_TEST(parse_host_port("[::1]:80")->host == "::1");
  for (const char* bad : {"", "host", "host:", ":80", "h:0", "h:65536", "::1:80", "h:8o"})
    BOOST_TEST(!parse_host_port(bad).has_value(), bad);
}

BOOST_AUTO_TEST_SUITE_END()
