// The Group Replication doorbell's pure rules (issue 22, change detection): the sidecar's change
// detector (actors/sidecar/runtime/gr_change) and the poller's wake gate (decide/wake_gate).
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/wake_gate.hpp"
#include "actors/sidecar/runtime/gr_change.hpp"

using namespace br;
using namespace br::sidecar;
using namespace std::chrono_literals;
using clk = std::chrono::steady_clock;

namespace {

/// A probe outcome of member `self` with rows "id:STATE/ROLE".
mysql_outcome probe(std::vector<std::string> rows, const std::string& view = "1700:3",
                    const std::string& self = "a") {
  mysql_outcome o;
  o.ok = true;
  auto& g = o.probe.gr;
  g.plugin_loaded = true;
  g.member_id = self;
  g.group_name = "g1";
  g.view_id = view;
  for (auto& r : rows) {
    auto c = r.find(':'), sl = r.find('/');
    gr_member_row row{r.substr(0, c), "h-" + r.substr(0, c), 3306, r.substr(c + 1, sl - c - 1),
                      sl == std::string::npos ? "" : r.substr(sl + 1), "9.7.4"};
    if (row.member_id == self) g.self_state = row.state;
    g.rows.push_back(row);
  }
  return o;
}

const std::vector<std::string> healthy = {"a:ONLINE/PRIMARY", "b:ONLINE/SECONDARY",
                                          "c:ONLINE/SECONDARY"};

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_change_detection)

BOOST_AUTO_TEST_CASE(a_change_is_any_difference_in_members_states_roles_view_or_own_state) {
  const auto base = observe_gr(probe(healthy));
  struct row {
    const char* name;
    mysql_outcome next;
    bool changed;
  };
  auto unreachable = mysql_outcome{};
  unreachable.error_kind = "refused";
  auto other_host = probe(healthy);
  other_host.probe.gr.rows[1].host = "elsewhere";  // not part of the group's decisions
  other_host.probe.gtid_executed = "g1:1-99";       // nor is anything outside the GR snapshot
  auto other_group = probe(healthy);
  other_group.probe.gr.group_name = "g2";
  const row rows[] = {
      {"same snapshot", probe(healthy), false},
      {"same rows in another order", probe({"c:ONLINE/SECONDARY", "a:ONLINE/PRIMARY", "b:ONLINE/SECONDARY"}),
       false},
      {"host/version/GTIDs differ only", other_host, false},
      {"a member UNREACHABLE", probe({"a:ONLINE/PRIMARY", "b:ONLINE/SECONDARY", "c:UNREACHABLE/SECONDARY"}),
       true},
      {"a member left (new view)", probe({"a:ONLINE/PRIMARY", "b:ONLINE/SECONDARY"}, "1700:4"), true},
      {"a member joined", probe({"a:ONLINE/PRIMARY", "b:ONLINE/SECONDARY", "c:ONLINE/SECONDARY", "d:RECOVERING/SECONDARY"}),
       true},
      // set_as_primary keeps the view id: only roles move (docs/group-replication.md surprise 11)
      {"roles swapped, same view id", probe({"a:ONLINE/SECONDARY", "b:ONLINE/PRIMARY", "c:ONLINE/SECONDARY"}),
       true},
      {"view id only", probe(healthy, "1700:5"), true},
      {"own state", probe({"a:ERROR/", "b:ONLINE/SECONDARY", "c:ONLINE/SECONDARY"}), true},
      {"group name", other_group, true},
      {"local server unreachable", unreachable, true},
  };
  for (const auto& r : rows)
    BOOST_TEST(gr_changed(base, observe_gr(r.next)) == r.changed, r.name);
  // The first observation is always a change (the operator learns the sidecar is watching).
  BOOST_TEST(gr_changed(std::nullopt, base));
  // Unreachable twice in a row is no new change (the error text is not part of it).
  auto again = mysql_outcome{};
  again.error_kind = "timeout";
  BOOST_TEST(!gr_changed(observe_gr(unreachable), observe_gr(again)));
}

BOOST_AUTO_TEST_CASE(reports_are_paced_by_the_gap_and_coalesced) {
  const auto t0 = clk::time_point{} + 1h;
  BOOST_TEST((next_report_at(std::nullopt, t0, 100ms) == t0));       // first: at once
  BOOST_TEST((next_report_at(t0, t0 + 150ms, 100ms) == t0 + 150ms));  // gap passed: at once
  BOOST_TEST((next_report_at(t0, t0 + 30ms, 100ms) == t0 + 100ms));   // too soon: at the gap's end
  BOOST_TEST((next_report_at(t0, t0 + 100ms, 100ms) == t0 + 100ms));
}

BOOST_AUTO_TEST_CASE(the_report_and_the_annotation_token_carry_every_part_of_a_change) {
  auto a = observe_gr(probe(healthy));
  auto j = gr_observation_json(a);
  BOOST_TEST(j["reachable"] == true);
  BOOST_TEST(j["viewId"] == "1700:3");
  BOOST_TEST(j["selfState"] == "ONLINE");
  BOOST_TEST(j["members"].size() == 3u);
  BOOST_TEST(j["members"][0] == (nlohmann::json{{"memberId", "a"}, {"state", "ONLINE"}, {"role", "PRIMARY"}}));
  BOOST_TEST(gr_observation_json(observe_gr(mysql_outcome{})) == (nlohmann::json{{"reachable", false}}));
  // The token changes with a role-only switch (same view id) and stays for an equal snapshot.
  auto swapped = observe_gr(probe({"a:ONLINE/SECONDARY", "b:ONLINE/PRIMARY", "c:ONLINE/SECONDARY"}));
  BOOST_TEST(gr_observation_token(a) == gr_observation_token(observe_gr(probe(healthy))));
  BOOST_TEST(gr_observation_token(a) != gr_observation_token(swapped));
  BOOST_TEST(gr_observation_token(a).rfind("1700:3/", 0) == 0u, gr_observation_token(a));
  BOOST_TEST(gr_observation_token(observe_gr(mysql_outcome{})).rfind("unreachable/", 0) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(wake_gate_rows)

BOOST_AUTO_TEST_CASE(a_wake_probes_now_at_most_once_per_gap_and_coalesces_the_rest) {
  const auto t0 = clk::time_point{} + 1h;
  struct row {
    const char* name;
    wake_gate_state s;
    bool in_flight;
    clk::time_point now;
    wake_action want;
    std::chrono::nanoseconds delay;
  };
  const wake_gate_state fresh{};
  const wake_gate_state probed{t0, false};
  const wake_gate_state waiting{t0, true};
  const row rows[] = {
      {"first wake", fresh, false, t0, wake_action::probe_now, 0ns},
      {"first wake, a tick's probe running", fresh, true, t0, wake_action::after_probe, 0ns},
      {"within the gap", probed, false, t0 + 100ms, wake_action::later, 150ms},
      {"gap passed", probed, false, t0 + 250ms, wake_action::probe_now, 0ns},
      {"gap passed, probe running", probed, true, t0 + 300ms, wake_action::after_probe, 0ns},
      {"one already waiting", waiting, false, t0 + 10ms, wake_action::coalesced, 0ns},
      {"one already waiting, gap passed", waiting, false, t0 + 1s, wake_action::coalesced, 0ns},
  };
  for (const auto& r : rows) {
    auto d = decide_wake(r.s, r.in_flight, r.now, 250ms);
    BOOST_TEST(to_string(d.action) == to_string(r.want), r.name);
    BOOST_TEST(d.delay.count() == r.delay.count(), r.name);
  }
}

BOOST_AUTO_TEST_CASE(a_flood_of_wakes_costs_one_probe_per_gap) {
  // 1000 wakes, one per millisecond, with a 250 ms gap: the gate starts a probe for the first,
  // then one per gap for the coalesced rest (the waiting wake is asked again when it is due).
  const auto t0 = clk::time_point{} + 1h;
  wake_gate_state s;
  std::optional<clk::time_point> due;  // the waiting wake's timer
  int probes = 0;
  for (int i = 0; i < 1000; ++i) {
    auto now = t0 + std::chrono::milliseconds(i);
    if (due && now >= *due) {  // the timer fires: the waiting wake is asked again
      s.pending = false;
      due.reset();
      auto d = decide_wake(s, false, now, 250ms);
      s = after_wake(s, d, now);
      if (d.action == wake_action::probe_now) ++probes;
      if (d.action == wake_action::later) due = now + d.delay;
    }
    auto d = decide_wake(s, false, now, 250ms);
    s = after_wake(s, d, now);
    if (d.action == wake_action::probe_now) ++probes;
    if (d.action == wake_action::later) due = now + d.delay;
  }
  BOOST_TEST(probes == 4);  // at 0, 250, 500 and 750 ms; the wake waiting at 999 ms fires at 1000
  BOOST_TEST(s.pending);
}

BOOST_AUTO_TEST_SUITE_END()
