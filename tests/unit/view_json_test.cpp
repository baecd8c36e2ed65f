// JSON forms of the sidecar's view: round trip, lenient answers, strict pushed views (400 texts).
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "actors/common/view_json.hpp"

using namespace br;

BOOST_AUTO_TEST_SUITE(sidecar_view_json)

BOOST_AUTO_TEST_CASE(round_trip) {
  topology_view v;
  v.epoch = 42;
  v.active_site = "pdx";
  v.deposing = "iad";
  v.observed_at_ms = 1714564800250;
  v.signature = "0123456789abcdef:00";
  auto back = parse_view_answer(view_to_json(v));
  BOOST_REQUIRE(back.has_value());
  BOOST_TEST(back->epoch == 42u);
  BOOST_TEST(back->active_site == "pdx");
  BOOST_TEST(back->deposing == "iad");
  BOOST_TEST(back->observed_at_ms == 1714564800250);
  BOOST_TEST(back->signature == v.signature);
  auto body = nlohmann::json::parse(view_to_json(v));
  body["nonce"] = "00112233445566778899aabbccddeeff";
  auto pushed = parse_pushed_view(body.dump());
  BOOST_REQUIRE(pushed.view.has_value());
  BOOST_TEST(pushed.view->epoch == 42u);
  BOOST_TEST(pushed.view->signature == v.signature);
  BOOST_TEST(pushed.nonce == "00112233445566778899aabbccddeeff");
}

BOOST_AUTO_TEST_CASE(operator_answers) {
  auto old = parse_view_answer(R"({"namespace":"n","group":"g","activeSite":"iad"})");
  BOOST_REQUIRE(old.has_value());
  BOOST_TEST(old->epoch == 0u);
  BOOST_TEST(old->active_site == "iad");
  BOOST_TEST(!parse_view_answer(R"({"error":"x"})").has_value());
  BOOST_TEST(!parse_view_answer("not json").has_value());
  BOOST_TEST(!parse_view_answer(R"({"activeSite":"a","epoch":-1})").has_value());
}

BOOST_AUTO_TEST_CASE(pushed_view_errors_name_the_field) {
  const std::pair<std::string, std::string> rows[] = {
      {"{", "malformed JSON"},
      {"[]", "object"},
      {R"({"activeSite":"a","deposing":"","observedAt":"2024-05-01T12:00:00Z"})", "\"epoch\""},
      {R"({"epoch":1,"deposing":"","observedAt":"2024-05-01T12:00:00Z"})", "\"activeSite\""},
      {R"({"epoch":1,"activeSite":"a","observedAt":"2024-05-01T12:00:00Z"})", "\"deposing\""},
      {R"({"epoch":1,"activeSite":"a","deposing":""})", "\"observedAt\""},
      {R"({"epoch":"1","activeSite":"a","deposing":"","observedAt":"2024-05-01T12:00:00Z"})", "\"epoch\""},
      {R"({"epoch":-3,"activeSite":"a","deposing":"","observedAt":"2024-05-01T12:00:00Z"})", "\"epoch\""},
      {R"({"epoch":1,"activeSite":2,"deposing":"","observedAt":"2024-05-01T12:00:00Z"})", "\"activeSite\""},
      {R"({"epoch":1,"activeSite":"a","deposing":"","observedAt":"yesterday"})", "\"observedAt\""},
      {R"({"epoch":1,"activeSite":"a","deposing":"a","observedAt":"2024-05-01T12:00:00Z"})", "\"deposing\""},
      {R"({"epoch":1,"activeSite":"a","deposing":"","observedAt":"2024-05-01T12:00:00Z","nonce":"00112233445566778899aabbccddeeff"})", "\"signature\""},
      {R"({"epoch":1,"activeSite":"a","deposing":"","observedAt":"2024-05-01T12:00:00Z","signature":"k:00"})", "\"nonce\""},
      {R"({"epoch":1,"activeSite":"a","deposing":"","observedAt":"2024-05-01T12:00:00Z","signature":7,"nonce":"00112233445566778899aabbccddeeff"})", "\"signature\""},
  };
  for (auto& [body, needle] : rows) {
    auto p = parse_pushed_view(body);
    BOOST_TEST_CONTEXT(body) {
      BOOST_TEST(!p.view.has_value());
      BOOST_TEST(p.error.find(needle) != std::string::npos, p.error);
    }
  }
  auto ok = parse_pushed_view(R"({"epoch":7,"activeSite":"","deposing":"a","observedAt":"2024-05-01T12:00:00Z","signature":"k:00","nonce":"00112233445566778899aabbccddeeff"})");
  BOOST_REQUIRE(ok.view.has_value());
  BOOST_TEST(ok.view->deposing == "a");
  BOOST_TEST(ok.view->active_site.empty());
}

BOOST_AUTO_TEST_SUITE_END()
