// spec.tls (issue 26): the group's MySQL targets and replication carry the verification files
// (group_supervisor's make_coordinator_config), by mode, and nothing without spec.tls.
#include <boost/test/unit_test.hpp>

#include "actors/operator/group/group_supervisor.hpp"

using namespace br;

namespace {

config::group_spec two_sites() {
  config::group_spec spec;
  spec.sites.resize(2);
  spec.sites[0].name = "a";
  spec.sites[0].address = config::address_spec{"10.0.0.1", 3306};
  spec.sites[1].name = "b";
  spec.sites[1].address = config::address_spec{"10.0.0.2", 3306};
  return spec;
}

group_credentials creds() {
  group_credentials c;
  c.operator_user = "op";
  c.operator_password = "pw";
  return c;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(group_tls_targets)

BOOST_AUTO_TEST_CASE(targets_and_replication_by_mode) {
  struct row {
    const char* name;
    std::optional<config::tls_spec> tls;
    std::string creds_ca;  // Kubernetes: the operator's copy of the Secret's ca.crt
    std::string want_ca, want_cert, want_key, want_source_ca;
  };
  config::tls_spec standalone;
  standalone.ca_file = "/etc/br/ca.crt";
  standalone.cert_file = "/etc/br/op.crt";
  standalone.key_file = "/etc/br/op.key";
  config::tls_spec standalone_own_ca = standalone;
  standalone_own_ca.mysql_ca_file = "/srv/mysql/ca.pem";
  const row rows[] = {
      {"no spec.tls", std::nullopt, "", "", "", "", ""},
      {"standalone", standalone, "", "/etc/br/ca.crt", "/etc/br/op.crt", "/etc/br/op.key",
       "/etc/mysql/tls/ca.crt"},
      {"standalone mysqlCaFile", standalone_own_ca, "", "/etc/br/ca.crt", "/etc/br/op.crt",
       "/etc/br/op.key", "/srv/mysql/ca.pem"},
      {"kubernetes", config::tls_spec{}, "/var/run/br/g/ca.crt", "/var/run/br/g/ca.crt", "", "",
       "/etc/mysql/tls/ca.crt"},
      // The CA file not written yet: verification still required (the connect fails).
      {"kubernetes before the CA file", config::tls_spec{}, "", "", "", "", "/etc/mysql/tls/ca.crt"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto spec = two_sites();
      spec.tls = r.tls;
      auto c = creds();
      c.mysql_tls_ca_file = r.creds_ca;
      auto targets = site_targets(spec, c);
      BOOST_TEST_REQUIRE(targets.size() == 2u);
      for (const auto& [site, t] : targets) {
        BOOST_TEST(t.tls_verify == r.tls.has_value(), site);
        BOOST_TEST(t.tls_ca_file == r.want_ca, site);
        BOOST_TEST(t.tls_cert_file == r.want_cert, site);
        BOOST_TEST(t.tls_key_file == r.want_key, site);
      }
      auto cfg = make_coordinator_config("g", spec, c, group_runtime{}, "root/group:g");
      BOOST_TEST(cfg.deps.replication_ssl_ca == r.want_source_ca);
      BOOST_TEST(cfg.deps.targets.at("b").tls_ca_file == r.want_ca);
      // The replication account's sessions too (the bootstrap checks its grants as it).
      BOOST_TEST(cfg.deps.replication.tls_ca_file == r.want_ca);
      BOOST_TEST(cfg.deps.replication.tls_cert_file == r.want_cert);
      BOOST_TEST(cfg.deps.replication.tls_verify == r.tls.has_value());
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
