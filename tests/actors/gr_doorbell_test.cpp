// The Group Replication doorbell, operator side (issue 22), in virtual time: a signed gr-observed
// POST /sidecar/report (the real route) makes every poller of the group (the real group
// supervisor's pollers over the mock site_io) probe now; an unsigned, forged, replayed, unknown-site
// or malformed one wakes nothing; a flood of wakes costs one probe per gap per poller.
#include <boost/test/unit_test.hpp>

#include "actors/operator/api/gr_doorbell.hpp"
#include "actors/operator/api/operator_api.hpp"
#include "io/crypto/ed25519.hpp"
#include "tests/actors/operator_fixture.hpp"

using namespace br;
using namespace br::test;
using nlohmann::json;

namespace {

crypto::signing_key key_of(char c) { return *crypto::key_from_seed(std::string(32, c)); }

std::shared_ptr<const auth::key_ring> ring() {
  auto r = std::make_shared<auth::key_ring>();
  r->signer = key_of('O');
  r->operator_keys = {key_of('O').pub};
  r->site_keys["a"] = {key_of('a').pub};
  r->site_keys["b"] = {key_of('b').pub};
  return r;
}

struct doorbell_fixture : operator_fixture {
  std::shared_ptr<group_table> table = std::make_shared<group_table>();
  http::router routes;
  int64_t sent = 1714564800000;

  doorbell_fixture() {
    add_site("a", site_role::primary_candidate);
    add_site("b", site_role::primary_candidate);
    spec.poll_interval = 30s;  // the backstop: no tick falls inside these tests
    io_rec->probe["a"] = read_only_probe("", false);
    io_rec->probe["b"] = read_only_probe("", false);
    start();
    auto s = sup;
    child_spec c{"group:g", "group_supervisor",
                 [s](caf::local_actor*, const std::string&) { return s; }};
    table->track("test", "g", c, ring(), {"a", "b"}, true).start(nullptr, "root");
    // An async group with the same sites and keys (and, here, the same supervisor).
    table->track("test", "h", c, ring(), {"a", "b"}, false).start(nullptr, "root");
    operator_api_options o;
    o.groups = table;
    o.dashboard = false;
    install_operator_routes(routes, sys, o);
  }

  json body(const std::string& site, const std::string& group = "g") {
    return {{"kind", "gr-observed"}, {"site", site},  {"namespace", "test"}, {"group", group},
            {"sentAtMs", ++sent},    {"gr", {{"reachable", true}, {"viewId", "1700:3"},
                                             {"selfState", "ONLINE"}}}};
  }

  /// POSTs `b` through the real route (signed with `key` unless 0, for group test/`group`).
  http::response post(const std::string& b, char key, const std::string& group = "g") {
    http::request req;
    req.method = "POST";
    req.path = req.target = "/sidecar/report";
    req.body = b;
    if (key != 0)
      req.headers.emplace_back(auth::signature_header,
                               auth::sign_body(key_of(key), auth::purpose::report, "test/" + group, b));
    http::response got;
    auto m = routes.find("POST", "/sidecar/report");
    BOOST_REQUIRE(m.found != nullptr);
    m.found->on_request(req, http::responder([&](http::response r) { got = std::move(r); }));
    run();
    return got;
  }

  std::map<std::string, int> probes() {
    std::map<std::string, int> out;
    for (const auto& [site, n] : io_rec->probes) out[site] = static_cast<int>(n);
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(gr_doorbell_operator, doorbell_fixture)

BOOST_AUTO_TEST_CASE(a_signed_report_wakes_every_poller_and_nothing_else_does) {
  const auto start = probes();
  BOOST_TEST(start.at("a") == 1);  // each poller's first tick
  BOOST_TEST(start.at("b") == 1);

  struct refused {
    const char* name;
    std::string body;
    char key;
    int status;
    const char* error;  // a part of the error text
  };
  auto a = body("a");
  auto bad_gr = body("a");
  bad_gr["gr"]["reachable"] = "yes";
  auto many = body("a");
  many["gr"]["members"] = json::array();
  for (int i = 0; i < 10; ++i) many["gr"]["members"].push_back({{"memberId", "m"}});
  auto bad_kind = body("a");
  bad_kind["kind"] = "wake-everyone";
  const refused rows[] = {
      {"unsigned", a.dump(), 0, 401, "not signed"},
      {"signed by another site's key", a.dump(), 'b', 401, "not signed"},
      {"signed by the operator's key", a.dump(), 'O', 401, "not signed"},
      {"a site the group does not have", body("z").dump(), 'a', 400, "site"},
      {"another group", body("a", "other").dump(), 'a', 404, "not found"},
      {"gr.reachable not a boolean", bad_gr.dump(), 'a', 400, "gr.reachable"},
      {"ten members", many.dump(), 'a', 400, "gr.members"},
      {"unknown kind", bad_kind.dump(), 'a', 400, "kind"},
  };
  for (const auto& r : rows) {
    auto got = post(r.body, r.key);
    BOOST_TEST(got.status == r.status, r.name << ": " << got.status << " " << got.body);
    BOOST_TEST(got.body.find(r.error) != std::string::npos, r.name << ": " << got.body);
  }
  advance(1s);
  BOOST_TEST((probes() == start), "a refused report woke a poller");

  // Signed by its own site: both pollers probe now (not in 30 s).
  auto ok = post(a.dump(), 'a');
  BOOST_TEST(ok.status == 200, ok.body);
  BOOST_TEST(json::parse(ok.body)["wake"] == true);
  BOOST_TEST(probes().at("a") == 2);
  BOOST_TEST(probes().at("b") == 2);

  // The same report again (a replay), or an older one: refused, nothing polls.
  advance(1s);
  auto replay = post(a.dump(), 'a');
  BOOST_TEST(replay.status == 409, replay.body);
  auto older = a;
  older["sentAtMs"] = a["sentAtMs"].get<int64_t>() - 1;
  BOOST_TEST(post(older.dump(), 'a').status == 409);
  advance(1s);
  BOOST_TEST(probes().at("a") == 2);
  BOOST_TEST(probes().at("b") == 2);

  // A fencing report (no kind) is recorded as before and wakes nothing.
  json fencing = {{"site", "b"},        {"namespace", "test"}, {"group", "g"},
                  {"epochSeen", 1},     {"fenced", false},     {"selfFenced", false},
                  {"mysqlReachable", true}, {"sentAtMs", ++sent}};
  BOOST_TEST(post(fencing.dump(), 'b').status == 200);
  advance(1s);
  BOOST_TEST(probes().at("a") == 2);
  // The doorbell is ordered apart from the fencing reports: b's first doorbell, older than its
  // fencing report, still rings.
  auto b = body("b");
  b["sentAtMs"] = fencing["sentAtMs"].get<int64_t>() - 100;
  BOOST_TEST(post(b.dump(), 'b').status == 200);
  BOOST_TEST(probes().at("a") == 3);
}

BOOST_AUTO_TEST_CASE(an_async_group_takes_no_doorbell) {
  const auto start = probes();
  auto got = post(body("a", "h").dump(), 'a', "h");
  BOOST_TEST(got.status == 400, got.body);
  BOOST_TEST(got.body.find("is an async group") != std::string::npos, got.body);
  advance(1s);
  BOOST_TEST((probes() == start), "a doorbell woke an async group's pollers");
}

BOOST_AUTO_TEST_CASE(a_flood_of_wakes_costs_one_probe_per_gap) {
  auto poller = caf::actor_cast<site_poller_actor>(child("poller:a"));
  BOOST_REQUIRE(poller);
  const int before = probes().at("a");
  for (int i = 0; i < 100; ++i) self->send(poller, wake_atom::value);
  run();
  BOOST_TEST(probes().at("a") == before + 1);  // one now
  advance(100ms);
  BOOST_TEST(probes().at("a") == before + 1);  // still within the 250 ms gap
  advance(150ms);
  BOOST_TEST(probes().at("a") == before + 2);  // the 99 others, coalesced into one at the gap's end
  advance(5s);
  BOOST_TEST(probes().at("a") == before + 2);  // and nothing more until the next wake or tick
  BOOST_TEST(probes().at("b") == 1);           // the other poller was not asked
}

BOOST_AUTO_TEST_CASE(a_wake_during_a_probe_polls_again_after_it) {
  // A probe running when the doorbell rings may have read the server before the change.
  io_rec->hung.insert("a");
  auto poller = caf::actor_cast<site_poller_actor>(child("poller:a"));
  self->send(poller, wake_atom::value);  // starts a probe that hangs
  run();
  const int hung = probes().at("a");
  self->send(poller, wake_atom::value);  // arrives while it runs
  run();
  BOOST_TEST(probes().at("a") == hung);
  io_rec->hung.clear();
  advance(6s);  // the hung probe's request times out (5 s command timeout + slack)
  BOOST_TEST(probes().at("a") == hung + 1, "the waiting wake did not poll after the probe");
}

BOOST_AUTO_TEST_SUITE_END()
