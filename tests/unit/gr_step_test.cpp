// gr_step (issue 22): Group Replication's rules as table tests, values only. The group decides;
// these rows check that the operator only observes, records and asks the group: exactly-once
// bootstrap, one joiner at a time, the primary followed (FailoverObserved), a lying member
// outvoted, switchover through set_as_primary, and the status built from the agreed view.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/gr_step.hpp"
#include "actors/operator/decide/manual_fence.hpp"
#include "actors/operator/decide/planned_failover.hpp"
#include "tests/unit/group_step_fixture.hpp"

#include <memory>
#include <set>

using namespace br;
using namespace std::chrono_literals;
using group_step_test::rep;

namespace {

const std::string G = "aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee";
const std::map<std::string, std::string> uuid = {{"a", "11111111-0000-4000-8000-00000000000a"},
                                                 {"b", "11111111-0000-4000-8000-00000000000b"},
                                                 {"c", "11111111-0000-4000-8000-00000000000c"}};

struct row {
  std::string site, state, role;
};

/// A report of `site` whose member lists `rows` (its own view of the group).
site_report member(const std::string& site, std::vector<row> rows, const std::string& view = "v:1",
                   const std::string& group = G) {
  bool primary = false;
  std::string self = "OFFLINE";
  for (const auto& r : rows)
    if (r.site == site) {
      self = r.state;
      primary = r.state == "ONLINE" && r.role == "PRIMARY";
    }
  auto r = rep(site, primary ? site_state::writable : site_state::read_only);
  auto& g = r.probe.gr;
  g.plugin_loaded = true;
  g.member_id = uuid.at(site);
  g.group_name = group;
  g.self_state = self;
  g.view_id = self == "OFFLINE" ? "" : view;
  for (const auto& x : rows) g.rows.push_back({uuid.at(x.site), x.site, 3306, x.state, x.role, "9.7.4"});
  r.probe.server_uuid = uuid.at(site);
  return r;
}

site_report offline(const std::string& site) { return member(site, {{site, "OFFLINE", ""}}); }

site_report down(const std::string& site) { return rep(site, site_state::unreachable); }

struct gr_fixture : group_step_test::group_fixture {
  gr_fixture() {
    rules.gr.enabled = true;
    rules.gr.designated = "a";
    rules.gr.generated_name = G;
    for (auto& s : rules.sites) rules.gr.local_address[s] = s + ":33061";
    rules.gr.max_switchover_delay = 30s;
  }
  std::set<std::string> seen;  ///< every Event reason emitted so far
  void run(group_input in) {
    auto r = gr_step(rules, st, in, clock);
    st = std::move(r.state);
    effects = std::move(r.effects);
    answer = std::move(r.answer);
    for (const auto& e : all<effect::emit>()) seen.insert(e.event.reason);
  }
  bool saw(const std::string& reason) const { return seen.count(reason) > 0; }
  void load(durable_state d = {}) { run(input::loaded{std::move(d)}); }
  void store_ok() { run(input::persisted{true, ""}); }
  void report(site_report r) { run(input::report{std::move(r)}); }
  std::vector<effect::gr_command> commands() const { return all<effect::gr_command>(); }
  void done(const std::string& site, mysql_op op, bool ok = true) {
    mysql_outcome o;
    o.ok = ok;
    if (!ok) {
      o.error_kind = "server_error";
      o.error = "boom";
    }
    run(input::gr_done{site, op, o});
  }
  /// A durable state of a bootstrapped group with `active` at epoch 3 and a view of `size`.
  static durable_state running(const std::string& active, uint64_t size = 3) {
    durable_state d;
    d.view = {3, active, "", 1, {}};
    d.gr.group_name = G;
    d.gr.bootstrapped = true;
    d.gr.observed_view_max = size;
    d.gr.bootstrap_started = "a";
    return d;
  }
  /// Every member ONLINE, `primary` PRIMARY, reported by everyone.
  void all_online(const std::string& primary, const std::string& view = "v:3") {
    std::vector<row> rows;
    for (auto& s : rules.sites) rows.push_back({s, "ONLINE", s == primary ? "PRIMARY" : "SECONDARY"});
    for (auto& s : rules.sites) report(member(s, rows, view));
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_step_rules)

BOOST_AUTO_TEST_CASE(bootstrap_persists_name_and_member_before_the_start) {
  gr_fixture f;
  f.rules.gr.ssl_ca = "/etc/mysql/tls/ca.crt";  // spec.tls: the members verify (messages/gr_tls.hpp)
  f.load();
  f.report(offline("b"));
  f.report(offline("c"));
  BOOST_TEST(f.commands().empty());  // the designated member a has not answered yet
  f.report(offline("a"));
  // First the record: the group name and the member a bootstrap starts on; no command yet.
  auto next = f.persisted_next();
  BOOST_TEST(next.gr.group_name == G);
  BOOST_TEST(next.gr.bootstrap_started == "a");
  BOOST_TEST(!next.gr.bootstrapped);
  BOOST_TEST(f.commands().empty());
  f.store_ok();
  auto cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u);
  BOOST_TEST(cmds[0].site == "a");
  BOOST_TEST((cmds[0].op == mysql_op::gr_bootstrap));
  BOOST_TEST(cmds[0].settings.group_name == G);
  BOOST_TEST(cmds[0].settings.local_address == "a:33061");
  BOOST_TEST(cmds[0].settings.group_seeds == "a:33061,b:33061,c:33061");
  BOOST_TEST(cmds[0].settings.ssl_ca == "/etc/mysql/tls/ca.crt");
  // While it runs, nothing else is sent.
  f.report(offline("b"));
  BOOST_TEST(f.commands().empty());
  f.done("a", mysql_op::gr_bootstrap);
  // a is ONLINE PRIMARY of a one-member group: bootstrapped (sticky) and the view follows it.
  f.advance(5s);
  f.report(member("a", {{"a", "ONLINE", "PRIMARY"}}));
  next = f.persisted_next();
  BOOST_TEST(next.gr.bootstrapped);
  BOOST_TEST(next.gr.observed_view_max == 1u);
  BOOST_TEST(next.view.active_site == "a");
  BOOST_TEST(next.view.epoch == 1u);
  f.store_ok();
  BOOST_TEST(f.has_event("GroupBootstrapped"));
  BOOST_TEST(f.has_event("PrimaryObserved"));
}

BOOST_AUTO_TEST_CASE(never_a_second_bootstrap) {
  struct case_row {
    const char* name;
    durable_state durable;
    std::vector<site_report> reports;
    const char* note;  // expected in status.groupReplication.message
  };
  durable_state bootstrapped = gr_fixture::running("a");
  durable_state started;  // a START was sent by an earlier operator, no group seen since
  started.gr.group_name = G;
  started.gr.bootstrap_started = "a";
  const case_row rows[] = {
      {"bootstrapped, every member OFFLINE (total outage)",
       bootstrapped,
       {offline("a"), offline("b"), offline("c")},
       "quorum lost: 0 ONLINE, 2 needed of 3"},  // Blocked: only a recovery request acts
      {"started before, a member does not answer",
       started,
       {offline("a"), offline("b"), down("c")},
       "waiting until every member answers (c does not)"},
      {"designated member unreachable",
       {},
       {down("a"), offline("b"), offline("c")},
       "designated member a is unreachable"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      gr_fixture f;
      f.load(r.durable);
      bool sent = false;
      for (const auto& rep : r.reports) {
        f.report(rep);
        for (auto& c : f.commands()) sent = sent || c.op == mysql_op::gr_bootstrap;
        BOOST_TEST(f.all<effect::persist>().empty());
      }
      BOOST_TEST(!sent);
      auto s = gr_status_of(f.rules, f.st);
      BOOST_TEST(s.message.find(r.note) != std::string::npos, s.message);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_group_found_unrecorded_is_adopted_not_bootstrapped) {
  gr_fixture f;
  f.load();  // the operator died between START and recording bootstrapped
  f.report(member("a", {{"a", "ONLINE", "PRIMARY"}}));
  auto next = f.persisted_next();
  BOOST_TEST(next.gr.bootstrapped);
  BOOST_TEST(next.view.active_site == "a");
  for (auto& c : f.commands()) BOOST_TEST((c.op != mysql_op::gr_bootstrap));
}

BOOST_AUTO_TEST_CASE(the_first_bootstrap_needs_every_member_and_their_data) {
  struct row {
    const char* name;
    std::vector<site_report> reports;
    const char* note;
  };
  auto holding = [](site_report r, const std::string& set) {
    r.probe.gtid_executed = set;
    return r;
  };
  const std::string X = "11111111-2222-4333-8444-555555555555";
  const row rows[] = {
      {"a member does not answer (it may be in a group)",
       {offline("a"), offline("b"), down("c")},
       "waiting until every member answers (c does not)"},
      {"a member holds transactions the bootstrap member lacks",
       {holding(offline("a"), X + ":1-5"), holding(offline("b"), X + ":1-9"), offline("c")},
       "b holds transactions a lacks"},
      // Issue 23: a member restored from a backup of group G, and G pinned again: the new group
      // would reuse G's GTIDs.
      {"the bootstrap member already holds transactions of the group's name",
       {holding(offline("a"), G + ":1-75"), offline("b"), offline("c")},
       "a already holds transactions of group"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      gr_fixture f;
      f.load();
      for (const auto& rep : r.reports) {
        f.report(rep);
        BOOST_TEST(f.all<effect::persist>().empty());
        BOOST_TEST(f.commands().empty());
      }
      auto s = gr_status_of(f.rules, f.st);
      BOOST_TEST(s.message.find(r.note) != std::string::npos, s.message);
    }
  }
  // The bootstrap member holding a superset is fine.
  gr_fixture f;
  f.load();
  f.report(holding(offline("b"), X + ":1-5"));
  f.report(offline("c"));
  f.report(holding(offline("a"), X + ":1-9"));
  BOOST_TEST(f.persisted_next().gr.bootstrap_started == "a");
  // A member restored from group X's backup bootstraps a group under another name (G here).
  gr_fixture restored;
  restored.load();
  restored.report(offline("b"));
  restored.report(offline("c"));
  restored.report(holding(offline("a"), X + ":1-75"));
  BOOST_TEST(restored.persisted_next().gr.group_name == G);
  BOOST_TEST(!restored.saw("BootstrapRefused"));
}

BOOST_AUTO_TEST_CASE(an_adopted_group_keeps_the_name_its_members_report) {
  gr_fixture f;
  f.rules.gr.generated_name = "cccccccc-cccc-4ccc-8ccc-cccccccccccc";  // this coordinator's own
  f.load();  // no record: the group was made before this state existed
  std::vector<row> rows = {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}};
  f.report(member("a", rows, "v:2"));
  f.report(member("b", rows, "v:2"));
  BOOST_TEST_REQUIRE(f.st.persisting.has_value());
  BOOST_TEST(f.st.persisting_next.gr.group_name == G);
  BOOST_TEST(f.st.persisting_next.gr.bootstrapped);
  f.store_ok();
  BOOST_TEST(gr_status_of(f.rules, f.st).view_known);
}

BOOST_AUTO_TEST_CASE(the_mode_is_immutable_either_way) {
  // Async history, now run as Group Replication: nothing is done.
  gr_fixture f;
  durable_state async_history;
  async_history.view = {4, "a", "", 1, {}};
  f.load(async_history);
  for (auto& s : f.rules.sites) f.report(offline(s));
  BOOST_TEST(f.saw("ReplicationModeChanged"));
  BOOST_TEST(f.commands().empty());
  BOOST_TEST(f.all<effect::persist>().empty());
  // A Group Replication record, now run by the async rules: nothing is done either.
  group_step_test::group_fixture a;
  a.load(gr_fixture::running("a"));
  BOOST_TEST(a.has_event("ReplicationModeChanged"));
  a.report(rep("a", site_state::writable));
  a.report(rep("b", site_state::read_only));
  BOOST_TEST(a.all<effect::persist>().empty());
  BOOST_TEST(a.fenced().empty());
}

BOOST_AUTO_TEST_CASE(members_join_one_at_a_time) {
  gr_fixture f;
  f.load(gr_fixture::running("a", 1));
  f.report(member("a", {{"a", "ONLINE", "PRIMARY"}}));
  f.report(offline("b"));
  auto cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u);
  BOOST_TEST(cmds[0].site == "b");
  BOOST_TEST((cmds[0].op == mysql_op::gr_start));
  f.report(offline("c"));
  BOOST_TEST(f.commands().empty());  // one command at a time
  f.done("b", mysql_op::gr_start);
  f.report(offline("c"));
  BOOST_TEST(f.commands().empty());  // quiet for two poll intervals after a command
  f.advance(5s);
  // b is RECOVERING (cloning): c waits (the gate admits nobody while someone recovers).
  std::vector<row> view = {{"a", "ONLINE", "PRIMARY"}, {"b", "RECOVERING", "SECONDARY"}};
  f.report(member("a", view, "v:2"));
  f.report(member("b", view, "v:2"));
  f.report(offline("c"));
  BOOST_TEST(f.commands().empty());
  // b ONLINE: c is admitted.
  view = {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}};
  f.report(member("a", view, "v:2"));
  BOOST_TEST(f.persisted_next().gr.observed_view_max == 2u);  // the sticky max grew
  f.store_ok();
  f.report(member("b", view, "v:2"));  // c's last report is OFFLINE: admitted now
  cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u);
  BOOST_TEST(cmds[0].site == "c");
  BOOST_TEST(f.st.durable.gr.observed_view_max == 2u);
}

BOOST_AUTO_TEST_CASE(the_groups_election_is_followed_never_made) {
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  BOOST_TEST(f.all<effect::persist>().empty());
  // a is killed: while it is still listed UNREACHABLE PRIMARY nobody is the primary.
  std::vector<row> unreachable = {{"a", "UNREACHABLE", "PRIMARY"},
                                  {"b", "ONLINE", "SECONDARY"},
                                  {"c", "ONLINE", "SECONDARY"}};
  f.report(down("a"));
  f.report(member("b", unreachable, "v:3"));
  f.report(member("c", unreachable, "v:3"));
  BOOST_TEST(f.all<effect::persist>().empty());
  auto s = gr_status_of(f.rules, f.st);
  BOOST_TEST(s.primary_member.empty(), s.message << " / " << s.primary_member);
  BOOST_TEST(s.view_known, s.message);
  for (auto& e : f.effects) {  // the operator neither fences nor promotes
    BOOST_TEST(!std::holds_alternative<effect::fence>(e));
    BOOST_TEST(!std::holds_alternative<effect::start_executor>(e));
  }
  // The group expels a and elects b.
  std::vector<row> elected = {{"b", "ONLINE", "PRIMARY"}, {"c", "ONLINE", "SECONDARY"}};
  f.report(member("b", elected, "v:4"));
  f.report(member("c", elected, "v:4"));
  auto next = f.persisted_next();
  BOOST_TEST(next.view.active_site == "b");
  BOOST_TEST(next.view.epoch == 4u);
  BOOST_TEST(next.gr.observed_view_max == 3u);  // never shrinks
  f.store_ok();
  BOOST_TEST(f.has_event("FailoverObserved"));
  BOOST_TEST(f.st.view.active_site == "b");
  s = gr_status_of(f.rules, f.st);
  BOOST_TEST(s.primary_member == "b");
  BOOST_TEST(s.has_quorum);  // 2 of the 3 the group ever had
  BOOST_TEST(s.members[0].state == "UNKNOWN");  // a is not in the agreed view
}

BOOST_AUTO_TEST_CASE(a_lying_member_is_outvoted_and_a_lone_one_decides_nothing) {
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  // c claims it is the primary; a and b agree on a.
  std::vector<row> lie = {{"a", "ONLINE", "SECONDARY"}, {"b", "ONLINE", "SECONDARY"},
                          {"c", "ONLINE", "PRIMARY"}};
  f.report(member("c", lie, "v:3"));
  BOOST_TEST(f.all<effect::persist>().empty());
  auto s = gr_status_of(f.rules, f.st);
  BOOST_TEST(s.view_known);
  BOOST_TEST(s.primary_member == "a");
  // Only c answers (a and b unreachable): no verdict, nothing acted on.
  f.report(down("a"));
  f.report(down("b"));
  f.report(member("c", {{"c", "ONLINE", "PRIMARY"}}, "v:9"));
  BOOST_TEST(f.all<effect::persist>().empty());
  s = gr_status_of(f.rules, f.st);
  BOOST_TEST(!s.view_known);
  BOOST_TEST(f.st.view.active_site == "a");
}

BOOST_AUTO_TEST_CASE(a_member_of_another_group_is_not_counted) {
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  const std::string other = "99999999-0000-4000-8000-000000000000";
  f.report(member("c", {{"c", "ONLINE", "PRIMARY"}}, "w:1", other));
  BOOST_TEST(f.saw("ForeignGroup"));
  BOOST_TEST(f.all<effect::persist>().empty());
  BOOST_TEST(gr_status_of(f.rules, f.st).primary_member == "a");
}

BOOST_AUTO_TEST_CASE(switchover_is_the_groups_set_as_primary) {
  struct rej {
    const char* target;
    const char* answer;
  };
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  for (const auto& r : {rej{"zz", "rejected: zz is not a site"},
                        rej{"a", "accepted: skipped: a is already the primary"}}) {
    f.run(input::switchover{r.target});
    BOOST_TEST_REQUIRE(f.answer.has_value());
    BOOST_TEST(f.answer->find(r.answer) == 0u, *f.answer);
  }
  f.run(input::switchover{"c"});
  BOOST_TEST(f.answer->find("accepted: switchover to c") == 0u, *f.answer);
  auto cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u);
  BOOST_TEST((cmds[0].op == mysql_op::gr_set_primary));
  BOOST_TEST(cmds[0].member_id == uuid.at("c"));
  f.run(input::switchover{"b"});
  BOOST_TEST(f.answer->find("rejected: a switchover to c is running") == 0u, *f.answer);
  f.done("c", mysql_op::gr_set_primary);
  f.advance(5s);
  f.all_online("c");
  BOOST_TEST_REQUIRE(f.st.persisting.has_value());  // asked when the majority agreed
  BOOST_TEST(f.st.persisting_next.view.active_site == "c");
  f.store_ok();
  BOOST_TEST(f.has_event("SwitchoverCompleted"));
  BOOST_TEST(!f.has_event("FailoverObserved"));
  BOOST_TEST(f.st.gr.switchover_target.empty());
}

BOOST_AUTO_TEST_CASE(switchover_target_must_be_an_online_secondary_and_is_bounded) {
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  std::vector<row> rows = {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"},
                           {"c", "RECOVERING", "SECONDARY"}};
  for (auto& s : f.rules.sites) f.report(member(s, rows, "v:3"));
  f.run(input::switchover{"c"});
  BOOST_TEST(f.answer->find("rejected: c is not an ONLINE SECONDARY") == 0u, *f.answer);
  f.run(input::switchover{"b"});
  BOOST_TEST(f.answer->find("accepted") == 0u, *f.answer);
  f.done("b", mysql_op::gr_set_primary);
  f.advance(31s);  // maxSwitchoverDelay 30s; the group never moved
  for (auto& s : f.rules.sites) f.report(member(s, rows, "v:3"));
  BOOST_TEST(f.saw("SwitchoverTimedOut"));
  BOOST_TEST(f.st.gr.switchover_target.empty());
}

BOOST_AUTO_TEST_CASE(the_planned_failover_annotation_is_a_switchover) {
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  f.run(input::annotate{planned_failover_annotation, "b:maxLagWait=30s"});
  BOOST_TEST_REQUIRE(f.answer.has_value());
  BOOST_TEST(f.answer->find("accepted: switchover to b") == 0u, *f.answer);
  auto cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u);
  BOOST_TEST((cmds[0].op == mysql_op::gr_set_primary));
  BOOST_TEST(cmds[0].member_id == uuid.at("b"));
}

// Manual fence in GR mode (issue 23): STOP GROUP_REPLICATION, never below quorum (the PRIMARY may
// go: the group elects another); a fenced member is not started again until it is unfenced.
BOOST_AUTO_TEST_CASE(fencing_a_member_stops_it_and_is_refused_below_quorum) {
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  f.run(input::annotate{fence_request_key, "on:c"});
  BOOST_TEST(f.answer->find("accepted: fenced: c") == 0u, *f.answer);
  BOOST_TEST_REQUIRE(f.st.persisting.has_value());
  f.store_ok();
  BOOST_TEST(f.has_event("SiteFenced"));
  BOOST_TEST(f.all<effect::fence>().empty());  // not the async fence: the group's own leave
  f.advance(5s);
  std::vector<row> three = {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"},
                            {"c", "ONLINE", "SECONDARY"}};
  f.report(member("a", three, "v:3"));
  auto cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u, f.st.gr.note);
  BOOST_TEST(cmds[0].site == "c");
  BOOST_TEST((cmds[0].op == mysql_op::gr_stop));
  f.done("c", mysql_op::gr_stop);
  f.advance(5s);
  // c left: OFFLINE, the view has two members. It is not started again while fenced.
  std::vector<row> two = {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}};
  f.report(offline("c"));
  f.report(member("a", two, "v:4"));
  f.report(member("b", two, "v:4"));
  f.advance(5s);
  f.report(member("a", two, "v:4"));
  BOOST_TEST(f.commands().empty());
  BOOST_TEST(f.st.gr.command_site.empty());  // no START went to c at any report since
  // A second fence would leave one ONLINE member of three: refused with the quorum reason.
  f.run(input::annotate{fence_request_key, "on:b"});
  BOOST_TEST(f.answer->find("rejected: fencing b would leave 1 ONLINE, 2 needed of 3") == 0u,
             *f.answer);
  BOOST_TEST(f.saw("FenceRejected"));
  BOOST_TEST(!f.st.durable.manually_fenced.count("b"));
  // Unfenced: the provisioning gate starts it again.
  f.run(input::annotate{fence_request_key, "off:c"});
  BOOST_TEST(f.answer->find("accepted: unfenced: c") == 0u, *f.answer);
  f.store_ok();
  f.advance(5s);
  f.report(member("a", two, "v:4"));
  cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u, f.st.gr.note);
  BOOST_TEST(cmds[0].site == "c");
  BOOST_TEST((cmds[0].op == mysql_op::gr_start));
}

BOOST_AUTO_TEST_CASE(the_fenced_sites_annotation_is_held_to_the_quorum) {
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  f.run(input::annotate{fenced_sites_annotation, "b,c"});
  BOOST_TEST(f.answer->find("rejected: fencing c would leave 1 ONLINE") == 0u, *f.answer);
  BOOST_TEST(f.saw("FenceRejected"));
  BOOST_TEST(f.st.durable.manually_fenced.empty());
  f.run(input::annotate{fenced_sites_annotation, "b"});
  BOOST_TEST(f.answer->find("accepted: fenced: b") == 0u, *f.answer);
  f.store_ok();
  BOOST_TEST(f.st.durable.manually_fenced.count("b") == 1u);
  // The PRIMARY may be fenced instead: its graceful leave makes the group elect another.
  f.run(input::annotate{fenced_sites_annotation, "a"});
  BOOST_TEST(f.answer->find("accepted: fenced: a; unfenced: b") == 0u, *f.answer);
}

BOOST_AUTO_TEST_CASE(no_fence_without_an_agreed_view) {
  gr_fixture f;
  f.load(gr_fixture::running("a"));
  // Only a reports: one vote of three is no majority, the view is unknown.
  f.report(member("a", {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}, {"c", "ONLINE", "SECONDARY"}}));
  f.run(input::annotate{fence_request_key, "on:c"});
  BOOST_TEST(f.answer->find("rejected: the group's view is unknown") == 0u, *f.answer);
}

// Review finding H3: a server with another member's server_uuid (a copied auto.cnf) never takes
// that member's state, role or primary, whichever side of it in site order.
BOOST_AUTO_TEST_CASE(a_site_claiming_another_members_id_takes_nothing_of_it) {
  for (std::string liar : {"c", "a"}) {
    BOOST_TEST_CONTEXT("liar " << liar) {
      gr_fixture f;
      const std::string owner = liar == "c" ? "a" : "b";  // the member whose id is claimed
      f.load(gr_fixture::running(owner));
      std::vector<row> two;
      for (auto& s : f.rules.sites)
        if (s != liar) two.push_back({s, "ONLINE", s == owner ? "PRIMARY" : "SECONDARY"});
      auto fake = offline(liar);
      fake.probe.gr.member_id = uuid.at(owner);
      fake.probe.gr.rows = {{uuid.at(owner), liar, 3306, "OFFLINE", "", "9.7.4"}};
      fake.probe.server_uuid = uuid.at(owner);
      for (auto& s : f.rules.sites) {
        if (s == liar)
          f.report(fake);
        else
          f.report(member(s, two, "v:4"));
      }
      f.advance(5s);
      for (auto& s : f.rules.sites) {
        if (s == liar)
          f.report(fake);
        else
          f.report(member(s, two, "v:4"));
      }
      auto st = gr_status_of(f.rules, f.st);
      BOOST_TEST(st.view_known, st.message);
      BOOST_TEST(st.primary_member == owner);
      for (const auto& m : st.members)
        if (m.name == liar) BOOST_TEST(m.state != "ONLINE");
      BOOST_TEST(f.st.durable.view.active_site == owner);
      BOOST_TEST(!f.st.persisting.has_value());  // no FailoverObserved to the liar
      BOOST_TEST(f.saw("DuplicateMemberId"));
      BOOST_TEST(!f.saw("FailoverObserved"));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_failed_command_waits_before_the_next) {
  gr_fixture f;
  f.load(gr_fixture::running("a", 1));
  f.report(member("a", {{"a", "ONLINE", "PRIMARY"}}));
  f.report(offline("b"));
  BOOST_TEST_REQUIRE(f.commands().size() == 1u);
  f.done("b", mysql_op::gr_start, false);
  BOOST_TEST(f.has_event("MemberStartFailed"));
  f.advance(5s);
  f.report(offline("b"));
  BOOST_TEST(f.commands().empty());  // retry delay 10s
  f.advance(6s);
  f.report(offline("b"));
  BOOST_TEST(f.commands().size() == 1u);
}

BOOST_AUTO_TEST_CASE(spec_group_name_never_replaces_the_pinned_one) {
  gr_fixture f;
  f.rules.gr.spec_group_name = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  BOOST_TEST(f.saw("GroupNameMismatch"));
  BOOST_TEST(f.all<effect::persist>().empty());
  BOOST_TEST(f.commands().empty());
  // Observation goes on: the group's election is still followed; no command is sent.
  std::vector<row> elected = {{"b", "ONLINE", "PRIMARY"}, {"c", "ONLINE", "SECONDARY"}};
  f.report(down("a"));
  f.report(member("b", elected, "v:4"));
  f.report(member("c", elected, "v:4"));
  BOOST_TEST_REQUIRE(f.st.persisting.has_value());
  BOOST_TEST(f.st.persisting_next.view.active_site == "b");
  BOOST_TEST(f.st.persisting_next.gr.group_name == G);  // never the spec's new name
  f.store_ok();
  f.report(offline("a"));
  BOOST_TEST(f.commands().empty());  // a is not started into the group
}

// Acceptance 3 of issue 22: the operator is restarted at every point of a bootstrap (before and
// after each store write, with the write landed or lost) and must never start a second group, and
// `bootstrapped` must never go back. The world: a, b, c empty OFFLINE members; a bootstrap on a
// makes a ONLINE PRIMARY of a new group (a bootstrap sent while one exists would be a second group).
BOOST_AUTO_TEST_CASE(exactly_once_bootstrap_across_restarts_at_every_point) {
  int max_event = 0;
  for (int crash_at = 0; crash_at < 8; ++crash_at)
    for (bool landed : {false, true}) {
      BOOST_TEST_CONTEXT("crash at event " << crash_at << (landed ? ", its write landed" : "")) {
        bool group_exists = false;
        int bootstraps = 0, second_groups = 0;
        durable_state store;  // what the state store holds
        bool ever_bootstrapped = false;
        auto f = std::make_unique<gr_fixture>();
        f->load(store);
        int event = 0;
        bool crashed = false;
        auto world_report = [&](const std::string& site) {
          if (site == "a" && group_exists) return member("a", {{"a", "ONLINE", "PRIMARY"}});
          return offline(site);
        };
        for (int round = 0; round < 30 && !(group_exists && store.gr.bootstrapped); ++round) {
          for (const std::string site : {"a", "b", "c"}) {
            f->advance(1s);
            f->report(world_report(site));
            // Carry out the effects: writes (answered), bootstrap commands (applied to the world).
            for (int guard = 0; guard < 5; ++guard) {
              auto ps = f->all<effect::persist>();
              auto cs = f->commands();
              if (ps.empty() && cs.empty()) break;
              if (!cs.empty()) {
                ++event;
                bool crash = !crashed && event == crash_at;
                for (const auto& c : cs) {
                  if (c.op != mysql_op::gr_bootstrap || (crash && !landed)) continue;
                  ++bootstraps;
                  if (group_exists) ++second_groups;
                  group_exists = true;
                }
                if (crash) {  // the operator dies before the command's answer
                  crashed = true;
                  f = std::make_unique<gr_fixture>();
                  f->load(store);
                  break;
                }
                f->done(cs.back().site, cs.back().op);
                continue;
              }
              ++event;
              if (!crashed && event == crash_at) {
                // The operator dies while this write is in flight; it may or may not have landed.
                if (landed) store = ps.front().next;
                crashed = true;
                f = std::make_unique<gr_fixture>();
                f->load(store);
                break;
              }
              store = ps.front().next;
              BOOST_TEST(!(ever_bootstrapped && !store.gr.bootstrapped));  // never goes back
              ever_bootstrapped = ever_bootstrapped || store.gr.bootstrapped;
              f->store_ok();
            }
          }
        }
        BOOST_TEST(second_groups == 0);
        BOOST_TEST(bootstraps == 1);
        max_event = std::max(max_event, event);
        BOOST_TEST(group_exists);
        BOOST_TEST(store.gr.bootstrapped);
        BOOST_TEST(store.gr.group_name == G);
      }
    }
  // Every point was a crash point: the record, the command, the bootstrapped write (+ replays).
  BOOST_TEST(max_event >= 3);
}

BOOST_AUTO_TEST_CASE(sticky_records_never_go_back) {
  gr_durable before;
  before.group_name = G;
  before.bootstrapped = true;
  before.observed_view_max = 3;
  before.bootstrap_started = "a";
  gr_durable next;  // a change computed from a state that knew less
  next.group_name = "cccccccc-cccc-4ccc-8ccc-cccccccccccc";
  next.observed_view_max = 2;
  auto m = merge_gr(before, next);
  BOOST_TEST(m.group_name == G);
  BOOST_TEST(m.bootstrapped);
  BOOST_TEST(m.observed_view_max == 3u);
  BOOST_TEST(m.bootstrap_started == "a");
}

// -- Quorum loss and guarded recovery (issue 23) ----------------------------------------------

namespace {

/// a ONLINE PRIMARY alone in its own table, b and c UNREACHABLE there (b, c killed).
site_report lone(const std::string& site, const std::string& role = "PRIMARY") {
  std::vector<row> rows;
  for (const std::string s : {"a", "b", "c"})
    rows.push_back({s, s == site ? "ONLINE" : "UNREACHABLE", s == site ? role : "SECONDARY"});
  return member(site, rows, "v:3");
}

site_report with_gtid(site_report r, const std::string& set) {
  r.probe.gtid_executed = set;
  return r;
}

const std::string T = "11111111-2222-4333-8444-555555555555";

/// A 3-member group with a as PRIMARY, then b and c killed: a alone, Blocked.
void lose_quorum(gr_fixture& f) {
  f.load(gr_fixture::running("a"));
  f.all_online("a");
  f.report(down("b"));
  f.report(down("c"));
  f.report(with_gtid(lone("a"), T + ":1-9"));
}

/// The request `kubectl bloodraven group recover` sends: the id and the published plan's digest.
input::annotate confirmed(const gr_fixture& f, const std::string& id) {
  auto s = gr_status_of(f.rules, f.st);
  return {force_quorum_recovery_annotation,
          id + "@" + (s.recovery_plan && !s.recovery_plan->digest.empty() ? s.recovery_plan->digest
                                                                            : std::string{"none"})};
}

bool sent_any(const gr_fixture& f) { return !f.commands().empty() || !f.all<effect::persist>().empty(); }

}  // namespace

BOOST_AUTO_TEST_CASE(quorum_loss_is_blocked_once_and_nothing_is_done) {
  gr_fixture f;
  lose_quorum(f);
  auto s = gr_status_of(f.rules, f.st);
  BOOST_TEST(s.phase == "Blocked");
  BOOST_TEST(s.message.find("quorum lost: 1 ONLINE, 2 needed of 3") != std::string::npos, s.message);
  BOOST_TEST_REQUIRE(s.recovery_plan.has_value());
  BOOST_TEST(s.recovery_plan->kind == "forceMembers");
  BOOST_TEST(s.recovery_plan->survivor == "a");
  BOOST_TEST(s.recovery_plan->at_risk.size() == 2u);
  BOOST_TEST(f.saw("QuorumLost"));
  // Many rounds later, with a fence and a switchover asked for: one Event, no command, no write.
  f.seen.clear();
  for (int i = 0; i < 20; ++i) {
    f.advance(1s);
    f.report(with_gtid(lone("a"), T + ":1-9"));
    BOOST_TEST(!sent_any(f));
    f.report(down(i % 2 ? "b" : "c"));
    BOOST_TEST(!sent_any(f));
  }
  f.run(input::annotate{fenced_sites_annotation, "b"});
  BOOST_TEST(!sent_any(f));
  f.run(input::annotate{planned_failover_annotation, "b"});
  BOOST_TEST(!sent_any(f));
  BOOST_TEST(!f.saw("QuorumLost"));  // once per episode
  // b comes back OFFLINE: still Blocked (a is alone in a minority view), it is not started.
  f.advance(30s);
  f.report(offline("b"));
  f.report(with_gtid(lone("a"), T + ":1-9"));
  BOOST_TEST(!sent_any(f));
  BOOST_TEST(gr_status_of(f.rules, f.st).phase == "Blocked");
}

BOOST_AUTO_TEST_CASE(recovery_forces_the_survivor_records_first_and_resets_the_denominator) {
  gr_fixture f;
  lose_quorum(f);
  f.run(confirmed(f, "req-1"));
  BOOST_TEST_REQUIRE(f.answer.has_value());
  BOOST_TEST(f.answer->rfind("accepted: force the membership to the surviving PRIMARY a", 0) == 0u,
             *f.answer);
  // Recorded before anything is sent.
  BOOST_TEST(f.commands().empty());
  auto next = f.persisted_next();
  BOOST_TEST(next.gr.recovery_request == "req-1");
  BOOST_TEST(next.gr.recovery_kind == "forceMembers");
  BOOST_TEST(next.gr.recovery_site == "a");
  BOOST_TEST(next.gr.recovery_open);
  BOOST_TEST(f.has_event("QuorumRecoveryStarted"));
  f.store_ok();
  auto cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u);
  BOOST_TEST((cmds[0].op == mysql_op::gr_force_members));
  BOOST_TEST(cmds[0].site == "a");
  BOOST_TEST(cmds[0].settings.local_address == "a:33061");  // the survivor's own address only
  BOOST_TEST(gr_status_of(f.rules, f.st).phase == "Recovering");
  // The same request again (handed twice): not acted on.
  f.run(confirmed(f, "req-1"));
  BOOST_TEST(f.answer->rfind("rejected: request req-1 was already taken", 0) == 0u, *f.answer);
  BOOST_TEST(!sent_any(f));
  f.done("a", mysql_op::gr_force_members);
  next = f.persisted_next();
  BOOST_TEST(!next.gr.recovery_open);
  BOOST_TEST(next.gr.observed_view_max == 1u);  // the forced view: the survivor alone
  f.store_ok();
  BOOST_TEST(f.saw("QuorumRecovered"));
  // a alone in a one-member view: the view is agreed, the group runs again.
  f.advance(5s);
  f.report(with_gtid(member("a", {{"a", "ONLINE", "PRIMARY"}}, "v:4"), T + ":1-9"));
  auto s = gr_status_of(f.rules, f.st);
  BOOST_TEST(s.phase == "Running", s.message);
  BOOST_TEST(s.view_known);
  BOOST_TEST(!s.recovery_plan.has_value());
  BOOST_TEST_REQUIRE(s.last_recovery.has_value());
  BOOST_TEST(s.last_recovery->result == "QuorumRecovered");
  // The killed members come back OFFLINE: they are started, one at a time.
  f.report(offline("b"));
  cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u, gr_status_of(f.rules, f.st).message);
  BOOST_TEST((cmds[0].op == mysql_op::gr_start));
  BOOST_TEST(cmds[0].site == "b");
}

BOOST_AUTO_TEST_CASE(recovery_is_refused_with_an_event_when_not_provably_safe) {
  struct case_row {
    const char* name;
    std::vector<site_report> reports;  // after a 3-member group with a PRIMARY lost b and c
    const char* reason;
  };
  const case_row rows[] = {
      {"the group has quorum", {with_gtid(member("a", {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}}, "v:4"), T + ":1-9"),
                                with_gtid(member("b", {{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}}, "v:4"), T + ":1-9")},
       "the group has quorum"},
      {"total outage, c unreachable", {with_gtid(offline("a"), T + ":1-9"), with_gtid(offline("b"), T + ":1-5"), down("c")},
       "c cannot be read"},
      {"total outage, incomparable sets",
       {with_gtid(offline("a"), T + ":1-9"), with_gtid(offline("b"), T + ":1-5,aaaaaaaa-2222-4333-8444-555555555555:1"),
        with_gtid(offline("c"), T + ":1-5")},
       "incomparable"},
      {"an OFFLINE member holds what the survivor lacks",
       {with_gtid(lone("a"), T + ":1-5"), with_gtid(offline("b"), T + ":1-9"), down("c")},
       "b holds transactions a lacks"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      gr_fixture f;
      lose_quorum(f);
      for (const auto& rep : r.reports) f.report(rep);
      f.seen.clear();
      f.run(confirmed(f, "req-2"));
      BOOST_TEST_REQUIRE(f.answer.has_value());
      BOOST_TEST(f.answer->rfind("rejected: ", 0) == 0u, *f.answer);
      BOOST_TEST(f.answer->find(r.reason) != std::string::npos, *f.answer);
      BOOST_TEST(!sent_any(f));
      BOOST_TEST(f.saw("QuorumRecoveryRefused"));
      auto s = gr_status_of(f.rules, f.st);
      BOOST_TEST_REQUIRE(s.last_recovery.has_value());
      BOOST_TEST(s.last_recovery->result == "QuorumRecoveryRefused");
    }
  }
}

BOOST_AUTO_TEST_CASE(recovery_acts_only_on_the_plan_that_was_confirmed) {
  // Review M5: a person confirms the plan shown (its digest); when the plan the operator
  // computes at the request differs, it refuses with an Event and sends nothing.
  gr_fixture f;
  lose_quorum(f);
  auto shown = gr_status_of(f.rules, f.st).recovery_plan;
  BOOST_TEST_REQUIRE(shown.has_value());
  const auto stale = confirmed(f, "req-5");
  // b comes back OFFLINE holding what a holds: the same survivor, but what b may lose changed.
  f.report(with_gtid(offline("b"), T + ":1-9"));
  auto now = gr_status_of(f.rules, f.st).recovery_plan;
  BOOST_TEST_REQUIRE(now.has_value());
  BOOST_TEST(now->survivor == shown->survivor);
  BOOST_TEST(now->digest != shown->digest);
  f.seen.clear();
  f.run(stale);
  BOOST_TEST_REQUIRE(f.answer.has_value());
  BOOST_TEST(f.answer->find("rejected: the plan changed since it was confirmed (confirmed " +
                            shown->digest + ", now " + now->digest) == 0u, *f.answer);
  BOOST_TEST(!sent_any(f));
  BOOST_TEST(f.saw("QuorumRecoveryRefused"));
  BOOST_TEST(gr_status_of(f.rules, f.st).last_recovery->result == "QuorumRecoveryRefused");
  // A request naming no plan at all: refused the same way.
  f.seen.clear();
  f.run(input::annotate{force_quorum_recovery_annotation, "req-6"});
  BOOST_TEST(f.answer->find("must name the plan it confirms") != std::string::npos, *f.answer);
  BOOST_TEST(!sent_any(f));
  BOOST_TEST(f.saw("QuorumRecoveryRefused"));
  // The new plan confirmed: accepted.
  f.run(confirmed(f, "req-7"));
  BOOST_TEST(f.answer->rfind("accepted: force the membership to the surviving PRIMARY a", 0) == 0u,
             *f.answer);
  BOOST_TEST(f.persisted_next().gr.recovery_request == "req-7");
}

BOOST_AUTO_TEST_CASE(total_outage_rebootstraps_the_dominant_member_only) {
  gr_fixture f;
  lose_quorum(f);
  f.report(with_gtid(offline("a"), T + ":1-7"));
  f.report(with_gtid(offline("b"), T + ":1-9"));
  f.report(with_gtid(offline("c"), T + ":1-8"));
  BOOST_TEST(!sent_any(f));  // Blocked: no automatic bootstrap
  auto s = gr_status_of(f.rules, f.st);
  BOOST_TEST_REQUIRE(s.recovery_plan.has_value());
  BOOST_TEST(s.recovery_plan->kind == "rebootstrap");
  f.run(confirmed(f, "2026-11-27T00:40:00Z"));
  BOOST_TEST(f.answer->rfind("accepted: bootstrap the group again from b", 0) == 0u, *f.answer);
  BOOST_TEST(f.persisted_next().gr.recovery_kind == "rebootstrap");
  f.store_ok();
  auto cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u);
  BOOST_TEST((cmds[0].op == mysql_op::gr_bootstrap));
  BOOST_TEST(cmds[0].site == "b");
  BOOST_TEST(cmds[0].settings.group_name == G);  // the same group, never a new name
  f.done("b", mysql_op::gr_bootstrap);
  BOOST_TEST(f.persisted_next().gr.observed_view_max == 1u);
  f.store_ok();
  // b ONLINE alone: a and c are started from it, one at a time.
  f.advance(5s);
  f.report(with_gtid(member("b", {{"b", "ONLINE", "PRIMARY"}}, "v:9"), T + ":1-9"));
  BOOST_TEST(f.persisted_next().view.active_site == "b");  // the view follows the new primary
  f.store_ok();
  f.advance(3s);  // an unchanged report is evaluated again after a poll interval
  f.report(with_gtid(offline("a"), T + ":1-7"));
  cmds = f.commands();
  BOOST_TEST_REQUIRE(cmds.size() == 1u, gr_status_of(f.rules, f.st).message);
  BOOST_TEST((cmds[0].op == mysql_op::gr_start));
  BOOST_TEST(cmds[0].site == "a");
}

BOOST_AUTO_TEST_CASE(a_failed_recovery_closes_the_record_without_the_reset) {
  gr_fixture f;
  lose_quorum(f);
  f.run(confirmed(f, "req-3"));
  f.store_ok();
  f.done("a", mysql_op::gr_force_members, false);
  auto next = f.persisted_next();
  BOOST_TEST(!next.gr.recovery_open);
  BOOST_TEST(next.gr.observed_view_max == 3u);
  f.store_ok();
  BOOST_TEST(f.saw("QuorumRecoveryFailed"));
  BOOST_TEST(gr_status_of(f.rules, f.st).phase == "Blocked");
}

BOOST_AUTO_TEST_CASE(an_interrupted_recovery_is_never_sent_again_only_cleared) {
  for (bool took_effect : {true, false}) {
    BOOST_TEST_CONTEXT("force took effect before the restart: " << took_effect) {
      gr_fixture f;
      auto d = gr_fixture::running("a");
      d.gr.recovery_request = "req-4";
      d.gr.recovery_kind = "forceMembers";
      d.gr.recovery_site = "a";
      d.gr.recovery_open = true;
      f.load(d);  // the operator restarted between the record and the end of the command
      f.report(down("b"));
      f.report(down("c"));
      f.report(took_effect ? member("a", {{"a", "ONLINE", "PRIMARY"}}, "v:4") : lone("a"));
      auto cmds = f.commands();
      BOOST_TEST_REQUIRE(cmds.size() == 1u);
      BOOST_TEST((cmds[0].op == mysql_op::gr_force_members));
      BOOST_TEST(cmds[0].settings.local_address.empty());  // only the reset to ''
      BOOST_TEST(f.saw("QuorumRecoveryInterrupted"));
      f.done("a", mysql_op::gr_force_members);
      auto next = f.persisted_next();
      BOOST_TEST(!next.gr.recovery_open);
      BOOST_TEST(next.gr.observed_view_max == (took_effect ? 1u : 3u));
      f.store_ok();
      f.run(input::annotate{force_quorum_recovery_annotation, "req-4@0123456789abcdef"});  // its id again
      BOOST_TEST(f.answer->find("already taken") != std::string::npos, *f.answer);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
