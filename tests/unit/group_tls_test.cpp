// A group's TLS certificate in Kubernetes mode (issue 26): the pure decisions of
// actors/operator/kube/core/group_tls_plan.hpp as table tests: the source (cert-manager or the
// generated CA), the names, the Certificate and its update, the copy of the issued Secret, the
// generated CA's issue/renew/rewrite decision (also on real certificates), the clean-up.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/core/group_tls_plan.hpp"
#include "io/codec/base64.hpp"
#include "io/crypto/x509_issue.hpp"
#include "tests/unit/render_test_util.hpp"

using namespace br::group_tls;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

br::config::failover_group base_group() { return render_test::group_of(render_test::base_doc()); }

const tls_settings cm{"ca-issuer", "ClusterIssuer", "orders-tls"};
const tls_settings plain{"", "", "orders-tls"};

json secret_with(const std::map<std::string, std::string>& data, const json& labels = json::object()) {
  json d = json::object();
  for (const auto& [k, v] : data) d[k] = br::base64_encode(v);
  return {{"apiVersion", "v1"},
          {"kind", "Secret"},
          {"metadata", {{"name", "x"}, {"namespace", "db"}, {"labels", labels}, {"resourceVersion", "7"}}},
          {"data", d}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(source_choice) {
  struct row {
    tls_settings s;
    bool served;
    tls_source want;
  };
  const std::vector<row> rows = {
      {cm, true, tls_source::cert_manager},
      {cm, false, tls_source::generated_ca},     // no CRD: the generated CA
      {plain, true, tls_source::generated_ca},   // CRD but no issuerRef: the generated CA
      {plain, false, tls_source::generated_ca},
  };
  for (std::size_t i = 0; i < rows.size(); ++i)
    BOOST_TEST((choose_source(rows[i].s, rows[i].served) == rows[i].want), "row " << i);
}

BOOST_AUTO_TEST_CASE(issuers_a_group_may_name) {
  struct row {
    const char* name;
    tls_settings s;
    std::vector<std::string> allowed;
    bool refused;
  };
  const std::vector<row> rows = {
      {"no issuer (the generated CA)", {"", "", "g-tls"}, {}, false},
      {"an Issuer of the operator's namespace", {"ca", "Issuer", "g-tls"}, {}, false},
      {"a ClusterIssuer with none allowed", {"company-ca", "ClusterIssuer", "g-tls"}, {}, true},
      {"a listed ClusterIssuer", {"company-ca", "ClusterIssuer", "g-tls"}, {"other", "company-ca"}, false},
      {"an unlisted ClusterIssuer", {"company-ca", "ClusterIssuer", "g-tls"}, {"other"}, true},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.name) {
      const auto why = issuer_refusal(r.s, r.allowed);
      BOOST_TEST(!why.empty() == r.refused, why);
      if (r.refused) BOOST_TEST(why.find("spec.tls.issuerRef") != std::string::npos, why);
    }
}

BOOST_AUTO_TEST_CASE(discovery_answer) {
  BOOST_TEST(serves_certificates(json{{"resources", {{{"name", "issuers"}}, {{"name", "certificates"}}}}}));
  BOOST_TEST(!serves_certificates(json{{"resources", {{{"name", "issuers"}}}}}));
  BOOST_TEST(!serves_certificates(json{{"resources", "certificates"}}));
  BOOST_TEST(!serves_certificates(json::array()));
  BOOST_TEST(!serves_certificates(json{}));
}

// Group Replication with spec.tls verifies each member's certificate against its localAddress
// (VERIFY_IDENTITY): a user-given one is named too, an IP as an IP, once.
BOOST_AUTO_TEST_CASE(names_cover_a_members_own_local_address) {
  json d = render_test::base_doc();
  d["spec"]["replication"]["mode"] = "groupReplication";
  auto& sea = d["spec"]["sites"][2];
  sea["role"] = "primary-candidate";
  sea["lbIP"] = "10.0.0.3";
  sea["taintNodeSelector"] = {{"shipstream.io/site.orders", "sea"}};
  d["spec"]["sites"][1]["groupReplication"]["localAddress"] = "10.1.2.3:3306";
  sea["groupReplication"]["localAddress"] = "db-sea.example.com:3306";
  const auto n = group_cert_names(render_test::group_of(d));
  BOOST_TEST((n.ips == std::vector<std::string>{"127.0.0.1", "10.1.2.3"}));
  BOOST_TEST(std::count(n.dns.begin(), n.dns.end(), "db-sea.example.com") == 1);
  BOOST_TEST(std::count(n.dns.begin(), n.dns.end(), "mysql-orders-readers") == 1);
  // An async group's names do not change.
  BOOST_TEST(group_cert_names(base_group()).ips.size() == 1u);
}

BOOST_AUTO_TEST_CASE(names_cover_every_service) {
  const auto n = group_cert_names(base_group());
  // Three sites' Services, -primary and -replicas (no -readers outside Group Replication), four
  // forms each, and localhost.
  BOOST_TEST(n.dns.size() == 5u * 4u + 1u);
  BOOST_TEST(n.dns.front() == "mysql-orders-iad");  // short first: the common name
  for (const std::string want :
       {"mysql-orders-pdx.db.svc.cluster.local", "mysql-orders-sea.db.svc", "mysql-orders-primary.db",
        "mysql-orders-replicas.db.svc.cluster.local", "localhost"})
    BOOST_TEST((std::find(n.dns.begin(), n.dns.end(), want) != n.dns.end()), want);
  BOOST_TEST((n.ips == std::vector<std::string>{"127.0.0.1"}));
  BOOST_TEST(n.all().back() == "127.0.0.1");
  BOOST_TEST(n.all().size() == n.dns.size() + 1);
}

BOOST_AUTO_TEST_CASE(ca_file_keeps_the_cas_before_the_current_one) {
  auto pem = [](const std::string& body) {
    return "-----BEGIN CERTIFICATE-----\n" + body + "\n-----END CERTIFICATE-----\n";
  };
  const auto a = pem("A"), b = pem("B"), c = pem("C"), d = pem("D"), e = pem("E");
  struct row {
    const char* name;
    std::string now, existing, want;
  };
  const std::vector<row> rows = {
      {"first write: the CA alone", a, "", a},
      {"unchanged: the CA alone", a, a, a},
      {"a new CA: it first, the previous one kept", b, a, b + a},
      {"stable once written", b, b + a, b + a},
      {"back to an earlier CA: not listed twice", a, b + a, a + b},
      {"at most three earlier CAs, newest first", e, d + c + b + a, e + d + c + b},
      {"a bundle as the CA: none of its certificates repeated", b + a, a + c, b + a + c},
      {"garbage in the old file: ignored", b, "not a pem", b},
      {"a CA without a final newline gets one", "-----BEGIN CERTIFICATE-----\nB\n-----END CERTIFICATE-----", a, b + a},
  };
  for (const auto& r : rows)
    BOOST_TEST_CONTEXT(r.name) { BOOST_TEST(ca_file_bundle(r.now, r.existing) == r.want); }
}

BOOST_AUTO_TEST_CASE(ca_file_path) {
  BOOST_TEST(group_ca_file(default_ca_dir, "db", "orders") == "/tmp/bloodraven-tls/db/orders/ca.crt");
}

BOOST_AUTO_TEST_CASE(certificate_object) {
  const auto g = base_group();
  const json c = certificate(g, cm, "ops");
  BOOST_TEST(c["apiVersion"] == "cert-manager.io/v1");
  BOOST_TEST(c["metadata"]["name"] == "mysql-db.orders-tls");
  BOOST_TEST(c["metadata"]["namespace"] == "ops");
  BOOST_TEST(c["spec"]["secretName"] == "mysql-db.orders-tls");
  BOOST_TEST(c["spec"]["issuerRef"] == (json{{"name", "ca-issuer"}, {"kind", "ClusterIssuer"}, {"group", "cert-manager.io"}}));
  BOOST_TEST(c["spec"]["dnsNames"] == json(group_cert_names(g).dns));
  BOOST_TEST(c["spec"]["ipAddresses"] == json::array({"127.0.0.1"}));
  BOOST_TEST(c["spec"]["secretTemplate"]["labels"]["shipstream.io/failover-group"] == "orders");
  BOOST_TEST(c["metadata"]["labels"]["shipstream.io/failover-group-namespace"] == "db");
  // An Issuer kind left out is cert-manager's default (Issuer).
  BOOST_TEST(!certificate(g, tls_settings{"i", "", "s"}, "ops")["spec"]["issuerRef"].contains("kind"));
}

BOOST_AUTO_TEST_CASE(certificate_writes) {
  const auto g = base_group();
  const json want = certificate(g, cm, "ops");
  json have = want;
  have["metadata"]["resourceVersion"] = "41";
  have["metadata"]["annotations"] = {{"cert-manager.io/issue-temporary-certificate", "true"}};
  have["status"] = {{"conditions", json::array()}};
  struct row {
    std::string what;
    json have;
    bool writes;
  };
  json renamed_issuer = have;
  renamed_issuer["spec"]["issuerRef"]["name"] = "old";
  json lost_label = have;
  lost_label["metadata"]["labels"].erase("shipstream.io/failover-group");
  json fewer_names = have;
  fewer_names["spec"]["dnsNames"].erase(0);
  const std::vector<row> rows = {
      {"absent", nullptr, true},
      {"same", have, false},
      {"issuer changed", renamed_issuer, true},
      {"label lost", lost_label, true},
      {"a site added", fewer_names, true},
  };
  for (const auto& r : rows) {
    auto w = certificate_write(r.have, want);
    BOOST_TEST(w.has_value() == r.writes, r.what);
    if (w && r.have.is_object()) {
      BOOST_TEST((*w)["metadata"]["resourceVersion"] == "41", r.what);  // conditional
      BOOST_TEST((*w)["metadata"]["annotations"].size() == 1u, r.what);  // others' kept
      BOOST_TEST((*w)["spec"] == want["spec"], r.what);
    }
  }
}

BOOST_AUTO_TEST_CASE(copy_decisions) {
  const auto g = base_group();
  const auto labels = tls_labels(g);
  const json issued = secret_with({{"ca.crt", "CA"}, {"tls.crt", "CRT"}, {"tls.key", "KEY"}});
  const json copy = group_secret(g, cm, "CA", "CRT", "KEY");
  json copy_read = copy;
  copy_read["metadata"]["resourceVersion"] = "9";
  json renewed = secret_with({{"ca.crt", "CA"}, {"tls.crt", "CRT2"}, {"tls.key", "KEY2"}});
  struct row {
    std::string what;
    json issued, have;
    copy_step want;
  };
  const std::vector<row> rows = {
      {"not issued yet", nullptr, nullptr, copy_step::wait},
      {"issued without a key", secret_with({{"ca.crt", "CA"}, {"tls.crt", "CRT"}}), nullptr, copy_step::wait},
      {"issued without ca.crt", secret_with({{"tls.crt", "CRT"}, {"tls.key", "KEY"}}), nullptr, copy_step::wait},
      {"issued, no copy", issued, nullptr, copy_step::write},
      {"copy current", issued, copy_read, copy_step::keep},
      {"renewed by cert-manager", renewed, copy_read, copy_step::write},
      {"a user's Secret of that name", issued, secret_with({{"tls.crt", "MINE"}}), copy_step::conflict},
      {"a user's Secret, nothing issued", nullptr, secret_with({}), copy_step::conflict},
  };
  for (const auto& r : rows) {
    const auto d = decide_copy(g, cm, r.issued, r.have);
    BOOST_TEST((d.step == r.want), r.what << ": " << d.why);
    if (r.want == copy_step::wait || r.want == copy_step::conflict) BOOST_TEST(!d.why.empty(), r.what);
  }
  const auto fresh = decide_copy(g, cm, issued, nullptr);
  BOOST_TEST(fresh.object == copy);
  BOOST_TEST(fresh.object["type"] == "kubernetes.io/tls");
  BOOST_TEST(fresh.object["metadata"]["namespace"] == "db");
  BOOST_TEST(fresh.object["metadata"]["name"] == "orders-tls");
  BOOST_TEST(fresh.object["metadata"]["ownerReferences"][0]["uid"] == "0f1e2d3c-uid");
  const auto upd = decide_copy(g, cm, renewed, copy_read);
  BOOST_TEST(upd.object["metadata"]["resourceVersion"] == "9");
  BOOST_TEST(upd.object["data"]["tls.crt"] == br::base64_encode("CRT2"));
  // Ours needs the group: another group's copy of the same name is not ours.
  auto other = g;
  other.metadata.name = "billing";
  BOOST_TEST(ours(copy, g));
  BOOST_TEST(!ours(copy, other));
}

namespace {

const auto t0 = std::chrono::system_clock::from_time_t(1'800'000'000);

br::crypto::cert_info cert(br::op_ca::time_point nb, br::op_ca::time_point na,
                           std::vector<std::string> names = {}, bool ca = false) {
  br::crypto::cert_info c;
  c.not_before = nb;
  c.not_after = na;
  c.names = std::move(names);
  c.is_ca = ca;
  return c;
}

issued_facts good_facts(const std::vector<std::string>& names) {
  issued_facts f;
  f.exists = true;
  f.ours = true;
  f.material.ca = cert(t0, t0 + br::op_ca::ca_validity, {}, true);
  f.material.ca_key_matches = true;
  f.material.serving = cert(t0, t0 + br::op_ca::serving_validity, names);
  f.material.serving_signed_by_ca = true;
  f.material.serving_key_matches = true;
  f.ca_pem_matches = true;
  return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(issue_decisions) {
  const auto names = group_cert_names(base_group()).all();
  struct row {
    std::string what;
    std::function<void(issued_facts&)> edit;
    br::op_ca::time_point now;
    issue_step want;
  };
  const std::vector<row> rows = {
      {"good", [](issued_facts&) {}, t0 + 24h, issue_step::keep},
      {"absent", [](issued_facts& f) { f.exists = f.ours = false; }, t0, issue_step::issue},
      {"not ours", [](issued_facts& f) { f.ours = false; }, t0, issue_step::conflict},
      {"no certificate", [](issued_facts& f) { f.material.serving.reset(); }, t0, issue_step::issue},
      {"other CA", [](issued_facts& f) { f.material.serving_signed_by_ca = false; }, t0, issue_step::issue},
      {"key mismatch", [](issued_facts& f) { f.material.serving_key_matches = false; }, t0, issue_step::issue},
      {"a site added", [&](issued_facts& f) { f.material.serving->names.pop_back(); }, t0, issue_step::issue},
      {"due (2/3 of 90 days)", [](issued_facts&) {}, t0 + 24h * 61, issue_step::issue},
      {"not yet due", [](issued_facts&) {}, t0 + 24h * 59, issue_step::keep},
      {"expired", [](issued_facts&) {}, t0 + 24h * 91, issue_step::issue},
      {"ca.crt stale", [](issued_facts& f) { f.ca_pem_matches = false; }, t0, issue_step::rewrite},
      {"CA unusable", [](issued_facts& f) { f.material.ca_key_matches = false; }, t0, issue_step::no_ca},
  };
  for (const auto& r : rows) {
    auto f = good_facts(names);
    r.edit(f);
    const auto d = decide_issue(f, names, r.now);
    BOOST_TEST((d.step == r.want), r.what << ": " << d.why);
  }
}

BOOST_AUTO_TEST_CASE(issue_on_real_certificates) {
  const auto g = base_group();
  const auto names = group_cert_names(g).all();
  auto ca = br::crypto::make_ca("test-ca", br::op_ca::ca_validity);
  auto other_ca = br::crypto::make_ca("other-ca", br::op_ca::ca_validity);
  BOOST_TEST_REQUIRE((ca && other_ca));
  auto leaf = br::crypto::issue_server_cert(*ca, names, br::op_ca::serving_validity);
  auto foreign = br::crypto::issue_server_cert(*other_ca, names, br::op_ca::serving_validity);
  BOOST_TEST_REQUIRE((leaf && foreign));
  const auto now = std::chrono::system_clock::now();
  const auto labels = tls_labels(g);
  auto decide = [&](const json& have) { return decide_issue(facts_of(g, *ca, have), names, now).step; };
  BOOST_TEST((decide(nullptr) == issue_step::issue));
  BOOST_TEST((decide(group_secret(g, plain, ca->cert_pem, leaf->cert_pem, leaf->key_pem)) == issue_step::keep));
  BOOST_TEST((decide(group_secret(g, plain, ca->cert_pem, foreign->cert_pem, foreign->key_pem)) == issue_step::issue));
  BOOST_TEST((decide(group_secret(g, plain, ca->cert_pem, leaf->cert_pem, foreign->key_pem)) == issue_step::issue));
  BOOST_TEST((decide(group_secret(g, plain, other_ca->cert_pem, leaf->cert_pem, leaf->key_pem)) == issue_step::rewrite));
  json unlabelled = group_secret(g, plain, ca->cert_pem, leaf->cert_pem, leaf->key_pem);
  unlabelled["metadata"].erase("labels");
  BOOST_TEST((decide(unlabelled) == issue_step::conflict));
  // Fewer sites than the certificate names: re-issued for the new set.
  auto smaller = g;
  smaller.spec.sites.pop_back();
  BOOST_TEST((decide_issue(facts_of(smaller, *ca, group_secret(smaller, plain, ca->cert_pem, leaf->cert_pem,
                                                               leaf->key_pem)),
                           group_cert_names(smaller).all(), now)
                  .step == issue_step::issue));
}

BOOST_AUTO_TEST_CASE(stale_certificate_rows) {
  auto cert_of = [](const std::string& ns, const std::string& group, bool ours_ = true) {
    json labels = {{"shipstream.io/failover-group", group}, {"shipstream.io/failover-group-namespace", ns}};
    if (ours_) {
      labels["app.kubernetes.io/managed-by"] = "bloodraven";
      labels["app.kubernetes.io/component"] = "mysql-tls";
    }
    return json{{"metadata", {{"name", certificate_name(ns, group)}, {"labels", labels}}}};
  };
  const std::vector<json> certs = {cert_of("db", "live"),    cert_of("db", "gone"),
                                   cert_of("db", "broken"),  cert_of("db", "switched"),
                                   cert_of("db", "foreign", false), cert_of("other", "gone")};
  const std::map<std::string, group_intent> intents = {{"db/live", group_intent::cert_manager},
                                                      {"db/broken", group_intent::unknown},
                                                      {"db/switched", group_intent::other},
                                                      {"db/foreign", group_intent::absent}};
  // Every namespace watched: the gone and switched groups' Certificates go; an unreadable spec
  // and a Certificate that is not ours stay.
  BOOST_TEST((stale_certificates(certs, intents, {}) ==
              std::vector<std::string>{"mysql-db.gone-tls", "mysql-db.switched-tls", "mysql-other.gone-tls"}),
             boost::test_tools::per_element());
  // Watching only "db": another namespace's groups were not listed, so its Certificates stay.
  BOOST_TEST((stale_certificates(certs, intents, {"db"}) ==
              std::vector<std::string>{"mysql-db.gone-tls", "mysql-db.switched-tls"}),
             boost::test_tools::per_element());
}
