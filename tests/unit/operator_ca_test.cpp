// The operator-generated CA's pure decisions (actors/operator/kube/core/operator_ca_plan.hpp) as
// table tests, and io/crypto/x509_inspect on certificates issued by io/crypto/x509_issue.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/core/operator_ca_plan.hpp"
#include "io/codec/base64.hpp"

using namespace br::op_ca;
using nlohmann::json;
using namespace std::chrono_literals;

namespace {

const time_point t0 = std::chrono::system_clock::from_time_t(1'800'000'000);

br::crypto::cert_info cert(time_point nb, time_point na, std::vector<std::string> names = {},
                           bool ca = false) {
  br::crypto::cert_info c;  // by field: cert_info grew (CN, URIs) for issue 26
  c.not_before = nb;
  c.not_after = na;
  c.names = std::move(names);
  c.is_ca = ca;
  return c;
}

const std::vector<std::string> want = service_dns_names("bloodraven-webhook", "ops");

/// A usable CA (10 years from t0) and serving certificate (90 days from t0) for `want`.
material_facts good() {
  material_facts f;
  f.ca = cert(t0, t0 + ca_validity, {}, true);
  f.ca_key_matches = true;
  f.serving = cert(t0, t0 + serving_validity, want);
  f.serving_signed_by_ca = true;
  f.serving_key_matches = true;
  return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(service_names) {
  BOOST_TEST(want == (std::vector<std::string>{"bloodraven-webhook", "bloodraven-webhook.ops",
                                               "bloodraven-webhook.ops.svc"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(renewal_at_two_thirds_of_the_lifetime) {
  const time_point nb = t0, na = t0 + 90h;  // 2/3 = 60 h
  struct row {
    time_point now;
    bool due;
    const char* what;
  };
  const row rows[] = {
      {t0, false, "at the start"},
      {t0 + 45h, false, "half way"},
      {t0 + 59h + 59min, false, "just before 2/3"},
      {t0 + 60h, true, "at 2/3"},
      {t0 + 89h, true, "near the end"},
      {t0 + 91h, true, "expired"},
      {t0 - 1h, true, "not valid yet"},
  };
  for (const auto& r : rows) BOOST_TEST(due_for_renewal(nb, na, r.now) == r.due, r.what);
  BOOST_TEST(due_for_renewal(t0, t0, t0), "empty validity");
  BOOST_TEST(due_for_renewal(t0, t0 - 1h, t0 - 2h), "notAfter before notBefore");
}

BOOST_AUTO_TEST_CASE(what_to_do_with_the_secret) {
  struct row {
    const char* what;
    std::function<void(material_facts&)> change;
    time_point now;
    ca_step step;
    std::string why;
  };
  const auto none = [](material_facts&) {};
  const row rows[] = {
      {"all usable", none, t0 + 24h, ca_step::keep, ""},
      {"empty Secret", [](material_facts& f) { f = {}; }, t0, ca_step::new_ca, "no CA certificate"},
      {"no CA", [](material_facts& f) { f.ca.reset(); }, t0, ca_step::new_ca, "no CA certificate"},
      {"CA without CA:TRUE", [](material_facts& f) { f.ca->is_ca = false; }, t0, ca_step::new_ca,
       "ca.crt is not a CA certificate"},
      {"CA key of another CA", [](material_facts& f) { f.ca_key_matches = false; }, t0, ca_step::new_ca,
       "ca.key does not belong to ca.crt"},
      {"CA at 2/3 of 10 years", none, t0 + ca_validity * 2 / 3 + 1h, ca_step::new_ca,
       "the CA is due for renewal"},
      {"CA just before 2/3 (serving long expired)", none, t0 + ca_validity * 2 / 3 - 1h,
       ca_step::issue_serving, "the serving certificate is due for renewal"},
      {"no serving certificate", [](material_facts& f) { f.serving.reset(); }, t0,
       ca_step::issue_serving, "no serving certificate"},
      {"serving from another CA", [](material_facts& f) { f.serving_signed_by_ca = false; }, t0,
       ca_step::issue_serving, "tls.crt is not signed by the CA"},
      {"serving key mismatch", [](material_facts& f) { f.serving_key_matches = false; }, t0,
       ca_step::issue_serving, "tls.key does not belong to tls.crt"},
      {"a name missing", [](material_facts& f) { f.serving->names.pop_back(); }, t0,
       ca_step::issue_serving, "tls.crt names other hosts"},
      {"an extra name", [](material_facts& f) { f.serving->names.push_back("evil.example"); }, t0,
       ca_step::issue_serving, "tls.crt names other hosts"},
      {"same names in another order, one twice",
       [](material_facts& f) { f.serving->names = {want[2], want[0], want[1], want[0]}; }, t0 + 1h,
       ca_step::keep, ""},
      {"serving at 2/3 of 90 days", none, t0 + serving_validity * 2 / 3, ca_step::issue_serving,
       "the serving certificate is due for renewal"},
      {"serving just before 2/3", none, t0 + serving_validity * 2 / 3 - 1min, ca_step::keep, ""},
      {"serving expired", none, t0 + serving_validity + 1h, ca_step::issue_serving,
       "the serving certificate is due for renewal"},
  };
  for (const auto& r : rows) {
    auto f = good();
    r.change(f);
    const auto d = decide_ca_material(f, want, r.now);
    BOOST_TEST((d.step == r.step), r.what);
    BOOST_TEST(d.why == r.why, r.what);
  }
}

BOOST_AUTO_TEST_CASE(secret_round_trip) {
  ca_material m{{"CA CERT", "CA KEY"}, {"TLS CERT", "TLS KEY"}};
  const json s = ca_secret("bloodraven-webhook-ca", "ops", m);
  BOOST_TEST(s["type"] == "kubernetes.io/tls");
  BOOST_TEST(s["metadata"]["namespace"] == "ops");
  BOOST_TEST(!s["metadata"].contains("resourceVersion"));
  BOOST_TEST(s["data"]["tls.crt"] == br::base64_encode("TLS CERT"));
  const auto back = material_of(s);
  BOOST_TEST(back.ca.cert_pem == "CA CERT");
  BOOST_TEST(back.ca.key_pem == "CA KEY");
  BOOST_TEST(back.serving.cert_pem == "TLS CERT");
  BOOST_TEST(back.serving.key_pem == "TLS KEY");
  BOOST_TEST(ca_secret("x", "ops", m, "42")["metadata"]["resourceVersion"] == "42");
  // Missing and non-base64 keys read as empty.
  json partial = s;
  partial["data"].erase("ca.key");
  partial["data"]["tls.key"] = "***";
  const auto p = material_of(partial);
  BOOST_TEST(p.ca.key_pem.empty());
  BOOST_TEST(p.serving.key_pem.empty());
  BOOST_TEST(p.ca.cert_pem == "CA CERT");
  BOOST_TEST(material_of(json{{"metadata", json::object()}}).ca.cert_pem.empty());
}

BOOST_AUTO_TEST_CASE(ca_bundle_patch_only_where_it_differs) {
  const std::string ca = "-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n";
  auto hook = [](const std::string& name, std::optional<std::string> bundle) {
    json h = {{"name", name}, {"clientConfig", {{"service", {{"name", "bloodraven-webhook"}}}}}};
    if (bundle) h["clientConfig"]["caBundle"] = *bundle;
    return h;
  };
  json vwc = {{"metadata", {{"name", "bloodraven-status"}}},
              {"webhooks", json::array({hook("a", br::base64_encode(ca)), hook("b", std::nullopt),
                                        hook("c", br::base64_encode("other"))})}};
  const json ops = ca_bundle_patch(vwc, ca);
  BOOST_TEST(ops.size() == 4u, ops.dump());  // a is equal; b and c get test + add
  const json patched = vwc.patch(ops);
  for (const auto& h : patched["webhooks"])
    BOOST_TEST(br::base64_decode(h["clientConfig"]["caBundle"].get<std::string>()).value_or("") == ca, h.dump());
  BOOST_TEST(ca_bundle_patch(patched, ca).empty(), "nothing left to patch");
  // The guard: the same patch against a reordered list fails instead of writing the wrong entry.
  json reordered = vwc;
  std::swap(reordered["webhooks"][1], reordered["webhooks"][2]);
  BOOST_CHECK_THROW(reordered.patch(ops), std::exception);
  // A webhook without clientConfig gets one.
  json bare = {{"webhooks", json::array({json{{"name", "x"}}})}};
  const json fixed = bare.patch(ca_bundle_patch(bare, ca));
  BOOST_TEST(fixed["webhooks"][0]["clientConfig"]["caBundle"] == br::base64_encode(ca));
  BOOST_TEST(ca_bundle_patch(json{{"metadata", json::object()}}, ca).empty(), "no webhooks");
}

BOOST_AUTO_TEST_CASE(facts_from_real_certificates) {
  auto ca = br::crypto::make_ca("test-ca", 24h);
  auto other = br::crypto::make_ca("other-ca", 24h);
  BOOST_TEST_REQUIRE((ca && other));
  auto serving = br::crypto::issue_server_cert(*ca, want, 24h);
  auto stale = br::crypto::issue_server_cert(*ca, {"127.0.0.1", "h"}, 0h);  // valid an hour ago to now
  BOOST_TEST_REQUIRE((serving && stale));
  const auto ci = br::crypto::inspect_cert(ca->cert_pem);
  BOOST_TEST_REQUIRE(ci.has_value());
  BOOST_TEST(ci->is_ca);
  BOOST_TEST(ci->names.empty());
  const auto now = std::chrono::system_clock::now();
  BOOST_TEST((ci->not_before <= now - 59min && ci->not_before >= now - 61min));
  BOOST_TEST((ci->not_after >= now + 23h && ci->not_after <= now + 25h));
  const auto si = br::crypto::inspect_cert(serving->cert_pem);
  BOOST_TEST_REQUIRE(si.has_value());
  BOOST_TEST(!si->is_ca);
  BOOST_TEST(si->names == want, boost::test_tools::per_element());
  BOOST_TEST(br::crypto::inspect_cert(stale->cert_pem)->names ==
                 (std::vector<std::string>{"127.0.0.1", "h"}),
             boost::test_tools::per_element());
  BOOST_TEST(!br::crypto::inspect_cert("not a certificate").has_value());
  BOOST_TEST(br::crypto::signed_by(serving->cert_pem, ca->cert_pem));
  BOOST_TEST(!br::crypto::signed_by(serving->cert_pem, other->cert_pem));
  BOOST_TEST(br::crypto::key_matches(serving->cert_pem, serving->key_pem));
  BOOST_TEST(!br::crypto::key_matches(serving->cert_pem, ca->key_pem));
  BOOST_TEST(br::crypto::key_matches(ca->cert_pem, ca->key_pem));

  // The same decision on real material: usable; the 0-hour certificate is due.
  // facts_of (operator_ca_plan) reads them as operator_ca.cpp does.
  auto facts = [&](const br::crypto::pem_pair& c, const br::crypto::pem_pair& s) {
    return facts_of(ca_material{c, s});
  };
  BOOST_TEST((decide_ca_material(facts(*ca, *serving), want, now).step == ca_step::keep));
  BOOST_TEST((decide_ca_material(facts(*ca, *stale), {"h", "127.0.0.1"}, now).step == ca_step::issue_serving));
  BOOST_TEST((decide_ca_material(facts(*other, *serving), want, now).step == ca_step::issue_serving));
}

// Issue 26: a Secret that keeps only the CA (no Service: the group certificates are issued from
// it by group_tls): a usable CA is kept whatever serving material there is; an unusable one is
// replaced; the Secret is Opaque and holds no tls.* keys.
BOOST_AUTO_TEST_CASE(ca_only_secret) {
  auto f = good();
  f.serving.reset();
  BOOST_TEST((decide_ca_material(f, {}, t0 + 24h).step == ca_step::keep));
  f.ca_key_matches = false;
  BOOST_TEST((decide_ca_material(f, {}, t0 + 24h).step == ca_step::new_ca));
  BOOST_TEST((decide_ca_material(good(), {}, t0 + ca_validity).step == ca_step::new_ca));
  const json s = ca_secret("bloodraven-mysql-ca", "ops", ca_material{{"CA CERT", "CA KEY"}, {}}, {}, "mysql-tls-ca");
  BOOST_TEST(s["type"] == "Opaque");
  BOOST_TEST(!s["data"].contains("tls.crt"));
  BOOST_TEST(!s["data"].contains("tls.key"));
  BOOST_TEST(s["metadata"]["labels"]["app.kubernetes.io/component"] == "mysql-tls-ca");
  BOOST_TEST(material_of(s).ca.key_pem == "CA KEY");
}
