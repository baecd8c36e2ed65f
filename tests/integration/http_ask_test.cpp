// Integration test of the HTTP -> CAF ask bridge with real actors and a real server.
#include <boost/test/unit_test.hpp>
#include <caf/all.hpp>
#include <nlohmann/json.hpp>

#include "io/http/actor_ask.hpp"
#include "io/http/client.hpp"
#include "io/http/server.hpp"

using namespace br::http;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

using doubler = caf::typed_actor<caf::replies_to<int>::with<int>>;

doubler::behavior_type typed_doubler(doubler::pointer) {
  return {[](int x) { return 2 * x; }};
}

struct silent_state {
  std::vector<caf::response_promise> held;  // never delivered
};

caf::behavior silent(caf::stateful_actor<silent_state>* self) {
  return {[=](int) { self->state.held.push_back(self->make_response_promise()); }};
}

client_result get(std::uint16_t port, const std::string& path) {
  client_request req;
  req.url = "http://127.0.0.1:" + std::to_string(port) + path;
  req.timeout = 20s;
  return perform(req);
}

}  // namespace

BOOST_AUTO_TEST_CASE(ask_bridge_answers_and_times_out) {
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto untyped = sys.spawn(
      [](caf::event_based_actor*) -> caf::behavior { return {[](int x) { return x + 1; }}; });
  auto typed = sys.spawn(typed_doubler);
  auto quiet = sys.spawn(silent);
  caf::actor dead = sys.spawn([](caf::event_based_actor* self) { self->quit(); });

  auto as_int = [](const request& req) { return std::stoi(req.query_or("x", "0")); };
  auto to_json = [](int r) { return response::json(200, json{{"result", r}}); };
  router r;
  r.get("/inc", "inc", [&, as_int](const request& req, responder reply) {
    ask(sys, untyped, 5s, reply, "inc", to_json, as_int(req));
  });
  r.get("/double", "double", [&, as_int](const request& req, responder reply) {
    ask(sys, typed, 5s, reply, "double", to_json, as_int(req));
  });
  r.get("/silent", "silent", [&](const request&, responder reply) {
    ask(sys, quiet, 300ms, reply, "silent", to_json, 1);
  });
  r.get("/dead", "dead",
        [&](const request&, responder reply) { ask(sys, dead, 2s, reply, "dead", to_json, 1); });
  server_options o;
  o.handler_timeout = 10s;  // the ask timeout must be what answers
  server srv{o, std::move(r)};
  auto port = srv.start();

  auto inc = get(port, "/inc?x=41");
  BOOST_CHECK_EQUAL(inc.status, 200);
  BOOST_CHECK_EQUAL(json::parse(inc.body)["result"], 42);

  auto dbl = get(port, "/double?x=21");
  BOOST_CHECK_EQUAL(dbl.status, 200);
  BOOST_CHECK_EQUAL(json::parse(dbl.body)["result"], 42);

  auto slow = get(port, "/silent");
  BOOST_CHECK_EQUAL(slow.status, 503);
  auto err = json::parse(slow.body).value("error", "");
  BOOST_CHECK_MESSAGE(err.find("silent") == 0 && err.find("timeout") != std::string::npos, err);

  auto gone = get(port, "/dead");
  BOOST_CHECK_EQUAL(gone.status, 503);

  srv.stop();
  caf::anon_send_exit(untyped, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(typed, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(quiet, caf::exit_reason::user_shutdown);
}
