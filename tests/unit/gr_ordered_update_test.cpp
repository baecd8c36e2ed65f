// A Group Replication group's rollout facts from one reconcile pass (kube/reconcile/gr_ordered_update):
// drift and readiness from the worker's report, state and role from the agreed view only, the last
// poll and gtid_executed from the coordinator's status; and the choice as the reconciler's step.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/reconcile/gr_ordered_update.hpp"
#include "actors/operator/kube/reconcile/reconcile_plan.hpp"

using namespace br;
using nlohmann::json;

namespace {

config::group_spec three_sites() {
  config::group_spec spec;
  for (const char* n : {"a", "b", "c"}) {
    config::site_spec s;
    s.name = n;
    spec.sites.push_back(s);
  }
  return spec;
}

config::group_status gr_status(bool view_known) {
  config::group_status st;
  config::group_replication_status g;
  g.view_known = view_known;
  g.has_quorum = view_known;
  g.view_id = "17:5";
  g.phase = "Running";
  g.observed_view_max = 5;
  g.members = {{"a", "u-a", "ONLINE", "PRIMARY", true},
               {"b", "u-b", "ONLINE", "SECONDARY", true},
               {"c", "u-c", "RECOVERING", "SECONDARY", true}};
  st.group_replication = g;
  config::site_status b;
  b.name = "b";
  b.last_seen = config::timestamp(std::chrono::milliseconds(1'735'689'605'000));
  b.gtid_executed = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa:1-10";
  config::site_status c;
  c.name = "c";  // never polled: no last poll, no set
  st.sites = {b, c};
  return st;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_ordered_update)

BOOST_AUTO_TEST_CASE(facts_from_the_report_and_the_status) {
  json report = {{"state", "ok"},
                 {"sites",
                  {{{"name", "a"}, {"ready", true}, {"drift", {"config"}}},
                   {{"name", "b"}, {"ready", true}, {"drift", json::array()}},
                   {{"name", "c"}, {"ready", false}, {"drift", {"image"}}}}}};
  auto f = gr_rollout_facts(three_sites(), report, gr_status(true));
  BOOST_REQUIRE(f.members.size() == 3u);
  BOOST_TEST(f.view_known);
  BOOST_TEST(f.has_quorum);
  BOOST_TEST(!f.blocked);
  BOOST_TEST(f.view_id == "17:5");
  BOOST_TEST(f.group_size == 5u);  // the largest agreed view counts when larger than the spec
  BOOST_TEST(f.members[0].drifted);
  BOOST_TEST(f.members[0].workload_ready);
  BOOST_TEST((f.members[0].role == gr::member_role::primary));
  BOOST_TEST(!f.members[1].drifted);
  BOOST_TEST((f.members[1].state == gr::member_state::online));
  BOOST_TEST(f.members[1].last_seen_ms == 1'735'689'605'000);
  BOOST_TEST(f.members[1].gtid_executed.has_value());
  BOOST_TEST(f.members[2].drifted);
  BOOST_TEST(!f.members[2].workload_ready);
  BOOST_TEST((f.members[2].state == gr::member_state::recovering));
  BOOST_TEST(f.members[2].last_seen_ms == 0);
  BOOST_TEST(!f.members[2].gtid_executed.has_value());
  BOOST_TEST(!f.members[0].gtid_executed.has_value());  // no site status at all
}

BOOST_AUTO_TEST_CASE(no_agreed_view_gives_no_member_state) {
  auto st = gr_status(false);
  auto f = gr_rollout_facts(three_sites(), json::object(), st);
  BOOST_TEST(!f.view_known);
  BOOST_TEST(f.view_id.empty());
  for (const auto& m : f.members) BOOST_TEST((m.state == gr::member_state::unknown));
  st.group_replication->view_known = true;
  st.group_replication->phase = "Blocked";
  BOOST_TEST(gr_rollout_facts(three_sites(), json::object(), st).blocked);
  st.group_replication->phase = "Recovering";
  BOOST_TEST(gr_rollout_facts(three_sites(), json::object(), st).blocked);
}

BOOST_AUTO_TEST_CASE(the_choice_as_a_rollout_step) {
  gr::rollout_choice restart{gr::rollout_move::restart, "b", "restarting b", "UpdatingSecondary", true, false};
  auto s = gr_rollout_step(restart);
  BOOST_TEST((s.action == rollout_action::roll));
  BOOST_TEST(s.sites == std::vector<std::string>{"b"});
  BOOST_TEST(s.rolling_done);
  gr::rollout_choice handover{gr::rollout_move::switchover, "c", "handing", "HandingOver", false, false};
  s = gr_rollout_step(handover);
  BOOST_TEST((s.action == rollout_action::switchover));
  BOOST_TEST(s.target == "c");
  BOOST_TEST(s.sites.empty());
  gr::rollout_choice stopped{gr::rollout_move::wait, "", "b did not come back", "Blocked", false, true};
  s = gr_rollout_step(stopped);
  BOOST_TEST((s.action == rollout_action::wait));
  BOOST_TEST(s.stopped);
  BOOST_TEST(s.phase == "Blocked");
}

// Scale-down (decide/gr_scale_down.hpp): a restart or switchover waits while a member leaves.
BOOST_AUTO_TEST_CASE(a_leave_in_progress_holds_the_rollout) {
  auto st = gr_status(true);
  gr::rollout_choice restart;
  restart.move = gr::rollout_move::restart;
  restart.site = "b";
  restart.phase = "UpdatingSecondary";
  // Nobody leaving: unchanged.
  BOOST_TEST((hold_for_scale_down(restart, st).move == gr::rollout_move::restart));
  st.group_replication->leaving = {{"d", "u-d", "Stopping", ""}};
  auto held = hold_for_scale_down(restart, st);
  BOOST_TEST((held.move == gr::rollout_move::wait));
  BOOST_TEST(held.phase == "WaitingForMember");
  BOOST_TEST(held.reason.find("d is leaving") != std::string::npos, held.reason);
  gr::rollout_choice handover;
  handover.move = gr::rollout_move::switchover;
  handover.site = "c";
  BOOST_TEST((hold_for_scale_down(handover, st).move == gr::rollout_move::wait));
  // A wait or idle stays what it was; a Stopped leave holds nothing.
  gr::rollout_choice idle;
  BOOST_TEST((hold_for_scale_down(idle, st).move == gr::rollout_move::idle));
  st.group_replication->leaving = {{"d", "u-d", "Stopped", ""}};
  BOOST_TEST((hold_for_scale_down(restart, st).move == gr::rollout_move::restart));
}

// Only a site the status shows Stopped and the spec no longer declares loses its workload.
BOOST_AUTO_TEST_CASE(left_sites_and_their_objects) {
  json status = {{"groupReplication",
                  {{"leaving", json::array({{{"site", "d"}, {"phase", "Stopped"}},
                                            {{"site", "e"}, {"phase", "Stopping"}},
                                            {{"site", "f"}, {"phase", "Waiting"}},
                                            {{"site", "a"}, {"phase", "Stopped"}},
                                            {{"phase", "Stopped"}}})}}}};
  BOOST_TEST((gr_left_sites(status, {"a", "b", "c"}) == std::vector<std::string>{"d"}));
  BOOST_TEST(gr_left_sites(json::object(), {"a"}).empty());
  BOOST_TEST(gr_left_sites(json{{"groupReplication", {{"leaving", "x"}}}}, {"a"}).empty());
  BOOST_TEST(gr_left_sites(json(nullptr), {"a"}).empty());
  auto item = [](const std::string& name, const std::string& site) {
    json labels = json::object();
    if (!site.empty()) labels["shipstream.io/site"] = site;
    return json{{"metadata", {{"name", name}, {"labels", labels}}}};
  };
  json list = {{"items", json::array({item("mysql-g-a", "a"), item("mysql-g-d", "d"),
                                      item("mysql-g-primary", ""), item("mysql-g-e", "e")})}};
  BOOST_TEST((site_objects(list, {"d"}) == std::vector<std::string>{"mysql-g-d"}));
  BOOST_TEST(site_objects(list, {}).empty());
}

BOOST_AUTO_TEST_SUITE_END()
