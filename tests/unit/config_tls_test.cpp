// spec.tls (issue 26): reading, defaults, canonical JSON round trip and the per-mode validation
// rules, one table row per rule with its exact field path.
#include <boost/test/unit_test.hpp>
#include <string>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br::config;
using config_spec_test::dump;
using config_spec_test::find_error;
using config_spec_test::load;
using json = nlohmann::json;

namespace {

// The base document of `mode` with spec.tls = `tls` (a YAML flow mapping).
json with_tls(run_mode mode, const char* tls) {
  json doc = config_spec_test::json_of(mode == run_mode::kubernetes
                                           ? config_spec_test::kube_base_yaml
                                           : config_spec_test::standalone_base_yaml);
  doc["spec"]["tls"] = config_spec_test::json_of(tls);
  return doc;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(config_tls)

BOOST_AUTO_TEST_CASE(absent_by_default_and_defaults_when_present) {
  auto plain = parse_group(config_spec_test::json_of(config_spec_test::kube_base_yaml));
  BOOST_TEST_REQUIRE(plain.errors.empty(), dump(plain.errors));
  BOOST_TEST(!plain.group.spec.tls.has_value());
  BOOST_TEST(!to_json(plain.group.spec).contains("tls"));

  auto res = parse_group(with_tls(run_mode::kubernetes, "{}"));
  BOOST_TEST_REQUIRE(res.errors.empty(), dump(res.errors));
  BOOST_TEST_REQUIRE(res.group.spec.tls.has_value());
  const auto& t = *res.group.spec.tls;
  BOOST_TEST(t.require_secure_transport);
  BOOST_TEST(!t.issuer_ref.has_value());
  BOOST_TEST(effective_tls_secret_name(t, "orders") == "orders-tls");
  BOOST_TEST(effective_mysql_ca_file(t) == "/etc/mysql/tls/ca.crt");
  BOOST_TEST(validate(res.group, run_mode::kubernetes).empty());
}

BOOST_AUTO_TEST_CASE(reads_every_field_and_round_trips) {
  struct row {
    run_mode mode;
    const char* tls;
  };
  const row rows[] = {
      {run_mode::kubernetes,
       "{issuerRef: {name: corp-ca, kind: ClusterIssuer}, secretName: orders-certs, "
       "requireSecureTransport: false}"},
      {run_mode::kubernetes, "{issuerRef: {name: ns-ca}}"},
      {run_mode::standalone,
       "{caFile: /etc/br/ca.crt, certFile: /etc/br/op.crt, keyFile: /etc/br/op.key, "
       "mysqlCaFile: /srv/tls/ca.pem}"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.tls) {
      auto res = parse_group(with_tls(r.mode, r.tls));
      BOOST_TEST_REQUIRE(res.errors.empty(), dump(res.errors));
      BOOST_TEST(validate(res.group, r.mode).empty(), dump(validate(res.group, r.mode)));
      json again = {{"apiVersion", "shipstream.io/v1alpha1"},
                    {"kind", "MysqlFailoverGroup"},
                    {"metadata", {{"name", "orders"}}},
                    {"spec", to_json(res.group.spec)}};
      auto back = parse_group(again);
      BOOST_TEST_REQUIRE(back.errors.empty(), dump(back.errors));
      BOOST_TEST((back.group.spec.tls == res.group.spec.tls));
    }
  }
  auto k = parse_group(with_tls(run_mode::kubernetes, rows[0].tls)).group.spec.tls;
  BOOST_TEST(k->issuer_ref->name == "corp-ca");
  BOOST_TEST((k->issuer_ref->kind == issuer_kind::cluster_issuer));
  BOOST_TEST(!k->require_secure_transport);
  BOOST_TEST(effective_tls_secret_name(*k, "orders") == "orders-certs");
  auto n = parse_group(with_tls(run_mode::kubernetes, rows[1].tls)).group.spec.tls;
  BOOST_TEST((n->issuer_ref->kind == issuer_kind::issuer));  // the default kind
  auto s = parse_group(with_tls(run_mode::standalone, rows[2].tls)).group.spec.tls;
  BOOST_TEST(s->ca_file == "/etc/br/ca.crt");
  BOOST_TEST(s->cert_file == "/etc/br/op.crt");
  BOOST_TEST(s->key_file == "/etc/br/op.key");
  BOOST_TEST(effective_mysql_ca_file(*s) == "/srv/tls/ca.pem");
}

BOOST_AUTO_TEST_CASE(each_rule_reports_its_field_path) {
  struct row {
    run_mode mode;
    const char* tls;
    const char* path;
    const char* fragment;
  };
  const auto kube = run_mode::kubernetes;
  const auto alone = run_mode::standalone;
  const row rows[] = {
      // Reading.
      {kube, "{issuerRef: {name: x, kind: Vault}}", "spec.tls.issuerRef.kind",
       "supported values: \"Issuer\", \"ClusterIssuer\""},
      {kube, "{secretNme: x}", "spec.tls.secretNme", "did you mean \"secretName\""},
      {kube, "{requireSecureTransport: yes}", "spec.tls.requireSecureTransport",
       "expected boolean"},
      // Kubernetes mode.
      {kube, "{issuerRef: {kind: Issuer}}", "spec.tls.issuerRef.name", "required"},
      {kube, "{secretName: Orders_TLS}", "spec.tls.secretName", "invalid Secret name"},
      {kube, "{caFile: /ca.crt}", "spec.tls.caFile", "standalone mode only"},
      {kube, "{certFile: /c, keyFile: /k}", "spec.tls.certFile", "standalone mode only"},
      {kube, "{certFile: /c, keyFile: /k}", "spec.tls.keyFile", "standalone mode only"},
      {kube, "{mysqlCaFile: /x}", "spec.tls.mysqlCaFile", "the pods mount the CA at"},
      // Standalone mode.
      {alone, "{}", "spec.tls.caFile", "required in standalone mode"},
      {alone, "{caFile: ca.crt}", "spec.tls.caFile", "must be an absolute path"},
      {alone, "{caFile: /ca, issuerRef: {name: x}}", "spec.tls.issuerRef", "Kubernetes mode only"},
      {alone, "{caFile: /ca, secretName: x}", "spec.tls.secretName", "Kubernetes mode only"},
      {alone, "{caFile: /ca, certFile: /c}", "spec.tls.keyFile", "give both or neither"},
      {alone, "{caFile: /ca, keyFile: /k}", "spec.tls.certFile", "give both or neither"},
      {alone, "{caFile: /ca, certFile: c, keyFile: /k}", "spec.tls.certFile", "absolute path"},
      {alone, "{caFile: /ca, mysqlCaFile: tls/ca}", "spec.tls.mysqlCaFile", "absolute path"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.tls << " in " << (r.mode == kube ? "kubernetes" : "standalone")) {
      auto errs = load(with_tls(r.mode, r.tls), r.mode);
      BOOST_TEST(find_error(errs, r.path, r.fragment), dump(errs));
    }
  }
}

// Group Replication with spec.tls (the group communication and recovery channel verified,
// messages/gr_tls.hpp): taken in both modes, and each mode's rules still apply.
BOOST_AUTO_TEST_CASE(group_replication_mode_takes_spec_tls) {
  const auto gr = config_spec_test::json_of(
      "{mode: groupReplication, groupReplication: {groupName: "
      "9f1c2a3b-1111-4222-8333-0123456789ab}}");
  json alone = with_tls(run_mode::standalone, "{caFile: /ca.crt}");
  alone["spec"]["replication"] = gr;
  int port = 3306;
  for (auto& s : alone["spec"]["sites"]) {
    s["groupReplication"] = {{"localAddress", "127.0.0.1:" + std::to_string(port++)}};
    s["role"] = "primary-candidate";
  }
  auto errs = load(alone, run_mode::standalone);
  BOOST_TEST(errs.empty(), dump(errs));
  json kube = with_tls(run_mode::kubernetes, "{issuerRef: {name: ca}}");
  kube["spec"]["replication"] = gr;
  auto& sea = kube["spec"]["sites"][2];  // the base's read-only site: a member like the others
  sea["role"] = "primary-candidate";
  sea["lbIP"] = "10.0.0.3";
  sea["taintNodeSelector"] = {{"shipstream.io/site.orders", "sea"}};
  errs = load(kube, run_mode::kubernetes);
  BOOST_TEST(errs.empty(), dump(errs));
  kube = with_tls(run_mode::kubernetes, "{caFile: /ca.crt}");
  kube["spec"]["replication"] = gr;
  BOOST_TEST(find_error(load(kube, run_mode::kubernetes), "spec.tls.caFile", "standalone mode only"));
}

// Review V7 H2: in Kubernetes mode the member certificate is issued for its localAddress host, so
// with spec.tls that host must be the site's own Service; any other name is refused.
BOOST_AUTO_TEST_CASE(kubernetes_gr_local_address_must_be_the_site_service_with_tls) {
  const auto gr = config_spec_test::json_of(
      "{mode: groupReplication, groupReplication: {groupName: "
      "9f1c2a3b-1111-4222-8333-0123456789ab}}");
  auto group = [&](bool tls, const std::string& local) {
    json g = with_tls(run_mode::kubernetes, "{issuerRef: {name: ca}}");
    if (!tls) g["spec"].erase("tls");
    g["spec"]["replication"] = gr;
    auto& sea = g["spec"]["sites"][2];
    sea["role"] = "primary-candidate";
    sea["lbIP"] = "10.0.0.3";
    sea["taintNodeSelector"] = {{"shipstream.io/site.orders", "sea"}};
    g["spec"]["sites"][0]["groupReplication"] = {{"localAddress", local}};
    return g;
  };
  const json base = group(true, "x:1");
  const std::string site0 = "mysql-" + base["metadata"]["name"].get<std::string>() + "-" +
                            base["spec"]["sites"][0]["name"].get<std::string>();
  const std::string ns = base["metadata"].value("namespace", "");
  const std::string path = "spec.sites[0].groupReplication.localAddress";
  struct row {
    std::string local;
    bool tls, refused;
  };
  const std::vector<row> rows = {
      {site0 + ":3306", true, false},
      {site0 + "." + ns + ":3306", true, false},
      {site0 + "." + ns + ".svc:3306", true, false},
      {site0 + "." + ns + ".svc.cluster.local:33061", true, false},
      {"mysql-victim-s1.victims.svc.cluster.local:3306", true, true},
      {"10.1.2.3:3306", true, true},
      {site0 + ".other:3306", true, true},
      {"mysql-victim-s1.victims.svc.cluster.local:3306", false, false},  // no certificate issued
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.local << (r.tls ? " with" : " without") << " spec.tls") {
      auto errs = load(group(r.tls, r.local), run_mode::kubernetes);
      BOOST_TEST((find_error(errs, path, "site Service") != nullptr) == r.refused, dump(errs));
    }
}

BOOST_AUTO_TEST_SUITE_END()
