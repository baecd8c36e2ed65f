// Table tests for judge_semisync_waiting() (decide/semisync_waiting.hpp): the active primary
// blocked waiting for acknowledgements raises SemiSyncWaiting once per episode, after two polls.
#include "actors/operator/decide/semisync_waiting.hpp"

#include <boost/test/unit_test.hpp>
#include <vector>

namespace {

using namespace br;

/// A primary's probe: source side on or not, waiting sessions, connected receivers, K.
site_semisync poll(bool on, uint32_t waiting, uint32_t clients, uint32_t k = 1) {
  site_semisync s;
  s.source_loaded = s.replica_loaded = true;
  s.source_enabled = on;
  s.source_on = on;
  s.wait_point = "AFTER_SYNC";
  s.wait_count = k;
  s.timeout_ms = semisync_timeout_max_ms;
  s.wait_no_replica = true;
  s.clients = clients;
  s.wait_sessions = waiting;
  return s;
}

struct step {
  std::string site;
  site_semisync s;
  bool raise;
};

struct row {
  const char* name;
  std::vector<step> polls;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(semisync_waiting)

BOOST_AUTO_TEST_CASE(one_event_per_episode) {
  const auto ok = poll(true, 0, 1);
  const auto waiting = poll(true, 3, 1);
  const row rows[] = {
      {"healthy primary: never", {{"a", ok, false}, {"a", ok, false}, {"a", ok, false}}},
      {"one poll waiting is a commit in flight", {{"a", waiting, false}, {"a", ok, false}}},
      {"two polls waiting: raised once",
       {{"a", waiting, false}, {"a", waiting, true}, {"a", waiting, false}, {"a", waiting, false}}},
      {"an episode ends, the next raises again",
       {{"a", waiting, false},
        {"a", waiting, true},
        {"a", ok, false},
        {"a", waiting, false},
        {"a", waiting, true}}},
      {"fewer receivers than K blocks the next commit",
       {{"a", poll(true, 0, 1, 2), false}, {"a", poll(true, 0, 1, 2), true}}},
      {"no receiver at all, K=1", {{"a", poll(true, 0, 0), false}, {"a", poll(true, 0, 0), true}}},
      {"K receivers and nothing waiting", {{"a", poll(true, 0, 2, 2), false}, {"a", poll(true, 0, 2, 2), false}}},
      {"source side off (a replica, or fallen back): not waiting",
       {{"a", poll(false, 2, 0), false}, {"a", poll(false, 2, 0), false}}},
      {"a new primary starts its own count",
       {{"a", waiting, false}, {"b", waiting, false}, {"b", waiting, true}}},
      {"a raised episode moves to a new primary: raised for it too",
       {{"a", waiting, false}, {"a", waiting, true}, {"b", waiting, false}, {"b", waiting, true}}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      semisync_waiting_episode ep;
      for (std::size_t i = 0; i < r.polls.size(); ++i) {
        BOOST_TEST_CONTEXT("poll " << i) {
          auto v = judge_semisync_waiting(ep, r.polls[i].site, r.polls[i].s);
          BOOST_TEST(v.raise == r.polls[i].raise);
          BOOST_TEST(v.message.empty() == !v.raise);
          BOOST_TEST(v.next.site == r.polls[i].site);
          ep = v.next;
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_message_names_the_site_and_the_numbers) {
  semisync_waiting_episode ep;
  ep = judge_semisync_waiting(ep, "iad", poll(true, 4, 1, 2)).next;
  auto v = judge_semisync_waiting(ep, "iad", poll(true, 4, 1, 2));
  BOOST_TEST_REQUIRE(v.raise);
  BOOST_TEST(v.message.starts_with("iad: "), v.message);
  BOOST_TEST(v.message.find("4 commit(s) waiting") != std::string::npos, v.message);
  BOOST_TEST(v.message.find("1 semi-sync replica(s) connected of the 2") != std::string::npos,
             v.message);
}

BOOST_AUTO_TEST_SUITE_END()
