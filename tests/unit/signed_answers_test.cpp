// Table tests of what a sidecar accepts from the network and what it signs
// (actors/sidecar/fencing/signed_answers.hpp): operator answers, peer answers (forged views are
// never adopted), and the bodies of its own answers, checked against the operator's reader.
#include <boost/test/unit_test.hpp>

#include <nlohmann/json.hpp>

#include "actors/common/authority.hpp"
#include "actors/common/view_json.hpp"
#include "actors/operator/group/view_push.hpp"
#include "actors/sidecar/fencing/signed_answers.hpp"
#include "io/crypto/ed25519.hpp"

using namespace br;
using namespace br::sidecar;
using json = nlohmann::json;

namespace {

crypto::signing_key key_of(char fill) {
  auto k = crypto::key_from_seed(std::string(32, fill));
  BOOST_REQUIRE(k.has_value());
  return *k;
}

const std::string group = "ns/g";
const std::string other_group = "ns/other";
const std::string nonce = "0123456789abcdef0123456789abcdef";
const std::string old_nonce = "fedcba9876543210fedcba9876543210";

struct keys {
  crypto::signing_key op = key_of('o');
  crypto::signing_key attacker = key_of('x');
  crypto::signing_key iad = key_of('i');
  crypto::signing_key pdx = key_of('p');

  /// The sidecar of `site` in `g`, accepting `operator_keys` (default: the operator's).
  authority sidecar(const std::string& site, const crypto::signing_key& own,
                    const std::string& g = group,
                    std::vector<crypto::verify_key> operator_keys = {}) const {
    auth::key_ring ring;
    ring.signer = own;
    ring.operator_keys = operator_keys.empty() ? std::vector<crypto::verify_key>{op.pub}
                                               : std::move(operator_keys);
    ring.site_keys["iad"] = {iad.pub};
    ring.site_keys["pdx"] = {pdx.pub};
    return {std::make_shared<const auth::key_ring>(std::move(ring)), g, site};
  }
};

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

/// The operator's /active-site answer body, as operator_api.cpp builds it around a signed view.
std::string operator_body(const topology_view& sv, const std::string& n) {
  json j = {{"namespace", "ns"},        {"group", "g"},           {"activeSite", sv.active_site},
            {"epoch", sv.epoch},        {"deposing", sv.deposing}, {"signature", sv.signature},
            {"nonce", n}};
  return j.dump();
}

/// A complete operator answer: view signed by `view_key` for `view_group`, body (with `n`) signed
/// by `body_key` as `p` for `body_group`.
http_reply operator_reply(const crypto::signing_key& view_key, const std::string& view_group,
                          const crypto::signing_key& body_key, const std::string& body_group,
                          auth::purpose p, const topology_view& v, const std::string& n) {
  auto body = operator_body(auth::sign_view(view_key, view_group, v), n);
  return reply(200, body, auth::sign_body(body_key, p, body_group, body));
}

/// A peer's /peer/active-site answer: `from`'s body around `relayed`, signed with `from`'s key.
http_reply peer_reply(const authority& from, const std::string& n, const topology_view& relayed) {
  auto body = peer_answer_body(from, n, relayed);
  return reply(200, body, sign(from, auth::purpose::peer_answer, body));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(signed_answers_operator)

BOOST_AUTO_TEST_CASE(only_a_signed_fresh_operator_answer_is_adopted) {
  keys k;
  const auto self = k.sidecar("iad", k.iad);
  const auto v = view(9, "pdx", "iad");
  const auto genuine = operator_reply(k.op, group, k.op, group, auth::purpose::operator_answer, v,
                                      nonce);

  auto ok = read_operator_answer(self, nonce, genuine);
  BOOST_REQUIRE_MESSAGE(ok.view.has_value(), ok.error);
  BOOST_TEST(ok.error.empty());
  BOOST_TEST(ok.view->epoch == 9u);
  BOOST_TEST(ok.view->active_site == "pdx");
  BOOST_TEST(ok.view->deposing == "iad");
  // Kept in its signed form, ready to relay.
  BOOST_TEST(ok.view->signature == auth::sign_view(k.op, group, v).signature);
  BOOST_TEST(auth::view_verifies({k.op.pub}, group, *ok.view));

  auto tampered_view = genuine;
  {
    auto j = json::parse(tampered_view.body);
    j["epoch"] = 10;  // the body is re-signed by the operator, but the view's signature is for 9
    tampered_view.body = j.dump();
    tampered_view.signature =
        auth::sign_body(k.op, auth::purpose::operator_answer, group, tampered_view.body);
  }
  auto body_changed = genuine;
  body_changed.body = json::parse(genuine.body).dump(2);  // same JSON, other bytes
  auto no_nonce = genuine;
  {
    auto j = json::parse(no_nonce.body);
    j.erase("nonce");
    no_nonce.body = j.dump();
    no_nonce.signature = auth::sign_body(k.op, auth::purpose::operator_answer, group, no_nonce.body);
  }
  auto unsigned_view = genuine;
  {
    auto j = json::parse(unsigned_view.body);
    j.erase("signature");
    unsigned_view.body = j.dump();
    unsigned_view.signature =
        auth::sign_body(k.op, auth::purpose::operator_answer, group, unsigned_view.body);
  }
  auto deep = genuine;
  {
    auto j = json::parse(deep.body);
    j["pad"] = json::parse("[[[[1]]]]");  // depth 5 with the answer object
    deep.body = j.dump();
    deep.signature = auth::sign_body(k.op, auth::purpose::operator_answer, group, deep.body);
  }
  auto signed_not_json = reply(200, "not json",
                               auth::sign_body(k.op, auth::purpose::operator_answer, group, "not json"));
  auto status_0 = reply(0, "", "");
  status_0.error = "refused: connection refused";

  struct row {
    const char* name;
    http_reply r;
  };
  std::vector<row> refused = {
      {"unsigned", reply(200, genuine.body, "")},
      {"signed by an attacker's key (view too)",
       operator_reply(k.attacker, group, k.attacker, group, auth::purpose::operator_answer, v, nonce)},
      {"genuine view, answer signed by an attacker",
       operator_reply(k.op, group, k.attacker, group, auth::purpose::operator_answer, v, nonce)},
      {"genuine answer to another request (replay)",
       operator_reply(k.op, group, k.op, group, auth::purpose::operator_answer, v, old_nonce)},
      {"answer without a nonce", no_nonce},
      {"for another group",
       operator_reply(k.op, other_group, k.op, other_group, auth::purpose::operator_answer, v, nonce)},
      {"body signed for another group",
       operator_reply(k.op, group, k.op, other_group, auth::purpose::operator_answer, v, nonce)},
      {"view signed for another group",
       operator_reply(k.op, other_group, k.op, group, auth::purpose::operator_answer, v, nonce)},
      {"operator-signed body, view signature forged",
       operator_reply(k.attacker, group, k.op, group, auth::purpose::operator_answer, v, nonce)},
      {"operator-signed body, view changed after signing", tampered_view},
      {"operator-signed body, view unsigned", unsigned_view},
      {"signed as a peer answer",
       operator_reply(k.op, group, k.op, group, auth::purpose::peer_answer, v, nonce)},
      {"signed by a site key", operator_reply(k.op, group, k.pdx, group,
                                              auth::purpose::operator_answer, v, nonce)},
      {"body re-serialized after signing", body_changed},
      {"signed garbage", signed_not_json},
      {"signed, but nested deeper than an answer is", deep},
      {"oversized", reply(200, genuine.body + std::string(20000, ' '),
                          auth::sign_body(k.op, auth::purpose::operator_answer, group,
                                          genuine.body + std::string(20000, ' ')))},
      {"503", reply(503, genuine.body, genuine.signature)},
      {"no response", status_0},
  };
  for (const auto& r : refused) {
    auto a = read_operator_answer(self, nonce, r.r);
    BOOST_TEST(!a.view.has_value(), r.name);
    BOOST_TEST(!a.error.empty(), r.name);
  }
  BOOST_TEST(read_operator_answer(self, nonce, reply(503, "", "")).error == "HTTP 503");
  BOOST_TEST(read_operator_answer(self, nonce, status_0).error ==
             "no answer: refused: connection refused");

  // Without keys nothing verifies.
  authority keyless{nullptr, group, "iad"};
  BOOST_TEST(!read_operator_answer(keyless, nonce, genuine).view.has_value());
}

BOOST_AUTO_TEST_CASE(during_a_rollover_both_operator_keys_are_accepted) {
  keys k;
  auto next = key_of('n');
  const auto both = k.sidecar("iad", k.iad, group, {k.op.pub, next.pub});
  const auto old_only = k.sidecar("iad", k.iad, group, {k.op.pub});
  const auto v = view(4, "iad");
  auto by_old = operator_reply(k.op, group, k.op, group, auth::purpose::operator_answer, v, nonce);
  auto by_new = operator_reply(next, group, next, group, auth::purpose::operator_answer, v, nonce);
  BOOST_TEST(read_operator_answer(both, nonce, by_old).view.has_value());
  BOOST_TEST(read_operator_answer(both, nonce, by_new).view.has_value());
  BOOST_TEST(read_operator_answer(old_only, nonce, by_old).view.has_value());
  BOOST_TEST(!read_operator_answer(old_only, nonce, by_new).view.has_value());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(signed_answers_peer)

BOOST_AUTO_TEST_CASE(forged_views_are_never_adopted) {
  keys k;
  const auto self = k.sidecar("iad", k.iad);  // holds epoch 9 naming iad, say
  const auto peer = k.sidecar("pdx", k.pdx);
  const auto peer_other_group = k.sidecar("pdx", k.pdx, other_group);

  auto genuine_copied_to_1000 = auth::sign_view(k.op, group, view(9, "pdx"));
  genuine_copied_to_1000.epoch = 1000;
  auto view_for_other_group = auth::sign_view(k.op, other_group, view(10, "pdx"));

  struct row {
    const char* name;
    http_reply r;
  };
  std::vector<row> rows = {
      {"attacker-signed view, higher epoch, in a peer-signed answer",
       peer_reply(peer, nonce, auth::sign_view(k.attacker, group, view(1000, "pdx", "iad")))},
      {"attacker-signed view, same epoch",
       peer_reply(peer, nonce, auth::sign_view(k.attacker, group, view(9, "iad")))},
      {"unsigned view, higher epoch", peer_reply(peer, nonce, view(1000, "pdx", "iad"))},
      {"operator's signature moved to a higher epoch", peer_reply(peer, nonce, genuine_copied_to_1000)},
      {"a site key's signature on the view",
       peer_reply(peer, nonce, auth::sign_view(k.pdx, group, view(1000, "pdx")))},
      {"genuine operator view of another group", peer_reply(peer, nonce, view_for_other_group)},
      {"genuine operator view of another group, answer of that group",
       peer_reply(peer_other_group, nonce, view_for_other_group)},
      {"attacker-signed view, answer unsigned",
       [&] {
         auto r = peer_reply(peer, nonce, auth::sign_view(k.attacker, group, view(1000, "pdx")));
         r.signature.clear();
         return r;
       }()},
      {"not a peer answer (a bare view)",
       reply(200, view_to_json(auth::sign_view(k.op, group, view(10, "pdx"))), "")},
      {"view is not an object",
       reply(200, R"({"site":"pdx","group":"ns/g","nonce":")" + nonce + R"(","view":"x"})", "")},
      {"not JSON", reply(200, "{{{", "")},
      {"genuine view in a signed answer nested too deep",
       [&] {
         auto body = json::parse(peer_answer_body(peer, nonce, auth::sign_view(k.op, group, view(10, "pdx"))));
         body["pad"] = json::parse("[[[[1]]]]");
         auto text = body.dump();
         return reply(200, text, sign(peer, auth::purpose::peer_answer, text));
       }()},
      {"404", reply(404, "", "")},
      {"no response", reply(0, "", "")},
  };
  for (const auto& r : rows) {
    auto a = read_peer_answer(self, nonce, r.r);
    BOOST_TEST(!a.view.has_value(), r.name);
    BOOST_TEST(!a.fresh, r.name);
    BOOST_TEST(!a.error.empty(), r.name);
  }
}

BOOST_AUTO_TEST_CASE(genuine_views_are_adopted_but_only_a_signed_fresh_answer_is_fresh) {
  keys k;
  const auto self = k.sidecar("iad", k.iad);
  const auto peer = k.sidecar("pdx", k.pdx);
  const auto attacker_as_pdx = k.sidecar("pdx", k.attacker);
  const auto iad_as_pdx = k.sidecar("pdx", k.iad);
  const auto sv = auth::sign_view(k.op, group, view(12, "pdx", "iad"));

  auto genuine = peer_reply(peer, nonce, sv);
  auto as_ack = genuine;
  as_ack.signature = sign(peer, auth::purpose::ack, genuine.body);
  auto for_other_group = genuine;
  for_other_group.signature =
      auth::sign_body(k.pdx, auth::purpose::peer_answer, other_group, genuine.body);
  auto body_changed = genuine;
  body_changed.body = json::parse(genuine.body).dump(1);
  auto no_site = genuine;
  {
    auto j = json::parse(no_site.body);
    j.erase("site");
    no_site.body = j.dump();
    no_site.signature = sign(peer, auth::purpose::peer_answer, no_site.body);
  }
  auto body_names_other_group = genuine;
  {
    auto j = json::parse(body_names_other_group.body);
    j["group"] = other_group;
    body_names_other_group.body = j.dump();
    body_names_other_group.signature =
        sign(peer, auth::purpose::peer_answer, body_names_other_group.body);
  }

  struct row {
    const char* name;
    http_reply r;
    bool fresh;
  };
  std::vector<row> rows = {
      {"signed by the peer's key, this nonce", genuine, true},
      {"unsigned", reply(200, genuine.body, ""), false},
      {"signed by an attacker's key", peer_reply(attacker_as_pdx, nonce, sv), false},
      {"signed by another site's key", peer_reply(iad_as_pdx, nonce, sv), false},
      {"signed as an ack", as_ack, false},
      {"signed for another group", for_other_group, false},
      {"body changed after signing", body_changed, false},
      {"answer to another request (replay)", peer_reply(peer, old_nonce, sv), false},
      {"names no site", no_site, false},
      {"body names another group", body_names_other_group, false},
  };
  for (const auto& r : rows) {
    auto a = read_peer_answer(self, nonce, r.r);
    BOOST_TEST_CONTEXT(r.name) {
      // The view itself is the operator's: safe to adopt whoever relayed it.
      BOOST_REQUIRE(a.view.has_value());
      BOOST_TEST(a.view->epoch == 12u);
      BOOST_TEST(a.view->active_site == "pdx");
      BOOST_TEST(a.view->deposing == "iad");
      BOOST_TEST(a.view->signature == sv.signature);
      BOOST_TEST(a.fresh == r.fresh);
      BOOST_TEST(a.error.empty() == r.fresh, a.error);
    }
  }
  BOOST_TEST(read_peer_answer(self, nonce, genuine).site == "pdx");
}

BOOST_AUTO_TEST_CASE(an_answer_from_this_sidecars_own_site_is_refused) {
  keys k;
  const auto self = k.sidecar("iad", k.iad);
  const auto sv = auth::sign_view(k.op, group, view(12, "pdx", "iad"));
  // Our own answer reflected back (or anyone claiming to be us): never fresh.
  auto a = read_peer_answer(self, nonce, peer_reply(self, nonce, sv));
  BOOST_TEST(!a.fresh);
  BOOST_TEST(!a.error.empty());
}

BOOST_AUTO_TEST_CASE(without_keys_nothing_is_adopted) {
  keys k;
  const auto peer = k.sidecar("pdx", k.pdx);
  authority keyless{nullptr, group, "iad"};
  auto a = read_peer_answer(keyless, nonce,
                            peer_reply(peer, nonce, auth::sign_view(k.op, group, view(3, "pdx"))));
  BOOST_TEST(!a.view.has_value());
  BOOST_TEST(!a.fresh);
  BOOST_TEST(sign(keyless, auth::purpose::ack, "{}") == "");
  auto signerless = std::make_shared<auth::key_ring>();
  signerless->operator_keys = {k.op.pub};
  BOOST_TEST(sign(authority{signerless, group, "iad"}, auth::purpose::ack, "{}") == "");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(signed_answers_bodies)

BOOST_AUTO_TEST_CASE(peer_answer_body_content) {
  keys k;
  const auto peer = k.sidecar("pdx", k.pdx);
  const auto sv = auth::sign_view(k.op, group, view(12, "pdx", "iad"));
  auto j = json::parse(peer_answer_body(peer, nonce, sv));
  BOOST_TEST(j.size() == 4u);
  BOOST_TEST(j["site"] == "pdx");
  BOOST_TEST(j["group"] == group);
  BOOST_TEST(j["nonce"] == nonce);
  BOOST_TEST(j["view"]["epoch"] == 12u);
  BOOST_TEST(j["view"]["activeSite"] == "pdx");
  BOOST_TEST(j["view"]["deposing"] == "iad");
  BOOST_TEST(j["view"]["signature"] == sv.signature);
  // The header the peer sends verifies with its key as a peer answer.
  auto body = peer_answer_body(peer, nonce, sv);
  BOOST_TEST(auth::body_verifies({k.pdx.pub}, auth::purpose::peer_answer, group, body,
                                 sign(peer, auth::purpose::peer_answer, body)));
}

BOOST_AUTO_TEST_CASE(ack_body_content) {
  keys k;
  const auto self = k.sidecar("iad", k.iad);
  push_ack fenced;
  fenced.ok = true;
  fenced.epoch = 7;
  fenced.fenced = true;
  fenced.mysql_reachable = true;
  auto j = json::parse(ack_body(self, nonce, fenced));
  BOOST_TEST(j == json::parse(R"({"ack":true,"epoch":7,"fenced":true,"mysqlReachable":true,
                                  "nonce":"0123456789abcdef0123456789abcdef","site":"iad"})"),
             j.dump());

  push_ack down;
  down.ok = true;
  down.epoch = 7;
  down.fenced = false;
  down.mysql_reachable = false;
  j = json::parse(ack_body(self, nonce, down));
  BOOST_TEST(j["ack"] == true);
  BOOST_TEST(j["fenced"] == false);
  BOOST_TEST(j["mysqlReachable"] == false);
  BOOST_TEST(!j.contains("error"));

  push_ack refused;
  refused.ok = false;
  refused.stale = true;
  refused.epoch = 9;
  refused.error = "pushed epoch 7 is older than cached 9";
  j = json::parse(ack_body(self, nonce, refused));
  BOOST_TEST(j == json::parse(R"({"ack":false,"epoch":9,"error":"pushed epoch 7 is older than cached 9",
                                  "nonce":"0123456789abcdef0123456789abcdef","site":"iad"})"),
             j.dump());
}

BOOST_AUTO_TEST_CASE(the_operator_reads_what_the_sidecar_signs) {
  // Sidecar side (ack_body + sign) against operator side (parse_view_ack, parse_held_view).
  keys k;
  const auto self = k.sidecar("iad", k.iad);
  const auto pushed = auth::sign_view(k.op, group, view(7, "pdx", "iad"));

  push_ack ok;
  ok.ok = true;
  ok.epoch = 7;
  ok.fenced = true;
  auto body = ack_body(self, nonce, ok);
  auto a = parse_view_ack("iad", pushed, nonce, {k.iad.pub}, group,
                          reply(200, body, sign(self, auth::purpose::ack, body)));
  BOOST_TEST(a.acked, a.error);
  BOOST_TEST(a.fenced);
  BOOST_TEST(a.epoch == 7u);
  // The same ack does not open the gate for pdx, nor as an answer to another push.
  BOOST_TEST(!parse_view_ack("pdx", pushed, nonce, {k.pdx.pub}, group,
                             reply(200, body, sign(self, auth::purpose::ack, body))).acked);
  BOOST_TEST(!parse_view_ack("iad", pushed, old_nonce, {k.iad.pub}, group,
                             reply(200, body, sign(self, auth::purpose::ack, body))).acked);

  push_ack stale;
  stale.stale = true;
  stale.epoch = 9;
  stale.error = "pushed epoch 7 is older than cached 9";
  body = ack_body(self, nonce, stale);
  auto s = parse_view_ack("iad", pushed, nonce, {k.iad.pub}, group,
                          reply(409, body, sign(self, auth::purpose::ack, body)));
  BOOST_TEST(!s.acked);
  BOOST_TEST(s.stale);
  BOOST_TEST(s.epoch == 9u);

  auto held = parse_held_view(peer_reply(self, nonce, pushed), {k.op.pub}, group);
  BOOST_TEST(held.answered);
  BOOST_REQUIRE(held.view.has_value());
  BOOST_TEST(held.view->epoch == 7u);
}

BOOST_AUTO_TEST_SUITE_END()
