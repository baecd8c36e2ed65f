// POST /admin/switchover and /admin/reclone: what is checked before the coordinator sees a request
// (shape, fields, action, group, the operator's signature, freshness, replay).
#include <boost/test/unit_test.hpp>

#include "actors/operator/api/admin_request.hpp"

using namespace br;

namespace {

crypto::signing_key key_of(char fill) {
  auto k = crypto::key_from_seed(std::string(32, fill));
  BOOST_REQUIRE(k.has_value());
  return *k;
}

constexpr int64_t now = 1'800'000'000'000;

struct fixture {
  crypto::signing_key op = key_of('o');
  crypto::signing_key stranger = key_of('s');
  group_table groups;
  fixture() {
    auto ring = std::make_shared<auth::key_ring>();
    ring->operator_keys = {op.pub};
    groups.track("ns", "g", child_spec{}, ring, {"a", "b"});
  }
  static http::request post(const signed_admin_body& b) {
    http::request r;
    r.method = "POST";
    r.body = b.body;
    r.headers.push_back({std::string(auth::signature_header), b.signature});
    return r;
  }
  admin_request check(admin_action a, const signed_admin_body& b, int64_t at = now) {
    return check_admin_request(a, groups, post(b), at);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(admin_request_checks, fixture)

BOOST_AUTO_TEST_CASE(a_signed_fresh_request_is_passed_on_with_its_argument) {
  auto s = check(admin_action::switchover,
                 sign_admin_request(admin_action::switchover, op, "ns", "g", "b", now));
  BOOST_TEST(s.status == 0, s.error);
  BOOST_TEST(s.argument == "b");
  auto r = check(admin_action::reclone,
                 sign_admin_request(admin_action::reclone, op, "ns", "g", "a:confirm=g", now + 1));
  BOOST_TEST(r.status == 0, r.error);
  BOOST_TEST(r.argument == "a:confirm=g");
  BOOST_TEST(r.namespace_name == "ns");
  BOOST_TEST(r.group == "g");
  // The guarded quorum recovery of a GR group (standalone's force-quorum-recovery request).
  auto q = check(admin_action::recover,
                 sign_admin_request(admin_action::recover, op, "ns", "g", "req-1@0123456789abcdef", now + 2));
  BOOST_TEST(q.status == 0, q.error);
  BOOST_TEST(q.argument == "req-1@0123456789abcdef");
}

BOOST_AUTO_TEST_CASE(refusals_table) {
  struct row {
    const char* name;
    admin_action path;
    signed_admin_body body;
    int64_t at;
    int status;
    std::string error_part;
  };
  const auto sw = admin_action::switchover, rc = admin_action::reclone;
  auto unsigned_body = sign_admin_request(sw, op, "ns", "g", "b", now);
  unsigned_body.signature = "";
  std::vector<row> rows = {
      {"a reclone body posted to /admin/recover", admin_action::recover,
       sign_admin_request(rc, op, "ns", "g", "a:confirm=g", now), now, 400,
       "action must be \"recover\" on this path"},
      {"a recover request signed by a stranger", admin_action::recover,
       sign_admin_request(admin_action::recover, stranger, "ns", "g", "req@x", now), now, 401,
       "not signed by an operator key"},
      {"a switchover body posted to /admin/reclone", rc, sign_admin_request(sw, op, "ns", "g", "b", now),
       now, 400, "value must be a non-empty string"},
      {"signed by a stranger", sw, sign_admin_request(sw, stranger, "ns", "g", "b", now), now, 401,
       "not signed by an operator key"},
      {"no signature", sw, unsigned_body, now, 401, "not signed"},
      {"unknown group", sw, sign_admin_request(sw, op, "ns", "other", "b", now), now, 404,
       "group ns/other not found"},
      {"two minutes old", sw, sign_admin_request(sw, op, "ns", "g", "b", now - 120'000), now, 409,
       "away from the operator's clock"},
      {"malformed", sw, {"{", ""}, now, 400, ""},
      {"too deep", sw, {R"({"action":{"x":{"y":1}}})", ""}, now, 400, ""},
      {"too big", sw, {std::string(5000, ' '), ""}, now, 413, ""},
  };
  for (const auto& r : rows) {
    auto a = check(r.path, r.body, r.at);
    BOOST_TEST(a.status == r.status, r.name << ": " << a.status << " " << a.error);
    BOOST_TEST(a.error.find(r.error_part) != std::string::npos, r.name << ": " << a.error);
  }
}

BOOST_AUTO_TEST_CASE(the_action_in_the_body_must_be_the_paths_own) {
  // Same argument member name is not enough: a body for one action must not be accepted by the
  // other endpoint even if a client put both members in.
  auto b = sign_admin_request(admin_action::reclone, op, "ns", "g", "a:confirm=g", now);
  auto j = nlohmann::json::parse(b.body);
  j["target"] = "a";
  signed_admin_body both{j.dump(), auth::sign_body(op, auth::purpose::admin,
                                                   auth::group_key("ns", "g"), j.dump())};
  auto a = check(admin_action::switchover, both);
  BOOST_TEST(a.status == 400);
  BOOST_TEST(a.error == "action must be \"switchover\" on this path");
}

BOOST_AUTO_TEST_CASE(a_replayed_request_is_refused) {
  auto b = sign_admin_request(admin_action::reclone, op, "ns", "g", "a:confirm=g", now);
  BOOST_TEST(check(admin_action::reclone, b).status == 0);
  auto again = check(admin_action::reclone, b, now + 5);
  BOOST_TEST(again.status == 409);
  BOOST_TEST(again.error.find("replay") != std::string::npos);
  // ... across the two actions too: one sequence of sentAtMs per group.
  auto older = sign_admin_request(admin_action::switchover, op, "ns", "g", "b", now - 1);
  BOOST_TEST(check(admin_action::switchover, older, now + 5).status == 409);
}

BOOST_AUTO_TEST_SUITE_END()
