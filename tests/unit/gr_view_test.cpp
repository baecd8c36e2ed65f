// Table tests for Group Replication's pure decisions (decide/gr_view): the cross-validated view
// (a lying or stale member outvoted, a lone or isolated member never believed, ties unknown), the
// exactly-once bootstrap and the one-joiner-at-a-time provisioning gate.
#include "actors/operator/decide/gr_view.hpp"

#include <boost/test/unit_test.hpp>

namespace {

using namespace br::gr;
using ms = member_state;
using mr = member_role;

member_row row(const std::string& id, ms s, mr r = mr::none) { return {id, "10.0.0." + id, 3306, s, r}; }

member_report rep(const std::string& who, const std::string& view, std::vector<member_row> rows) {
  return {who, true, view, std::move(rows)};
}
member_report down(const std::string& who) { return {who, false, "", {}}; }

// The healthy 3-member table: a PRIMARY, b and c SECONDARY, all ONLINE.
std::vector<member_row> healthy(const std::string& primary = "a") {
  std::vector<member_row> t;
  for (const char* id : {"a", "b", "c"}) {
    t.push_back(row(id, ms::online, id == primary ? mr::primary : mr::secondary));
  }
  return t;
}

struct view_row {
  const char* name;
  std::vector<member_report> reports;
  std::size_t configured;
  std::size_t observed_before;
  bool known;
  std::string primary;
  bool quorum;
  std::size_t observed_after;
  std::vector<std::string> outvoted;
  std::string reason_has;
};

BOOST_AUTO_TEST_SUITE(decisions_gr_view)

BOOST_AUTO_TEST_CASE(cross_validated_view) {
  const auto after_switch = healthy("b");
  const std::vector<member_row> killed_a = {row("a", ms::unreachable, mr::primary), row("b", ms::online, mr::secondary),
                                            row("c", ms::online, mr::secondary)};
  const std::vector<member_row> expelled_a = {row("b", ms::online, mr::primary), row("c", ms::online, mr::secondary)};
  auto lie_c = healthy("c");
  const std::vector<view_row> rows = {
      {"all three agree", {rep("a", "v1", healthy()), rep("b", "v1", healthy()), rep("c", "v1", healthy())},
       3, 3, true, "a", true, 3, {}, "3 of 3 votes agree on view v1, primary a"},
      {"a lying member is outvoted", {rep("a", "v1", healthy()), rep("b", "v1", healthy()), rep("c", "v1", lie_c)},
       3, 3, true, "a", true, 3, {"c"}, "outvoted 1"},
      {"a stale member (old view) is outvoted",
       {rep("a", "v2", after_switch), rep("b", "v2", after_switch), rep("c", "v1", healthy())},
       3, 3, true, "b", true, 3, {"c"}, "primary b"},
      {"same table, different view id: the stale view loses",
       {rep("a", "v2", healthy()), rep("b", "v2", healthy()), rep("c", "v1", healthy())},
       3, 3, true, "a", true, 3, {"c"}, "view v2"},
      {"a lone member claiming a one-member group is not believed",
       {rep("a", "vx", {row("a", ms::online, mr::primary)}), down("b"), down("c")},
       3, 3, false, "", false, 3, {}, "not a majority of 3 members"},
      {"a second group bootstrapped under the same name (seen for real) is outvoted",
       {rep("a", "v4", healthy("b")), rep("b", "v4", healthy("b")), rep("c", "w1", {row("c", ms::online, mr::primary)})},
       3, 3, true, "b", true, 3, {"c"}, "outvoted 1"},
      {"one reachable member of a healthy group cannot be cross-validated",
       {rep("a", "v1", healthy()), down("b"), down("c")},
       3, 3, false, "", false, 3, {}, "not a majority of 3 members"},
      {"an isolated member (its view not quorate) does not vote",
       {rep("a", "v1", {row("a", ms::online, mr::primary), row("b", ms::unreachable, mr::secondary),
                        row("c", ms::unreachable, mr::secondary)}),
        rep("b", "v2", expelled_a), rep("c", "v2", expelled_a)},
       3, 3, true, "b", true, 3, {}, "2 of 2 votes agree on view v2, primary b"},
      {"killed primary before expel: listed UNREACHABLE PRIMARY, no primary",
       {down("a"), rep("b", "v1", killed_a), rep("c", "v1", killed_a)},
       3, 3, true, "", true, 3, {}, "no ONLINE PRIMARY"},
      {"after the expel: new primary, observedViewMax stays 3",
       {down("a"), rep("b", "v2", expelled_a), rep("c", "v2", expelled_a)},
       3, 3, true, "b", true, 3, {}, "primary b"},
      {"tie between two claims", {rep("a", "v1", healthy()), rep("c", "v1", lie_c), down("b")},
       3, 3, false, "", false, 3, {}, "tie"},
      {"a reporter counted once however often it reports",
       {rep("c", "v1", lie_c), rep("c", "v1", lie_c), rep("a", "v1", healthy()), down("b")},
       3, 3, false, "", false, 3, {}, "tie"},
      {"an unreachable report's rows are ignored",
       {member_report{"c", false, "v1", lie_c}, rep("a", "v1", healthy()), rep("b", "v1", healthy())},
       3, 3, true, "a", true, 3, {}, "2 of 2 votes"},
      {"nothing reachable", {down("a"), down("b"), down("c")}, 3, 3, false, "", false, 3, {},
       "no reachable member is ONLINE in a quorate view (0 of 3 reachable)"},
      {"quorum lost: 2 ONLINE of 5 are not quorate",
       {rep("a", "v9", {row("a", ms::online, mr::primary), row("b", ms::online, mr::secondary),
                        row("c", ms::unreachable, mr::secondary), row("d", ms::unreachable, mr::secondary),
                        row("e", ms::unreachable, mr::secondary)}),
        rep("b", "v9", {row("a", ms::online, mr::primary), row("b", ms::online, mr::secondary),
                        row("c", ms::unreachable, mr::secondary), row("d", ms::unreachable, mr::secondary),
                        row("e", ms::unreachable, mr::secondary)})},
       5, 5, false, "", false, 5, {}, "no reachable member is ONLINE in a quorate view"},
      {"observedViewMax grows with a larger agreed view",
       {rep("a", "v1", healthy()), rep("b", "v1", healthy()), rep("c", "v1", healthy())},
       3, 2, true, "a", true, 3, {}, "primary a"},
      {"observedViewMax is sticky: 2 ONLINE of a 5-max is no quorum",
       {rep("b", "v7", expelled_a), rep("c", "v7", expelled_a)},
       3, 5, false, "", false, 5, {}, "not a majority of 5 members"},
      {"a RECOVERING member keeps quorum with 2 of 3 ONLINE",
       {rep("a", "v3", {row("a", ms::online, mr::primary), row("b", ms::online, mr::secondary),
                        row("c", ms::recovering, mr::secondary)}),
        rep("b", "v3", {row("a", ms::online, mr::primary), row("b", ms::online, mr::secondary),
                        row("c", ms::recovering, mr::secondary)})},
       3, 3, true, "a", true, 3, {}, "primary a"},
      {"two ONLINE primaries in the agreed table",
       {rep("a", "v1", {row("a", ms::online, mr::primary), row("b", ms::online, mr::primary)}),
        rep("b", "v1", {row("a", ms::online, mr::primary), row("b", ms::online, mr::primary)})},
       2, 2, false, "", false, 2, {}, "multi-primary"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      const auto v = cross_validate(r.reports, r.configured, r.observed_before);
      BOOST_TEST(v.known == r.known, v.reason);
      BOOST_TEST(v.primary_member == r.primary);
      BOOST_TEST(v.has_quorum == r.quorum);
      BOOST_TEST(v.observed_view_max == r.observed_after);
      BOOST_TEST((v.outvoted == r.outvoted));
      BOOST_TEST(v.reason.find(r.reason_has) != std::string::npos, v.reason);
      if (!v.known) BOOST_TEST(v.members.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(members_carry_state_role_and_reachability) {
  const std::vector<member_row> killed_a = {row("a", ms::unreachable, mr::primary), row("b", ms::online, mr::secondary),
                                            row("c", ms::online, mr::secondary)};
  const auto v = cross_validate({down("a"), rep("c", "v1", killed_a), rep("b", "v1", killed_a)}, 3, 3);
  BOOST_TEST_REQUIRE(v.known, v.reason);
  BOOST_TEST_REQUIRE(v.members.size() == 3u);
  BOOST_TEST(v.members[0].member_id == "a");
  BOOST_TEST((v.members[0].state == ms::unreachable && v.members[0].role == mr::primary));
  BOOST_TEST(!v.members[0].reachable);
  BOOST_TEST((v.members[1].member_id == "b" && v.members[1].reachable && v.members[1].state == ms::online));
  BOOST_TEST(v.members[2].host == "10.0.0.c");
  BOOST_TEST(v.view_id == "v1");
  BOOST_TEST(v.votes == 2u);
}

BOOST_AUTO_TEST_CASE(state_and_role_text) {
  BOOST_TEST((parse_member_state("ONLINE") == ms::online));
  BOOST_TEST((parse_member_state("RECOVERING") == ms::recovering));
  BOOST_TEST((parse_member_state("UNREACHABLE") == ms::unreachable));
  BOOST_TEST((parse_member_state("online") == ms::unknown));
  BOOST_TEST((parse_member_role("PRIMARY") == mr::primary));
  BOOST_TEST((parse_member_role("") == mr::none));
  BOOST_TEST(to_string(ms::error) == "ERROR");
  BOOST_TEST(to_string(mr::secondary) == "SECONDARY");
}

// ---- bootstrap ----------------------------------------------------------------------------------

bootstrap_probe offline(const std::string& n) { return {n, true, true, ms::offline, 1, 0}; }
bootstrap_probe online(const std::string& n, std::size_t rows = 1) { return {n, true, true, ms::online, rows, rows}; }
bootstrap_probe unreachable(const std::string& n) { return {n, false, false, ms::unknown, 0, 0}; }

struct boot_row {
  const char* name;
  bootstrap_facts f;
  bootstrap_action action;
  std::string member;
  bool mark;
  std::string reason_has;
};

BOOST_AUTO_TEST_CASE(exactly_once_bootstrap) {
  const auto b = bootstrap_action::bootstrap;
  const auto j = bootstrap_action::join;
  const auto w = bootstrap_action::wait;
  bootstrap_probe no_plugin{"a", true, false, ms::unknown, 0, 0};
  bootstrap_probe a_recovering{"a", true, true, ms::recovering, 1, 0};
  const std::vector<boot_row> rows = {
      {"fresh group: the designated member bootstraps", {false, "a", {offline("a"), offline("b"), offline("c")}},
       b, "a", false, "a bootstraps"},
      {"a non-designated member down does not block it", {false, "a", {offline("a"), unreachable("b"), offline("c")}},
       b, "a", false, "a bootstraps"},
      {"bootstrapped and every member OFFLINE (total outage): never again", {true, "a", {offline("a"), offline("b"), offline("c")}},
       w, "", false, "second group"},
      {"bootstrapped, group ONLINE: join", {true, "a", {online("a", 2), online("b", 2), offline("c")}},
       j, "", false, "plain START"},
      {"operator died after START, before its write: adopt, mark, never again",
       {false, "a", {online("a"), offline("b"), offline("c")}}, j, "", true, "reports a group"},
      {"another member reports an ONLINE group", {false, "a", {offline("a"), online("b"), offline("c")}},
       j, "", true, "member b reports a group"},
      {"the designated member is mid-START (RECOVERING): wait, no mark",
       {false, "a", {a_recovering, offline("b"), offline("c")}}, w, "", false, "waiting for it to be ONLINE"},
      {"designated member unreachable", {false, "a", {unreachable("a"), offline("b"), offline("c")}},
       w, "", false, "a is unreachable"},
      {"designated member without the plugin", {false, "a", {no_plugin, offline("b")}}, w, "", false,
       "plugin loaded"},
      {"no designated member", {false, "", {offline("a")}}, w, "", false, "no designated"},
      {"designated member not declared", {false, "z", {offline("a")}}, w, "", false, "no designated"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      const auto d = decide_gr_bootstrap(r.f);
      BOOST_TEST((d.action == r.action), d.reason);
      BOOST_TEST(d.member == r.member);
      BOOST_TEST(d.mark_bootstrapped == r.mark);
      BOOST_TEST(d.reason.find(r.reason_has) != std::string::npos, d.reason);
    }
  }
}

// ---- provisioning gate --------------------------------------------------------------------------

group_view view_of(std::vector<member_row> rows) {
  std::vector<member_report> reps;
  for (const auto& m : rows) {
    if (m.state == ms::online) reps.push_back(rep(m.member_id, "v1", rows));
  }
  return cross_validate(reps, 3, 3);
}

joiner_probe probe(const std::string& n, ms s, bool reachable = true) { return {n, "id-" + n, reachable, s}; }

BOOST_AUTO_TEST_CASE(one_joiner_at_a_time) {
  const auto two_online = view_of({row("id-a", ms::online, mr::primary), row("id-b", ms::online, mr::secondary)});
  const auto b_recovering = view_of({row("id-a", ms::online, mr::primary), row("id-b", ms::online, mr::secondary),
                                     row("id-c", ms::recovering, mr::secondary)});
  const auto all_online = view_of({row("id-a", ms::online, mr::primary), row("id-b", ms::online, mr::secondary),
                                   row("id-c", ms::online, mr::secondary)});
  BOOST_TEST_REQUIRE(two_online.known, two_online.reason);
  BOOST_TEST_REQUIRE(b_recovering.known, b_recovering.reason);
  group_view unknown;
  unknown.reason = "tie";
  group_view no_quorum = two_online;
  no_quorum.has_quorum = false;
  group_view no_donor = two_online;  // defensive: a known, quorate view without an ONLINE member
  no_donor.members.clear();
  struct gate_row {
    const char* name;
    group_view v;
    std::vector<joiner_probe> members;
    std::string admit;
    std::string reason_has;
  };
  const std::vector<gate_row> rows = {
      {"quorum, donor, nobody recovering: admit the first OFFLINE", two_online,
       {probe("a", ms::online), probe("b", ms::online), probe("c", ms::offline)}, "c", "admit c"},
      {"declared order decides", view_of({row("id-a", ms::online, mr::primary), row("id-x", ms::online, mr::secondary)}),
       {probe("a", ms::online), probe("b", ms::offline), probe("c", ms::offline)}, "b", "admit b"},
      {"a member RECOVERING in the view: none", b_recovering,
       {probe("a", ms::online), probe("b", ms::online), probe("c", ms::recovering)}, "", "one joiner at a time"},
      {"RECOVERING in the view while the operator cannot read that member: none", b_recovering,
       {probe("a", ms::online), probe("b", ms::online), probe("c", ms::unknown, false), probe("d", ms::offline)}, "",
       "member id-c is RECOVERING"},
      {"a joiner RECOVERING not yet in the view: none", two_online,
       {probe("a", ms::online), probe("b", ms::online), probe("c", ms::recovering), probe("d", ms::offline)}, "",
       "c is RECOVERING"},
      {"view unknown: none", unknown, {probe("c", ms::offline)}, "", "group view unknown: tie"},
      {"no quorum: none", no_quorum, {probe("c", ms::offline)}, "", "no quorum"},
      {"no ONLINE donor: none", no_donor, {probe("c", ms::offline)}, "", "no ONLINE donor"},
      {"unreachable and ERROR members are skipped", two_online,
       {probe("a", ms::online), probe("b", ms::online), probe("c", ms::error), probe("d", ms::offline, false), probe("e", ms::offline)},
       "e", "admit e"},
      {"only an ERROR member left: nothing, with why", two_online,
       {probe("a", ms::online), probe("b", ms::online), probe("c", ms::error)}, "", "not OFFLINE: c ERROR"},
      {"everyone ONLINE: nothing to admit", all_online,
       {probe("a", ms::online), probe("b", ms::online), probe("c", ms::online)}, "", "nothing to admit"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      const auto d = gr_provision_gate(r.v, r.members);
      BOOST_TEST(d.admit == r.admit, d.reason);
      BOOST_TEST(d.reason.find(r.reason_has) != std::string::npos, d.reason);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
