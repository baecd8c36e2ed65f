// Table tests: auth::check_peer (who may call an authority-carrying route with which client
// certificate) and config::read_api_tls (the --tls-* flags go together).
#include <boost/test/unit_test.hpp>

#include "actors/common/peer_identity.hpp"
#include "config/api_tls.hpp"

using br::auth::check_peer;
using br::auth::peer_expectation;
using br::http::tls_peer;

namespace {

std::optional<tls_peer> cert(std::vector<std::string> uris) {
  return tls_peer{"cn", {"host.example"}, std::move(uris)};
}

const std::string op = std::string(br::auth::operator_identity_uri);
const std::string site_a = br::auth::site_identity_uri("ns", "g", "a");
const std::string site_b = br::auth::site_identity_uri("ns", "g", "b");
const std::string other_group_a = br::auth::site_identity_uri("ns", "h", "a");

const peer_expectation operator_only{true, false, "ns", "g", ""};
const peer_expectation group_sites{false, true, "ns", "g", ""};
const peer_expectation site_a_only{false, true, "ns", "g", "a"};
const peer_expectation sites_or_operator{true, true, "ns", "g", ""};

}  // namespace

BOOST_AUTO_TEST_SUITE(api_tls)

BOOST_AUTO_TEST_CASE(identity_uris) {
  BOOST_TEST(site_a == "bloodraven://site/ns/g/a");
  BOOST_TEST(op == "bloodraven://operator");
}

BOOST_AUTO_TEST_CASE(check_peer_table) {
  struct row {
    const char* name;
    std::optional<tls_peer> peer;
    bool on;
    peer_expectation want;
    bool allowed;
  };
  const std::vector<row> rows = {
      {"off: no certificate needed", std::nullopt, false, operator_only, true},
      {"off: any certificate passes", cert({site_b}), false, site_a_only, true},
      {"on: no certificate refused", std::nullopt, true, operator_only, false},
      {"on: no certificate refused (sites)", std::nullopt, true, group_sites, false},
      {"group-wide certificate (no bloodraven URI)", cert({}), true, operator_only, true},
      {"group-wide certificate, other URIs only", cert({"spiffe://x/y"}), true, site_a_only, true},
      {"operator certificate for an operator route", cert({op}), true, operator_only, true},
      {"site certificate for an operator route", cert({site_a}), true, operator_only, false},
      {"operator certificate for a site route", cert({op}), true, group_sites, false},
      {"operator certificate where either may call", cert({op}), true, sites_or_operator, true},
      {"a site of the group where any site may call", cert({site_b}), true, group_sites, true},
      {"a site of another group", cert({other_group_a}), true, group_sites, false},
      {"the named site", cert({site_a}), true, site_a_only, true},
      {"another site of the group claims site a", cert({site_b}), true, site_a_only, false},
      {"a longer site name is not a prefix match", cert({br::auth::site_identity_uri("ns", "g", "ab")}),
       true, site_a_only, false},
      {"a deeper path is not a site", cert({site_a + "/x"}), true, group_sites, false},
      {"one of several URIs matches", cert({site_b, site_a}), true, site_a_only, true},
      {"empty site name is not a site", cert({br::auth::site_identity_uri("ns", "g", "")}), true,
       group_sites, false},
  };
  for (const auto& r : rows) {
    const auto why = check_peer(r.peer, r.on, r.want);
    BOOST_TEST(why.empty() == r.allowed, r.name << ": " << why);
  }
}

BOOST_AUTO_TEST_CASE(refusals_say_who_and_what) {
  BOOST_TEST(check_peer(std::nullopt, true, operator_only) ==
             "a client certificate signed by the group's CA is required");
  BOOST_TEST(check_peer(cert({site_b}), true, site_a_only) ==
             "the client certificate names " + site_b + ", not " + site_a);
  BOOST_TEST(check_peer(cert({site_a}), true, operator_only) ==
             "the client certificate names " + site_a + ", not " + op);
}

BOOST_AUTO_TEST_CASE(tls_flags_go_together) {
  using br::config::api_tls_settings;
  using br::config::read_api_tls;
  api_tls_settings s;
  BOOST_TEST(read_api_tls({}, s).empty());
  BOOST_TEST(!s.on());
  BOOST_TEST(s.require_client_cert);
  std::map<std::string, std::string> all{{"tls-cert-file", "/c"},
                                         {"tls-key-file", "/k"},
                                         {"tls-ca-file", "/ca"},
                                         {"tls-client-auth", "request"}};
  BOOST_TEST(read_api_tls(all, s).empty());
  BOOST_TEST(s.on());
  BOOST_TEST(!s.require_client_cert);
  BOOST_TEST(s.ca_file == "/ca");
  for (const char* missing : {"tls-cert-file", "tls-key-file", "tls-ca-file"}) {
    auto partial = all;
    partial.erase(missing);
    const auto err = read_api_tls(partial, s);
    BOOST_TEST(err.find(std::string("--") + missing) == 0, err);
  }
  const auto defs = br::config::api_tls_flag_defs();
  const auto auth = std::find_if(defs.begin(), defs.end(), [](const auto& d) { return d.name == "tls-client-auth"; });
  BOOST_REQUIRE(auth != defs.end());
  BOOST_TEST(auth->check("require").empty());
  BOOST_TEST(auth->check("request").empty());
  BOOST_TEST(!auth->check("optional").empty());
}

BOOST_AUTO_TEST_SUITE_END()
