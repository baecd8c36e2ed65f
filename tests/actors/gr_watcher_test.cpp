// The Group Replication doorbell, sidecar side (issue 22), in virtual time: the gr_watcher reads
// the member's view through a stand-in MySQL worker and posts a signed gr-observed report through
// a recording HTTP worker once per distinct snapshot, at most one per gap (coalescing).
#include <boost/test/unit_test.hpp>

#include <memory>
#include <vector>

#include "actors/common/authority.hpp"
#include "actors/sidecar/runtime/gr_watcher.hpp"
#include "io/crypto/ed25519.hpp"
#include "tests/support/det_fixture.hpp"

using namespace br;
using namespace br::sidecar;
using namespace std::chrono_literals;
using nlohmann::json;

namespace {

crypto::signing_key site_key() { return *crypto::key_from_seed(std::string(32, 'a')); }

mysql_outcome member(const std::string& view, const std::string& a_role, const std::string& b_state) {
  mysql_outcome o;
  o.ok = true;
  auto& g = o.probe.gr;
  g.plugin_loaded = true;
  g.member_id = "a";
  g.group_name = "g1";
  g.self_state = "ONLINE";
  g.view_id = view;
  g.rows = {{"a", "h", 3306, "ONLINE", a_role, "9.7.4"},
            {"b", "h", 3307, b_state, a_role == "PRIMARY" ? "SECONDARY" : "PRIMARY", "9.7.4"}};
  return o;
}

struct watcher_fixture : test::det_fixture {
  std::shared_ptr<mysql_outcome> current = std::make_shared<mysql_outcome>(member("v:2", "PRIMARY", "ONLINE"));
  std::shared_ptr<int> reads = std::make_shared<int>(0);
  std::shared_ptr<std::vector<http_call>> calls = std::make_shared<std::vector<http_call>>();
  std::shared_ptr<sidecar_handles> h = std::make_shared<sidecar_handles>();
  local_mysql_actor mysql;
  http_worker_actor http;
  gr_watcher_actor w;

  watcher_fixture() {
    auto cur = current;
    auto n = reads;
    mysql = sys.spawn([cur, n](local_mysql_actor::pointer) -> local_mysql_actor::behavior_type {
      return {[cur, n](probe_atom) {
                ++*n;
                return *cur;
              },
              [](self_fence_atom, const std::string&) { return mysql_outcome{}; },
              [](unfence_atom) { return mysql_outcome{}; },
              [](heartbeat_atom, int64_t) { return mysql_outcome{}; }};
    });
    auto rec = calls;
    http = sys.spawn([rec](http_worker_actor::pointer) -> http_worker_actor::behavior_type {
      return {[rec](http_call_atom, const http_call& c) {
        rec->push_back(c);
        http_reply r;
        r.status = 200;
        r.body = R"({"ok":true,"wake":true})";
        return r;
      }};
    });
    h->set_mysql(mysql);
    h->set_operator_http(http);
    w = sys.spawn(gr_watcher, options(250ms), h);
    run();
  }

  /// Site a of ns/g reporting to the operator, reading every `interval`, 100 ms between reports.
  static gr_watcher_options options(caf::timespan interval) {
    auto ring = std::make_shared<auth::key_ring>();
    ring->signer = site_key();
    gr_watcher_options o;
    o.auth = {ring, auth::group_key("ns", "g"), "a"};
    o.site = "a";
    o.pod_namespace = "ns";
    o.group = "g";
    o.operator_address = "operator:8080";
    o.interval = interval;
    o.min_report_gap = 100ms;
    return o;
  }

  ~watcher_fixture() {
    for (caf::actor a : {caf::actor_cast<caf::actor>(w), caf::actor_cast<caf::actor>(mysql),
                         caf::actor_cast<caf::actor>(http)})
      self->send_exit(a, caf::exit_reason::kill);
    run();
  }

  json report(size_t i) { return json::parse(calls->at(i).body); }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(gr_watcher_reports, watcher_fixture)

BOOST_AUTO_TEST_CASE(each_distinct_snapshot_is_reported_once_signed) {
  BOOST_TEST_REQUIRE(calls->size() == 1u);  // the first observation
  const auto& c = calls->at(0);
  BOOST_TEST(c.method == "POST");
  BOOST_TEST(c.url == "http://operator:8080/sidecar/report");
  BOOST_TEST(auth::body_verifies({site_key().pub}, auth::purpose::report, "ns/g", c.body, c.signature));
  auto r = report(0);
  BOOST_TEST(r["kind"] == "gr-observed");
  BOOST_TEST(r["site"] == "a");
  BOOST_TEST(r["namespace"] == "ns");
  BOOST_TEST(r["group"] == "g");
  BOOST_TEST(r["gr"]["viewId"] == "v:2");
  // Ten more reads of the same snapshot: nothing more is sent.
  for (int i = 0; i < 10; ++i) advance(250ms);
  BOOST_TEST(*reads >= 10);
  BOOST_TEST(calls->size() == 1u);
  // A role-only switch (set_as_primary keeps the view id): reported at the next read.
  *current = member("v:2", "SECONDARY", "ONLINE");
  advance(250ms);
  BOOST_TEST_REQUIRE(calls->size() == 2u);
  BOOST_TEST(report(1)["gr"]["members"][0]["role"] == "SECONDARY");
  BOOST_TEST(report(1)["sentAtMs"].get<int64_t>() > report(0)["sentAtMs"].get<int64_t>());
  // The local server stops answering: reported once, as unreachable.
  *current = mysql_outcome{};
  advance(250ms);
  advance(250ms);
  BOOST_TEST_REQUIRE(calls->size() == 3u);
  BOOST_TEST(report(2)["gr"] == (json{{"reachable", false}}));
}

BOOST_AUTO_TEST_CASE(changes_faster_than_the_gap_are_coalesced_into_the_newest) {
  BOOST_TEST_REQUIRE(calls->size() == 1u);
  // Two changes 40 ms apart just after a report (reads every 40 ms here): the first goes at
  // once, the second waits for the end of the 100 ms gap and carries the newest view.
  caf::anon_send_exit(w, caf::exit_reason::kill);
  run();
  calls->clear();
  w = sys.spawn(gr_watcher, options(40ms), h);
  run();
  BOOST_TEST_REQUIRE(calls->size() == 1u);  // t=0: first observation
  *current = member("v:3", "PRIMARY", "ONLINE");
  advance(40ms);  // t=40: a change, 40 ms after the last report: waits until t=100
  BOOST_TEST(calls->size() == 1u);
  *current = member("v:4", "PRIMARY", "UNREACHABLE");
  advance(40ms);  // t=80: another change, coalesced
  BOOST_TEST(calls->size() == 1u);
  advance(20ms);  // t=100: the gap ends: one report, with the newest observation
  BOOST_TEST_REQUIRE(calls->size() == 2u);
  BOOST_TEST(report(1)["gr"]["viewId"] == "v:4");
  BOOST_TEST(report(1)["gr"]["members"][1]["state"] == "UNREACHABLE");
  for (int i = 0; i < 10; ++i) advance(40ms);
  BOOST_TEST(calls->size() == 2u);  // v:3 alone was never the newest when a report went
}

BOOST_AUTO_TEST_SUITE_END()
