// Virtual-time tests of the sidecar's fencing monitor with mock HTTP and MySQL workers.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <map>
#include <nlohmann/json.hpp>
#include <memory>
#include <optional>

#include "actors/sidecar/fencing/fencing_monitor.hpp"
#include "actors/sidecar/fencing/view_cache.hpp"
#include "actors/common/view_json.hpp"
#include "tests/support/det_fixture.hpp"

using namespace br;
using namespace br::sidecar;
using namespace std::chrono_literals;

namespace {

// -- mock HTTP worker ---------------------------------------------------------------------------

struct http_script {
  /// URL -> answers in order (the last one repeats). A URL without a script answers 404.
  std::map<std::string, std::vector<http_reply>> by_url;
  std::map<std::string, size_t> served;
  std::vector<http_call> calls;

  void set(const std::string& url, std::vector<http_reply> replies) {
    by_url[url] = std::move(replies);
    served[url] = 0;
  }
  size_t count(const std::string& url_prefix) const {
    size_t n = 0;
    for (auto& c : calls)
      if (c.url.rfind(url_prefix, 0) == 0) ++n;
    return n;
  }
};

http_reply ok(int status, std::string body = {}) {
  http_reply r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

http_reply down() {
  http_reply r;
  r.error = "timeout: no answer";
  return r;
}

http_reply view_reply(uint64_t epoch, std::string active, std::string deposing = "") {
  topology_view v;
  v.epoch = epoch;
  v.active_site = std::move(active);
  v.deposing = std::move(deposing);
  v.observed_at_ms = 1714564800000;
  return ok(200, view_to_json(v));
}

// The keys of this test's group: the operator's, this site's (a) and its peer's (site b at p1:1),
// and an attacker's the sidecars never accepted.
const std::string group_key = "ns/g";
crypto::signing_key key_of(char c) { return *crypto::key_from_seed(std::string(32, c)); }
const crypto::signing_key operator_key = key_of('O');
const crypto::signing_key site_a_key = key_of('a');
const crypto::signing_key site_b_key = key_of('b');
const crypto::signing_key attacker_key = key_of('X');

/// Markers a scripted answer carries in `signature` (the mock replaces them by the real thing).
const std::string genuine = "";           ///< signed as bloodraven signs it
const std::string unsigned_answer = "unsigned";  ///< view signed, answer not (no header)
const std::string forged = "forged";      ///< view and answer signed by the attacker
const std::string foreign = "foreign";    ///< the operator's view of another group
const std::string replayed = "replayed";  ///< a genuine answer to another request (nonce)

http_reply as(http_reply r, const std::string& marker) {
  r.signature = marker;
  return r;
}

/// The URL without its nonce parameter (scripts are keyed by it) and the nonce.
std::pair<std::string, std::string> split_nonce(const std::string& url) {
  auto n = url.find("nonce=");
  if (n == std::string::npos || n == 0) return {url, ""};
  return {url.substr(0, n - 1), url.substr(n + 6)};
}

/// `r` (a scripted view answer) completed as the operator (`peer` false) or the peer sidecar
/// would answer the request with `nonce`, signed according to its marker.
http_reply complete(http_reply r, const std::string& nonce, bool peer) {
  auto marker = r.signature;
  r.signature.clear();
  if (r.status != 200) return r;
  auto v = parse_view_answer(r.body);
  if (!v) return r;
  const auto& view_key = marker == forged ? attacker_key : operator_key;
  auto sv = auth::sign_view(view_key, marker == foreign ? "ns/other" : group_key, *v);
  auto view = nlohmann::json::parse(view_to_json(sv));
  auto n = marker == replayed ? std::string(32, 'f') : nonce;
  nlohmann::json body;
  if (peer) {
    body = {{"site", "b"}, {"group", group_key}, {"nonce", n}, {"view", view}};
  } else {
    body = view;
    body["namespace"] = "ns";
    body["group"] = "g";
    body["nonce"] = n;
  }
  r.body = body.dump();
  if (marker == unsigned_answer) return r;
  const auto& body_key = marker == forged ? attacker_key : (peer ? site_b_key : operator_key);
  r.signature = auth::sign_body(body_key, peer ? auth::purpose::peer_answer
                                               : auth::purpose::operator_answer,
                                group_key, r.body);
  return r;
}

struct mock_http_state {
  std::shared_ptr<http_script> script;
};

http_worker_actor::behavior_type mock_http(http_worker_actor::stateful_pointer<mock_http_state> self,
                                           std::shared_ptr<http_script> script) {
  self->state.script = script;
  return {[=](http_call_atom, const http_call& c) {
    auto& s = *self->state.script;
    s.calls.push_back(c);
    auto [url, nonce] = split_nonce(c.url);
    http_reply r = ok(404, R"({"error":"not found"})");
    if (auto it = s.by_url.find(url); it != s.by_url.end() && !it->second.empty()) {
      auto& i = s.served[url];
      r = complete(it->second[std::min(i, it->second.size() - 1)], nonce,
                   url.find("/peer/active-site") != std::string::npos);
      ++i;
    }
    // The send time on the actor clock (virtual time here), as the real worker stamps it.
    r.sent_at_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                       self->clock().now().time_since_epoch())
                       .count();
    return r;
  }};
}

// -- mock MySQL worker --------------------------------------------------------------------------

struct mysql_script {
  bool reachable = true;
  std::string error_kind = "refused";  ///< when unreachable
  bool writable = true;
  bool fence_works = true;
  bool hold_fence = false;  ///< keep fence answers until release() (push ordering test)
  int fences = 0;
  std::vector<std::string> reasons;
  std::vector<caf::typed_response_promise<mysql_outcome>> held;
  std::vector<int64_t> heartbeat_ages_us;  ///< rule 7 heartbeats, in arrival order

  mysql_outcome probe_outcome() const {
    mysql_outcome o;
    o.ok = reachable;
    if (!reachable) {
      o.error_kind = error_kind;
      o.error = "mock: unreachable";
      return o;
    }
    o.probe.read_only = !writable;
    o.probe.super_read_only = !writable;
    return o;
  }
  mysql_outcome fence_outcome() {
    if (!reachable) return probe_outcome();
    if (fence_works) writable = false;
    auto o = probe_outcome();
    o.ok = fence_works;
    o.value = "0";
    if (!fence_works) o.error = "mock: fence refused";
    return o;
  }
  void release() {
    for (auto& p : held) p.deliver(fence_outcome());
    held.clear();
  }
};

struct mock_mysql_state {
  std::shared_ptr<mysql_script> script;
};

local_mysql_actor::behavior_type mock_mysql(local_mysql_actor::stateful_pointer<mock_mysql_state> self,
                                            std::shared_ptr<mysql_script> script) {
  self->state.script = script;
  return {
      [=](probe_atom) { return self->state.script->probe_outcome(); },
      [=](self_fence_atom, const std::string& reason) -> caf::result<mysql_outcome> {
        auto& s = *self->state.script;
        ++s.fences;
        s.reasons.push_back(reason);
        if (s.hold_fence) {
          auto rp = self->make_response_promise<mysql_outcome>();
          s.held.push_back(rp);
          return rp;
        }
        return s.fence_outcome();
      },
      [=](heartbeat_atom, int64_t age_us) {
        auto& s = *self->state.script;
        s.heartbeat_ages_us.push_back(age_us);
        auto o = s.probe_outcome();
        o.value = s.writable ? "refreshed" : "fenced";
        return o;
      },
      [=](unfence_atom) {
        auto& s = *self->state.script;
        if (!s.held.empty()) {
          // Test hook: (unfence) while fences are held releases them, inside this actor.
          s.release();
          return s.probe_outcome();
        }
        s.writable = true;
        return s.probe_outcome();
      },
  };
}

// -- fixture ------------------------------------------------------------------------------------

const std::string op_view = "http://op:1/active-site?namespace=ns&group=g";
const std::string op_health = "http://op:1/healthz";
const std::string p1_view = "http://p1:1/peer/active-site";
const std::string p1_ping = "http://p1:1/peer/ping";

struct monitor_fixture : test::det_fixture {
  std::shared_ptr<http_script> http = std::make_shared<http_script>();
  std::shared_ptr<mysql_script> db = std::make_shared<mysql_script>();
  std::shared_ptr<sidecar_handles> h = std::make_shared<sidecar_handles>();
  fencing_monitor_actor mon;
  monitor_options opts;
  // Strong references (the handles are weak, as in production where the supervisor owns them).
  local_mysql_actor mysql_mock;
  view_cache_actor cache;
  http_worker_actor http_mock;

  monitor_fixture() {
    opts.site = "a";
    opts.pod_namespace = "ns";
    opts.group = "g";
    opts.operator_address = "op:1";
    opts.peers = {"p1:1"};
    opts.interval = 5s;
    opts.lease_timeout = 20s;
    auto ring = std::make_shared<auth::key_ring>();
    ring->signer = site_a_key;
    ring->operator_keys = {operator_key.pub};
    ring->site_keys["a"] = {site_a_key.pub};
    ring->site_keys["b"] = {site_b_key.pub};
    opts.keys = ring;
    mysql_mock = sys.spawn(mock_mysql, db);
    cache = spawn_view_cache(sys, "", false);
    http_mock = sys.spawn(mock_http, http);
    h->set_mysql(mysql_mock);
    h->set_cache(cache);
    h->set_operator_http(http_mock);
    h->set_peer_http(0, http_mock);
    // Healthy defaults: operator and peer answer with epoch 5 naming "a".
    http->set(op_health, {ok(200, "ok")});
    http->set(op_view, {view_reply(5, "a")});
    http->set(p1_ping, {ok(200, "pong")});
    http->set(p1_view, {view_reply(5, "a")});
  }

  ~monitor_fixture() {
    if (mon) self->send_exit(mon, caf::exit_reason::user_shutdown);
    run();
  }

  void start() {
    mon = sys.spawn(fencing_monitor, opts, h);
    h->set_monitor(mon);
    run();
  }

  /// Seeds the cache as a pushed/operator view would.
  void seed(uint64_t epoch, std::string active, std::string deposing = "") {
    topology_view v;
    v.epoch = epoch;
    v.active_site = std::move(active);
    v.deposing = std::move(deposing);
    self->send(h->cache(), offer_atom::value, view_offer{v, view_source::operator_poll});
    run();
    self->receive([](const sidecar_view&) {}, caf::after(0s) >> [] {});
  }

  monitor_state& st() {
    // state_of<> assumes an untyped stateful actor; the monitor is typed.
    auto ptr = caf::actor_cast<caf::abstract_actor*>(mon);
    return static_cast<fencing_monitor_actor::stateful_pointer<monitor_state>>(ptr)->state;
  }

  void ticks(int n) {
    for (int i = 0; i < n; ++i) advance(opts.interval);
  }

  /// PUT /view's path: pushes `v`, runs to quiescence, returns the acknowledgement if one came.
  std::optional<push_ack> push(const topology_view& v) {
    self->send(mon, push_view_atom::value, v);
    run();
    std::optional<push_ack> out;
    self->receive([&](const push_ack& a) { out = a; }, caf::after(0s) >> [] {});
    return out;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(sidecar_monitor, monitor_fixture)

BOOST_AUTO_TEST_CASE(healthy_primary_is_left_alone_and_reports_every_tick) {
  start();
  ticks(6);  // 30 s: beyond the lease
  BOOST_TEST(db->fences == 0);
  BOOST_TEST(db->writable);
  BOOST_TEST(st().ticks == 6u);
  BOOST_TEST(st().view.view.epoch == 5u);
  BOOST_TEST(http->count("http://op:1/sidecar/report") == 6u);
  auto& last = http->calls.back();
  BOOST_TEST(last.method == "POST");
  auto j = nlohmann::json::parse(last.body);
  BOOST_TEST(j["site"] == "a");
  BOOST_TEST(j["epochSeen"] == 5);
  BOOST_TEST(j["fenced"] == false);
  BOOST_TEST(j["mysqlReachable"] == true);
}

// PITR progress rides along in the report: the archiver's GET /archiver/status object.
BOOST_AUTO_TEST_CASE(report_carries_the_archiver_status) {
  auto archiver = sys.spawn([]() -> binlog_archiver_actor::behavior_type {
    return {[](tick_atom) {}, [](run_atom) {}, [](prune_atom) {},
            [](status_atom) {
              return std::string(R"({"enabled":true,"primary":true,"filesArchived":3})");
            }};
  });
  h->set_archiver(archiver);
  start();
  ticks(1);
  BOOST_REQUIRE(http->count("http://op:1/sidecar/report") == 1u);
  auto j = nlohmann::json::parse(http->calls.back().body);
  BOOST_TEST(j["archiver"]["filesArchived"] == 3);
  BOOST_TEST(j["archiver"]["primary"] == true);
  BOOST_TEST(j["epochSeen"] == 5);
  self->send_exit(archiver, caf::exit_reason::user_shutdown);
}

// docs/safety.md rule 7 with rule 6: every tick of a writable primary writes a heartbeat dated at
// the lease's last renewal (the send time of the freshest contact), never at "now".
BOOST_AUTO_TEST_CASE(heartbeat_is_dated_at_the_last_lease_renewal) {
  start();
  ticks(2);
  // Operator and peer answer at once (virtual time): the lease was renewed at this very tick.
  BOOST_REQUIRE(db->heartbeat_ages_us.size() == 2u);
  BOOST_TEST(db->heartbeat_ages_us.back() == 0);
  // Everyone goes silent: the heartbeat's age grows by one interval per tick.
  http->set(op_view, {down()});
  http->set(op_health, {down()});
  http->set(p1_view, {down()});
  http->set(p1_ping, {down()});
  ticks(3);
  BOOST_REQUIRE(db->heartbeat_ages_us.size() == 5u);
  BOOST_TEST(db->heartbeat_ages_us[2] == 5'000'000);
  BOOST_TEST(db->heartbeat_ages_us[3] == 10'000'000);
  BOOST_TEST(db->heartbeat_ages_us[4] == 15'000'000);
  ticks(1);  // 20 s: exactly the lease, still writable, age 20 s
  BOOST_TEST(db->heartbeat_ages_us.back() == 20'000'000);
  BOOST_TEST(db->fences == 0);
  ticks(1);  // 25 s: the lease expired: fenced, and no heartbeat vouches for it any more
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->heartbeat_ages_us.size() == 6u);
  ticks(2);
  BOOST_TEST(db->heartbeat_ages_us.size() == 6u);
}

BOOST_AUTO_TEST_CASE(no_heartbeat_when_the_switch_is_disabled_or_mysql_is_read_only) {
  opts.dead_mans_switch = false;
  start();
  ticks(2);
  BOOST_TEST(db->heartbeat_ages_us.empty());
  self->send_exit(mon, caf::exit_reason::user_shutdown);
  run();
  opts.dead_mans_switch = true;
  db->writable = false;
  start();
  ticks(2);
  BOOST_TEST(db->heartbeat_ages_us.empty());
}

BOOST_AUTO_TEST_CASE(mismatch_fences_within_one_tick) {
  http->set(op_view, {view_reply(6, "b")});
  http->set(p1_view, {view_reply(6, "b")});
  start();
  ticks(1);
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->reasons.at(0) == "mismatch");
  BOOST_TEST(st().fenced);
  BOOST_TEST(!db->writable);
  // The operator answered in that tick: no second pull of the view was needed.
  BOOST_TEST(http->count(op_view) == 1u);
}

BOOST_AUTO_TEST_CASE(transition_deposing_this_site_fences) {
  http->set(op_view, {view_reply(6, "", "a")});
  start();
  ticks(1);
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->reasons.at(0) == "transition");
}

BOOST_AUTO_TEST_CASE(transition_deposing_another_site_does_not_fence_the_candidate) {
  http->set(op_view, {view_reply(6, "", "b")});
  start();
  ticks(3);
  BOOST_TEST(db->fences == 0);
}

BOOST_AUTO_TEST_CASE(stale_view_is_refreshed_before_fencing_a_freshly_promoted_primary) {
  seed(5, "b");  // the cache still names the old primary
  // This tick the operator is briefly unreachable; the refresh reaches it: epoch 6 names "a".
  http->set(op_view, {down(), view_reply(6, "a")});
  http->set(op_health, {down(), ok(200, "ok")});
  http->set(p1_view, {view_reply(5, "b")});  // the peer still holds the old view
  start();
  ticks(1);
  BOOST_TEST(db->fences == 0);
  BOOST_TEST(http->count(op_view) == 2u);  // the tick's pull and the refresh
  BOOST_TEST(st().view.view.epoch == 6u);
  BOOST_TEST(st().view.view.active_site == "a");
  ticks(5);
  BOOST_TEST(db->fences == 0);
}

BOOST_AUTO_TEST_CASE(stale_view_fences_when_the_refresh_still_names_another_site) {
  seed(5, "b");
  http->set(op_view, {down()});
  http->set(op_health, {down()});
  http->set(p1_view, {view_reply(5, "b")});
  start();
  ticks(1);
  BOOST_TEST(http->count(op_view) == 2u);
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->reasons.at(0) == "mismatch");
}

BOOST_AUTO_TEST_CASE(peer_view_adopted_only_with_strictly_higher_epoch) {
  opts.operator_address = "";  // only the peer talks to us
  seed(5, "a");
  http->set(p1_view, {view_reply(5, "b")});  // same epoch, other content: ignored
  start();
  ticks(2);
  BOOST_TEST(db->fences == 0);
  BOOST_TEST(st().view.view.active_site == "a");
  http->set(p1_view, {view_reply(4, "b")});  // older: ignored
  ticks(1);
  BOOST_TEST(db->fences == 0);
  BOOST_TEST(st().view.view.epoch == 5u);
  http->set(p1_view, {view_reply(6, "b")});  // strictly newer: adopted, then rule 1 fences
  ticks(1);
  BOOST_TEST(st().view.view.epoch == 6u);
  BOOST_TEST(st().view.view.active_site == "b");
  BOOST_TEST(db->fences == 1);
}

BOOST_AUTO_TEST_CASE(lease_needs_operator_and_every_anchoring_peer_silent) {
  http->set(op_view, {down()});
  http->set(op_health, {down()});
  start();
  ticks(8);  // 40 s with the operator silent, the peer anchoring (same epoch)
  BOOST_TEST(db->fences == 0);
  http->set(p1_view, {down()});
  http->set(p1_ping, {down()});
  // The peer's last view was sent at 40 s: silent for more than 20 s only at the 65 s tick.
  ticks(4);  // 60 s
  BOOST_TEST(db->fences == 0);
  ticks(1);  // 65 s
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->reasons.at(0) == "lease");
  BOOST_TEST(st().fenced);
}

BOOST_AUTO_TEST_CASE(no_lease_fence_during_startup_grace) {
  http->set(op_view, {down()});
  http->set(op_health, {down()});
  http->set(p1_view, {down()});
  http->set(p1_ping, {down()});
  start();
  ticks(4);  // 20 s: exactly one lease since start
  BOOST_TEST(db->fences == 0);
  ticks(1);  // 25 s
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->reasons.at(0) == "lease");
}

BOOST_AUTO_TEST_CASE(peer_restarted_without_a_view_does_not_keep_the_primary_writable) {
  http->set(op_view, {down()});
  http->set(op_health, {down()});
  http->set(p1_view, {ok(204)});  // answers ping, but has no view
  start();
  ticks(5);
  BOOST_TEST((st().peers.at(0).kind == peer_view_kind::no_view));
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->reasons.at(0) == "lease");
}

BOOST_AUTO_TEST_CASE(peer_with_an_older_view_does_not_anchor) {
  seed(7, "a");
  http->set(op_view, {down()});
  http->set(op_health, {down()});
  http->set(p1_view, {view_reply(6, "a")});
  start();
  ticks(5);
  BOOST_TEST(db->fences == 1);
}

BOOST_AUTO_TEST_CASE(a_404_peer_changes_nothing) {
  http->set(p1_view, {ok(404, R"({"error":"not found"})")});
  start();
  ticks(8);
  BOOST_TEST((st().peers.at(0).kind == peer_view_kind::old_peer));
  BOOST_TEST(db->fences == 0);
  BOOST_TEST(st().view.view.epoch == 5u);
  BOOST_TEST(st().view.view.active_site == "a");
}

BOOST_AUTO_TEST_CASE(rearm_after_the_operator_unfences) {
  http->set(op_view, {down()});
  http->set(op_health, {down()});
  http->set(p1_view, {down()});
  start();
  ticks(5);
  BOOST_REQUIRE(db->fences == 1);
  BOOST_REQUIRE(st().fenced);
  db->writable = true;  // the operator restores the site (e.g. after it came back)
  ticks(1);
  BOOST_TEST(!st().fenced);
  ticks(3);  // within the fresh window: no lease fence although everyone is still silent
  BOOST_TEST(db->fences == 1);
  ticks(2);  // beyond it
  BOOST_TEST(db->fences == 2);
}

BOOST_AUTO_TEST_CASE(replica_is_never_fenced) {
  db->writable = false;
  http->set(op_view, {view_reply(6, "b")});
  start();
  ticks(10);
  BOOST_TEST(db->fences == 0);
}

BOOST_AUTO_TEST_CASE(failed_fence_is_retried_next_tick) {
  db->fence_works = false;
  http->set(op_view, {view_reply(6, "b")});
  start();
  ticks(1);
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(!st().fenced);
  db->fence_works = true;
  ticks(1);
  BOOST_TEST(db->fences == 2);
  BOOST_TEST(st().fenced);
}

// -- pushed views -------------------------------------------------------------------------------

namespace {

topology_view pushed(uint64_t epoch, std::string active, std::string deposing) {
  topology_view v;
  v.epoch = epoch;
  v.active_site = std::move(active);
  v.deposing = std::move(deposing);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(pushed_view_is_acknowledged_only_after_the_fence_is_confirmed) {
  start();
  db->hold_fence = true;
  self->send(mon, push_view_atom::value, pushed(6, "", "a"));
  run();
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->writable);  // the fence has not completed yet
  bool early = false;
  self->receive([&](const push_ack&) { early = true; }, caf::after(0s) >> [] {});
  BOOST_TEST(!early);
  self->send(h->mysql(), unfence_atom::value);  // releases the held fence (see mock_mysql)
  run();
  push_ack ack;
  bool got = false;
  for (int i = 0; i < 2; ++i)
    self->receive([&](const push_ack& a) { ack = a, got = true; },
                  [&](const mysql_outcome&) {}, caf::after(0s) >> [] {});
  BOOST_REQUIRE(got);
  BOOST_TEST(ack.ok);
  BOOST_TEST(ack.fenced);
  BOOST_TEST(ack.epoch == 6u);
  BOOST_TEST(!db->writable);
  BOOST_TEST(st().fenced);
}

BOOST_AUTO_TEST_CASE(push_without_a_confirmed_fence_is_not_acknowledged) {
  start();
  db->fence_works = false;
  auto ack = push(pushed(6, "b", "a")).value_or(push_ack{});
  BOOST_TEST(!ack.ok);
  BOOST_TEST(!ack.error.empty());
}

BOOST_AUTO_TEST_CASE(push_with_mysqld_down_acks_unreachable) {
  start();
  db->reachable = false;
  db->error_kind = "down";  // the worker's proof: the local port refused a fresh connect
  auto ack = push(pushed(6, "b", "a")).value_or(push_ack{});
  BOOST_TEST(ack.ok);
  BOOST_TEST(!ack.mysql_reachable);
  BOOST_TEST(db->fences == 0);
  // A hung server (timeout), a lost connection to a running server or a refusal the worker could
  // not prove is not an acknowledgement.
  uint64_t epoch = 7;
  for (const char* kind : {"timeout", "lost_connection", "refused", "auth"}) {
    BOOST_TEST_CONTEXT(kind) {
      db->error_kind = kind;
      auto other = push(pushed(epoch++, "b", "a")).value_or(push_ack{});
      BOOST_TEST(!other.ok);
    }
  }
}

BOOST_AUTO_TEST_CASE(push_naming_this_site_does_not_touch_mysql) {
  start();
  db->writable = false;
  auto ack = push(pushed(6, "a", "b")).value_or(push_ack{});
  BOOST_TEST(ack.ok);
  BOOST_TEST(ack.epoch == 6u);
  BOOST_TEST(db->fences == 0);
  BOOST_TEST(!db->writable);  // never unfenced by the sidecar
}

BOOST_AUTO_TEST_CASE(stale_push_is_refused_and_changes_nothing) {
  seed(9, "a");
  start();
  auto ack = push(pushed(8, "b", "a")).value_or(push_ack{});
  BOOST_TEST(!ack.ok);
  BOOST_TEST(ack.stale);
  BOOST_TEST(ack.epoch == 9u);
  BOOST_TEST(db->fences == 0);
  BOOST_TEST(db->writable);
}

// A best-effort push of an older view (epoch 5, naming "b") reaches this sidecar after its server
// was promoted at epoch 6, while the sidecar missed the deposing view: rule 1 refreshes once from
// the operator, the fresher view names this site, and the new primary stays writable.
BOOST_AUTO_TEST_CASE(late_push_of_an_older_view_does_not_fence_a_freshly_promoted_primary) {
  seed(4, "b");
  http->set(op_view, {view_reply(6, "a")});
  start();
  auto before = http->count(op_view);
  auto answer = push(pushed(5, "b", ""));
  BOOST_REQUIRE(answer.has_value());
  auto ack = *answer;
  BOOST_TEST(http->count(op_view) == before + 1);  // the one refresh
  BOOST_TEST(db->fences == 0);
  BOOST_TEST(db->writable);
  BOOST_TEST(!ack.ok);
  BOOST_TEST(ack.stale);
  BOOST_TEST(ack.epoch == 6u);
  BOOST_TEST(st().view.view.epoch == 6u);
  BOOST_TEST(st().view.view.active_site == "a");
}

BOOST_AUTO_TEST_CASE(push_naming_another_site_fences_when_the_refresh_agrees) {
  seed(4, "a");
  http->set(op_view, {view_reply(5, "b")});
  start();
  auto ack = push(pushed(5, "b", "")).value_or(push_ack{});
  BOOST_TEST(ack.ok);
  BOOST_TEST(ack.fenced);
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->reasons.at(0) == "push");
  BOOST_TEST(!db->writable);
}

BOOST_AUTO_TEST_CASE(push_naming_another_site_fences_when_the_operator_cannot_be_asked) {
  seed(4, "a");
  http->set(op_view, {down()});
  start();
  auto ack = push(pushed(5, "b", "")).value_or(push_ack{});
  BOOST_TEST(ack.ok);
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(!db->writable);
}

// The deposing view is never second-guessed: it fences without asking anyone (gate rule 2).
BOOST_AUTO_TEST_CASE(deposing_push_fences_without_a_refresh) {
  http->set(op_view, {view_reply(5, "a")});
  start();
  auto before = http->count(op_view);
  auto ack = push(pushed(6, "b", "a")).value_or(push_ack{});
  BOOST_TEST(ack.ok);
  BOOST_TEST(ack.fenced);
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(http->count(op_view) == before);
}

// -- authority (docs/safety.md "Threat model") ------------------------------------------------------

BOOST_AUTO_TEST_CASE(forged_peer_views_are_not_adopted_and_fence_nothing) {
  // The peer's address answers with views the operator never signed: a higher epoch naming b, one
  // deposing a, the same epoch naming b, and the operator's genuine view of another group. None
  // is adopted; nothing is fenced; the operator's view (epoch 5, a) stays.
  struct row {
    const char* what;
    http_reply answer;
  };
  const std::vector<row> rows = {
      {"higher epoch naming b", as(view_reply(1000, "b"), forged)},
      {"higher epoch deposing a", as(view_reply(1000, "", "a"), forged)},
      {"same epoch naming b", as(view_reply(5, "b"), forged)},
      {"another group's genuine view", as(view_reply(1000, "b"), foreign)},
  };
  start();
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      http->set(p1_view, {r.answer});
      ticks(3);
      BOOST_TEST(db->fences == 0);
      BOOST_TEST(db->writable);
      BOOST_TEST(st().view.view.epoch == 5u);
      BOOST_TEST(st().view.view.active_site == "a");
    }
  }
  // The same answers from the operator's address change nothing either.
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("operator: " << r.what) {
      http->set(op_view, {r.answer});
      ticks(1);
      BOOST_TEST(db->fences == 0);
      BOOST_TEST(st().view.view.epoch == 5u);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_genuine_view_relayed_by_a_peer_is_adopted) {
  // The same path with the operator's signature: a relayed view is what makes a partitioned
  // sidecar learn a failover, so verification must not break it.
  start();
  http->set(p1_view, {view_reply(6, "b")});
  ticks(1);
  BOOST_TEST(st().view.view.epoch == 6u);
  BOOST_TEST(db->fences == 1);
  BOOST_TEST(db->reasons.at(0) == "mismatch");
}

BOOST_AUTO_TEST_CASE(only_a_signed_answer_from_the_leader_renews_the_lease) {
  // The operator process answers /healthz (a standby replica, or one that lost its leadership),
  // but /active-site gives 503, an unsigned view, or a genuine answer to an earlier request: none
  // is operator contact. With the peer silent too, the lease runs out as if the operator were gone.
  struct row {
    const char* what;
    http_reply answer;
  };
  const std::vector<row> rows = {
      {"non-leader 503", ok(503, R"({"error":"no topology managers are running"})")},
      {"unsigned answer", as(view_reply(5, "a"), unsigned_answer)},
      {"replayed answer", as(view_reply(5, "a"), replayed)},
      {"forged answer", as(view_reply(5, "a"), forged)},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      monitor_fixture f;
      f.http->set(op_health, {ok(200, "ok")});
      f.http->set(op_view, {r.answer});
      f.http->set(p1_view, {down()});
      f.http->set(p1_ping, {down()});
      f.start();
      f.ticks(5);  // 25 s: past the lease and the startup grace
      BOOST_TEST(f.db->fences == 1);
      BOOST_TEST((!f.db->reasons.empty() && f.db->reasons.at(0) == "lease"));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_peer_answer_without_its_sites_signature_does_not_anchor) {
  // The peer's address relays a genuine view but cannot sign as site b (an impostor replaying
  // what it saw, or an answer to another request): the view may be adopted, but it is no proof
  // that b holds it now, so it does not keep this primary writable.
  for (const auto& marker : {unsigned_answer, replayed}) {
    BOOST_TEST_CONTEXT(marker) {
      monitor_fixture f;
      f.http->set(op_view, {down()});
      f.http->set(op_health, {down()});
      f.http->set(p1_view, {as(view_reply(5, "a"), marker)});
      f.start();
      f.ticks(5);
      BOOST_TEST(f.db->fences == 1);
      BOOST_TEST((!f.db->reasons.empty() && f.db->reasons.at(0) == "lease"));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
