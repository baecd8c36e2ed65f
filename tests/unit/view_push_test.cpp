// Table tests of the operator's side of a view push and of epoch recovery
// (actors/operator/group/view_push.hpp): the request carries no secret, only the site's own
// signed acknowledgement for this push opens the gate, and only operator-signed held views count.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include <set>

#include "actors/common/authority.hpp"
#include "actors/common/view_json.hpp"
#include "actors/operator/group/view_push.hpp"
#include "io/crypto/ed25519.hpp"

using namespace br;
using json = nlohmann::json;
using namespace std::chrono_literals;

namespace {

crypto::signing_key key_of(char fill) {
  auto k = crypto::key_from_seed(std::string(32, fill));
  BOOST_REQUIRE(k.has_value());
  return *k;
}

const std::string group = "ns/g";
const std::string nonce = "0123456789abcdef0123456789abcdef";

topology_view view(uint64_t epoch, const std::string& active, const std::string& deposing = "") {
  topology_view v;
  v.epoch = epoch;
  v.active_site = active;
  v.deposing = deposing;
  v.observed_at_ms = 1714564800000;
  return v;
}

http_reply reply(int status, std::string body, std::string signature) {
  http_reply r;
  r.status = status;
  r.body = std::move(body);
  r.signature = std::move(signature);
  return r;
}

/// An ack body as the sidecar writes it (actors/sidecar/fencing/signed_answers.cpp ack_body).
std::string ack_json(bool ack, uint64_t epoch, const std::string& site, const std::string& n,
                     bool fenced = true, bool reachable = true, const std::string& error = "") {
  json j = {{"ack", ack}, {"epoch", epoch}, {"site", site}, {"nonce", n}};
  if (ack) {
    j["fenced"] = fenced;
    j["mysqlReachable"] = reachable;
  } else {
    j["error"] = error;
  }
  return j.dump();
}

http_reply signed_reply(int status, const std::string& body, const crypto::signing_key& key,
                        auth::purpose p = auth::purpose::ack, const std::string& g = group) {
  return reply(status, body, auth::sign_body(key, p, g, body));
}

/// A peer's /peer/active-site answer around `relayed` (the body shape of peer_answer_body).
std::string peer_json(const topology_view& relayed) {
  json j = {{"site", "pdx"}, {"group", group}, {"nonce", nonce},
            {"view", json::parse(view_to_json(relayed))}};
  return j.dump();
}

template <class T>
constexpr bool has_headers = requires(T t) { t.headers; };
template <class T>
constexpr bool has_authorization = requires(T t) { t.authorization; };

}  // namespace

BOOST_AUTO_TEST_SUITE(view_push_call_shape)

BOOST_AUTO_TEST_CASE(the_push_carries_the_signed_view_and_a_nonce_and_no_secret) {
  // No header field to put a bearer token in: the request is method, URL, body, timeout and the
  // (unused) signature header.
  static_assert(!has_headers<http_call>);
  static_assert(!has_authorization<http_call>);
  auto op = key_of('o');
  auto sv = auth::sign_view(op, group, view(7, "pdx", "iad"));
  auto c = view_push_call("10.0.0.5:8081", sv, nonce, 1500ms);
  BOOST_TEST(c.method == "PUT");
  BOOST_TEST(c.url == "http://10.0.0.5:8081/view");
  BOOST_TEST(c.timeout_ms == 1500);
  BOOST_TEST(c.signature.empty());
  auto j = json::parse(c.body);
  std::set<std::string> fields;
  for (auto it = j.begin(); it != j.end(); ++it) fields.insert(it.key());
  BOOST_TEST((fields == std::set<std::string>{"activeSite", "deposing", "epoch", "nonce",
                                               "observedAt", "signature"}),
             c.body);
  BOOST_TEST(j["nonce"] == nonce);
  BOOST_TEST(j["signature"] == sv.signature);
  // Nothing in the body is a secret: it is the public view, its signature and the nonce, and the
  // sidecar's strict parser reads back a view that verifies.
  auto p = parse_pushed_view(c.body);
  BOOST_REQUIRE_MESSAGE(p.view.has_value(), p.error);
  BOOST_TEST(p.nonce == nonce);
  BOOST_TEST(p.view->epoch == 7u);
  BOOST_TEST(p.view->deposing == "iad");
  BOOST_TEST(auth::view_verifies({op.pub}, group, *p.view));
}

BOOST_AUTO_TEST_CASE(the_held_view_request) {
  auto c = held_view_call("10.0.0.6:8081", nonce, 800ms);
  BOOST_TEST(c.method == "GET");
  BOOST_TEST(c.url == "http://10.0.0.6:8081/peer/active-site?nonce=" + nonce);
  BOOST_TEST(c.body.empty());
  BOOST_TEST(c.signature.empty());
  BOOST_TEST(c.timeout_ms == 800);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(view_push_acks)

BOOST_AUTO_TEST_CASE(only_the_sites_own_signed_ack_for_this_push_counts) {
  auto iad = key_of('i');
  auto pdx = key_of('p');
  auto impostor = key_of('x');
  const auto pushed = view(7, "pdx", "iad");
  const std::vector<crypto::verify_key> iad_keys = {iad.pub};
  const auto genuine_body = ack_json(true, 7, "iad", nonce);
  const auto other_nonce = std::string("fedcba9876543210fedcba9876543210");

  auto body_changed = signed_reply(200, genuine_body, iad);
  body_changed.body = ack_json(true, 7, "iad", nonce, false, false);
  auto no_response = reply(0, "", "");
  no_response.error = "timeout: 2000 ms";

  struct row {
    const char* name;
    http_reply r;
    bool acked, stale;
    uint64_t epoch;  ///< checked when acked or stale
  };
  std::vector<row> rows = {
      {"genuine signed ack", signed_reply(200, genuine_body, iad), true, false, 7},
      {"genuine ack for a newer epoch", signed_reply(200, ack_json(true, 8, "iad", nonce), iad),
       true, false, 8},
      {"impostor: unsigned ack", reply(200, genuine_body, ""), false, false, 0},
      {"impostor: signed by its own key", signed_reply(200, genuine_body, impostor), false, false, 0},
      {"impostor: signed by another site's key", signed_reply(200, genuine_body, pdx), false, false,
       0},
      {"right key, another push's nonce",
       signed_reply(200, ack_json(true, 7, "iad", other_nonce), iad), false, false, 0},
      {"right key, no nonce",
       signed_reply(200, R"({"ack":true,"epoch":7,"site":"iad","fenced":true})", iad), false,
       false, 0},
      {"right key, names another site", signed_reply(200, ack_json(true, 7, "pdx", nonce), iad),
       false, false, 0},
      {"right key, signed for another group",
       signed_reply(200, genuine_body, iad, auth::purpose::ack, "ns/other"), false, false, 0},
      {"right key, signed as a report",
       signed_reply(200, genuine_body, iad, auth::purpose::report), false, false, 0},
      {"right key, signed as a peer answer",
       signed_reply(200, genuine_body, iad, auth::purpose::peer_answer), false, false, 0},
      {"right key, epoch below the pushed one",
       signed_reply(200, ack_json(true, 6, "iad", nonce), iad), false, false, 0},
      {"right key, ack false",
       signed_reply(200, ack_json(false, 7, "iad", nonce, false, true, "cannot confirm"), iad),
       false, false, 0},
      {"right key, ack as a string",
       signed_reply(200, R"({"ack":"true","epoch":7,"site":"iad","nonce":")" + nonce + R"("})",
                    iad),
       false, false, 0},
      {"right key, 500 with ack true", signed_reply(500, genuine_body, iad), false, false, 0},
      {"right key, not JSON", signed_reply(200, "ack", iad), false, false, 0},
      {"body changed after signing", body_changed, false, false, 0},
      {"right key, nested deeper than an ack is",
       signed_reply(200, R"({"ack":true,"epoch":7,"site":"iad","nonce":")" + nonce +
                             R"(","pad":[[[[1]]]]})", iad),
       false, false, 0},
      {"signed 409: stale",
       signed_reply(409, ack_json(false, 9, "iad", nonce, false, true, "older than cached 9"),
                    iad),
       false, true, 9},
      {"unsigned 409: not even stale",
       reply(409, ack_json(false, 9, "iad", nonce, false, true, "x"), ""), false, false, 0},
      {"impostor's 409", signed_reply(409, ack_json(false, 99, "iad", nonce, false, true, "x"),
                                      impostor),
       false, false, 0},
      {"no response", no_response, false, false, 0},
  };
  for (const auto& r : rows) {
    auto a = parse_view_ack("iad", pushed, nonce, iad_keys, group, r.r);
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST(a.acked == r.acked);
      BOOST_TEST(a.stale == r.stale);
      BOOST_TEST(a.site == "iad");
      BOOST_TEST(a.status == r.r.status);
      BOOST_TEST(a.error.empty() == r.acked, a.error);
      if (r.acked || r.stale) BOOST_TEST(a.epoch == r.epoch);
    }
  }
  BOOST_TEST(parse_view_ack("iad", pushed, nonce, iad_keys, group, no_response).error ==
             "timeout: 2000 ms");
  // Without the site's key nothing counts.
  BOOST_TEST(!parse_view_ack("iad", pushed, nonce, {}, group, signed_reply(200, genuine_body, iad))
                  .acked);
}

BOOST_AUTO_TEST_CASE(an_ack_carries_fenced_and_reachability) {
  auto iad = key_of('i');
  const auto pushed = view(7, "pdx", "iad");
  struct row {
    const char* name;
    bool fenced, reachable;
  };
  const row rows[] = {
      {"fenced, reachable", true, true},
      {"mysqld down", false, false},
  };
  for (const auto& r : rows) {
    auto a = parse_view_ack("iad", pushed, nonce, {iad.pub}, group,
                            signed_reply(200, ack_json(true, 7, "iad", nonce, r.fenced, r.reachable),
                                         iad));
    BOOST_TEST(a.acked, r.name);
    BOOST_TEST(a.fenced == r.fenced, r.name);
    BOOST_TEST(a.mysql_reachable == r.reachable, r.name);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(view_push_held_views)

BOOST_AUTO_TEST_CASE(only_operator_signed_held_views_count) {
  auto op = key_of('o');
  auto next = key_of('n');
  auto attacker = key_of('x');
  const auto genuine = auth::sign_view(op, group, view(41, "pdx", "iad"));
  auto moved = genuine;
  moved.epoch = 4100;
  auto no_response = reply(0, "", "");
  no_response.error = "refused: connection refused";

  struct row {
    const char* name;
    http_reply r;
    bool answered;
    bool has_view;
    uint64_t epoch;
  };
  std::vector<row> rows = {
      {"204: there, holds nothing", reply(204, "", ""), true, false, 0},
      {"200 with an operator-signed view", reply(200, peer_json(genuine), ""), true, true, 41},
      {"200 with a view signed by the next operator key",
       reply(200, peer_json(auth::sign_view(next, group, view(42, "pdx"))), ""), true, true, 42},
      {"200 with a view signed by another key",
       reply(200, peer_json(auth::sign_view(attacker, group, view(4100, "pdx"))), ""), true, false,
       0},
      {"200 with the operator's signature on another epoch", reply(200, peer_json(moved), ""), true,
       false, 0},
      {"200 with an operator view of another group",
       reply(200, peer_json(auth::sign_view(op, "ns/other", view(4100, "pdx"))), ""), true, false,
       0},
      {"200 with an unsigned view", reply(200, peer_json(view(4100, "pdx")), ""), true, false, 0},
      {"200 with a bare view", reply(200, view_to_json(genuine), ""), true, false, 0},
      {"200 with a genuine view in an answer nested too deep",
       [&] {
         auto j = json::parse(peer_json(genuine));
         j["pad"] = json::parse("[[[[1]]]]");
         return reply(200, j.dump(), "");
       }(),
       true, false, 0},
      {"500", reply(500, "", ""), false, false, 0},
      {"404", reply(404, "", ""), false, false, 0},
      {"no response", no_response, false, false, 0},
  };
  for (const auto& r : rows) {
    auto h = parse_held_view(r.r, {op.pub, next.pub}, group);
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST(h.answered == r.answered);
      BOOST_TEST(h.view.has_value() == r.has_view);
      BOOST_TEST(h.error.empty() == (r.has_view || r.r.status == 204), h.error);
      if (h.view && r.has_view) BOOST_TEST(h.view->epoch == r.epoch);
    }
  }
  auto h = parse_held_view(reply(200, peer_json(genuine), ""), {op.pub}, group);
  BOOST_REQUIRE(h.view.has_value());
  BOOST_TEST(h.view->active_site == "pdx");
  BOOST_TEST(h.view->deposing == "iad");
  BOOST_TEST(parse_held_view(reply(500, "", ""), {op.pub}, group).error == "HTTP 500");
  BOOST_TEST(parse_held_view(no_response, {op.pub}, group).error == "refused: connection refused");
}

BOOST_AUTO_TEST_SUITE_END()
