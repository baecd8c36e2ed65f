// The Group Replication ordered update's pure decision (decide/gr_rollout.hpp): which member
// restarts next, the switchover before the primary, and every refusal.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/gr_rollout.hpp"

using namespace br;
using namespace br::gr;

namespace {

gtid_set gtids(const std::string& text) { return *gtid_set::parse(text); }

const std::string G = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa";

rollout_member member(const std::string& site, member_role role, bool drifted = false) {
  rollout_member m;
  m.site = site;
  m.role = role;
  m.state = member_state::online;
  m.drifted = drifted;
  m.workload_ready = true;
  m.last_seen_ms = 50'000;
  m.gtid_executed = gtids(G + ":1-100");
  return m;
}

rollout_member P(const std::string& s, bool d = true) { return member(s, member_role::primary, d); }
rollout_member S(const std::string& s, bool d = true) { return member(s, member_role::secondary, d); }

rollout_member with_state(rollout_member m, member_state st, member_role r = member_role::none) {
  m.state = st;
  m.role = r;
  return m;
}

rollout_member not_ready(rollout_member m) {
  m.workload_ready = false;
  return m;
}

rollout_facts facts(std::vector<rollout_member> members) {
  rollout_facts f;
  f.group_size = members.size();
  f.members = std::move(members);
  f.view_known = true;
  f.has_quorum = true;
  f.now_ms = 60'000;
  return f;
}

struct row {
  std::string name;
  rollout_facts in;
  rollout_move move;
  std::string site;   // restart / switchover target ("" for wait / idle)
  std::string phase;
  std::string reason_has;  // a piece of the reason ("" = not checked)
};

void check(const std::vector<row>& rows) {
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto c = next_gr_rollout(r.in);
      BOOST_TEST(to_string(c.move) == to_string(r.move));
      BOOST_TEST(c.site == r.site);
      BOOST_TEST(c.phase == r.phase);
      BOOST_TEST(c.reason.find(r.reason_has) != std::string::npos, c.reason);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_rollout)

BOOST_AUTO_TEST_CASE(which_member_next) {
  auto ahead = [](rollout_member m, const std::string& set) {
    m.gtid_executed = gtids(set);
    return m;
  };
  auto unknown_set = [](rollout_member m) {
    m.gtid_executed.reset();
    return m;
  };
  check({
      {"nothing drifted: idle, no phase", facts({P("a", false), S("b", false), S("c", false)}),
       rollout_move::idle, "", "", ""},
      {"secondaries first, in declared order", facts({P("a"), S("b"), S("c")}),
       rollout_move::restart, "b", "UpdatingSecondary", "SECONDARY b"},
      {"the primary first in declared order is skipped for a secondary",
       facts({P("a"), S("b", false), S("c")}), rollout_move::restart, "c", "UpdatingSecondary", ""},
      {"only the primary left: switchover to a rolled secondary",
       facts({P("a"), S("b", false), S("c", false)}), rollout_move::switchover, "b", "HandingOver",
       "before restarting a"},
      {"switchover to the secondary holding the most transactions",
       facts({P("a"), S("b", false), ahead(S("c", false), G + ":1-120")}), rollout_move::switchover,
       "c", "HandingOver", ""},
      {"an unknown set ranks after a known one",
       facts({P("a"), unknown_set(S("b", false)), S("c", false)}), rollout_move::switchover, "c",
       "HandingOver", ""},
      {"a secondary never polled is no switchover target",
       [] {
         auto f = facts({P("a"), S("b", false), S("c", false)});
         f.members[1].last_seen_ms = 0;
         return f;
       }(),
       rollout_move::switchover, "c", "HandingOver", ""},
      {"after the switchover the old primary is a secondary and restarts",
       facts({S("a"), P("b", false), S("c", false)}), rollout_move::restart, "a",
       "UpdatingSecondary", ""},
      {"a drifted member already out of the group restarts first (quorum kept)",
       facts({P("a"), S("b"), with_state(S("c"), member_state::offline)}), rollout_move::restart,
       "c", "UpdatingSecondary", "not in the group"},
      {"a drifted member in ERROR restarts first",
       facts({P("a", false), S("b", false), with_state(S("c"), member_state::error)}),
       rollout_move::restart, "c", "UpdatingSecondary", "ERROR"},
      {"five members all ONLINE: the first drifted secondary",
       facts({P("a"), S("b"), S("c"), S("d"), S("e")}), rollout_move::restart, "b",
       "UpdatingSecondary", "5 of 5 ONLINE"},
  });
}

BOOST_AUTO_TEST_CASE(refusals) {
  auto no_view = facts({P("a"), S("b"), S("c")});
  no_view.view_known = false;
  auto no_quorum = facts({P("a"), S("b"), S("c")});
  no_quorum.has_quorum = false;
  auto blocked = facts({P("a"), S("b"), S("c")});
  blocked.blocked = true;
  auto handing = facts({P("a"), S("b", false), S("c", false)});
  handing.switchover_target = "b";
  auto larger_view = facts({P("a"), S("b"), S("c")});
  larger_view.group_size = 5;  // the group once agreed on a view of 5: 3 ONLINE is its bare majority
  check({
      {"no agreed view", no_view, rollout_move::wait, "", "Blocked", "no majority agrees"},
      {"a view without quorum", no_quorum, rollout_move::wait, "", "Blocked", "no quorum"},
      {"quorum lost (Blocked phase)", blocked, rollout_move::wait, "", "Blocked", "lost its quorum"},
      {"a switchover in flight", handing, rollout_move::wait, "", "HandingOver", "making b"},
      {"a member RECOVERING",
       facts({P("a"), S("b"), with_state(S("c", false), member_state::recovering)}),
       rollout_move::wait, "", "WaitingForMember", "c is RECOVERING"},
      {"a drifted member RECOVERING is not restarted either",
       facts({P("a"), S("b", false), with_state(S("c"), member_state::recovering)}),
       rollout_move::wait, "", "WaitingForMember", "c is RECOVERING"},
      {"a member not ONLINE (not drifted): nobody leaves",
       facts({P("a"), S("b"), with_state(S("c", false), member_state::unreachable,
                                         member_role::secondary)}),
       rollout_move::wait, "", "Blocked", "c is not ONLINE (UNREACHABLE SECONDARY)"},
      {"a member not in the view at all",
       facts({P("a"), S("b"), with_state(S("c", false), member_state::unknown)}),
       rollout_move::wait, "", "Blocked", "c is not ONLINE"},
      {"the rest would not keep the majority of the largest view", larger_view,
       rollout_move::wait, "", "Blocked", "would leave 2 of 5 ONLINE, below the majority 3"},
      {"two members: restarting either loses the majority", facts({P("a"), S("b")}),
       rollout_move::wait, "", "Blocked", "would leave 1 of 2 ONLINE, below the majority 2"},
      {"one member: the primary cannot be handed over", facts({P("a")}), rollout_move::wait, "",
       "Blocked", "no rolled, ready ONLINE SECONDARY"},
      {"the primary while every secondary is still drifted and blocked: never the primary",
       facts({P("a"), S("b")}), rollout_move::wait, "", "Blocked", "restarting b"},
      {"only the primary drifted but no secondary rolled and polled",
       [] {
         auto f = facts({P("a"), S("b", false), S("c", false)});
         f.members[1].last_seen_ms = 0;
         f.members[2].last_seen_ms = 0;
         return f;
       }(),
       rollout_move::wait, "", "Blocked", "no rolled, ready ONLINE SECONDARY"},
      {"a rolled member's pod not ready (a restart this reconciler forgot): nobody else restarts",
       facts({P("a"), not_ready(S("b", false)), S("c")}), rollout_move::wait, "",
       "WaitingForMember", "b's pod is not ready"},
      {"the same before a switchover", facts({P("a"), not_ready(S("b", false)), S("c", false)}),
       rollout_move::wait, "", "WaitingForMember", "b's pod is not ready"},
      {"a drifted member whose pod is not ready is restarted (out of the group)",
       facts({P("a", false), S("b", false),
              not_ready(with_state(S("c"), member_state::offline))}),
       rollout_move::restart, "c", "UpdatingSecondary", "not in the group"},
  });
}

BOOST_AUTO_TEST_CASE(a_restarted_member_must_be_back_before_the_next) {
  struct back_row {
    std::string name;
    bool ready;
    member_state state;
    int64_t last_seen;
    int64_t now;
    std::string view;  // the agreed view id now (restarted in view "v7")
    rollout_move move;
    std::string phase;
    bool stopped;
  };
  // b was restarted at t=40000 ms; c is drifted and would be next.
  std::vector<back_row> rows = {
      {"pod not ready", false, member_state::online, 50'000, 60'000, "v9", rollout_move::wait,
       "WaitingForMember", false},
      {"ONLINE but not polled since the restart", true, member_state::online, 39'000, 60'000,
       "v9", rollout_move::wait, "WaitingForMember", false},
      {"ONLINE, polled, pod ready, but the same view: not restarted yet", true,
       member_state::online, 50'000, 60'000, "v7", rollout_move::wait, "WaitingForMember", false},
      {"OFFLINE after the restart", true, member_state::offline, 50'000, 60'000, "v8",
       rollout_move::wait, "WaitingForMember", false},
      {"RECOVERING", true, member_state::recovering, 50'000, 60'000, "v9", rollout_move::wait,
       "WaitingForMember", false},
      {"not back within the bound: stopped", true, member_state::offline, 50'000, 640'000, "v8",
       rollout_move::wait, "Blocked", true},
      {"back ONLINE after the restart: the next one", true, member_state::online, 50'000, 60'000,
       "v9", rollout_move::restart, "UpdatingSecondary", false},
      {"back ONLINE long after the bound: the rollout goes on", true, member_state::online,
       700'000, 700'001, "v9", rollout_move::restart, "UpdatingSecondary", false},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto f = facts({P("a"), S("b", false), S("c")});
      f.members[1].workload_ready = r.ready;
      f.members[1].state = r.state;
      f.members[1].last_seen_ms = r.last_seen;
      f.rolling = "b";
      f.rolled_at_ms = 40'000;
      f.rolled_view_id = "v7";
      f.view_id = r.view;
      f.now_ms = r.now;
      auto c = next_gr_rollout(f);
      BOOST_TEST(to_string(c.move) == to_string(r.move));
      BOOST_TEST(c.phase == r.phase);
      BOOST_TEST(c.stopped == r.stopped);
      BOOST_TEST(c.rolling_done == (r.move == rollout_move::restart));
      if (r.move == rollout_move::restart) BOOST_TEST(c.site == "c");
      if (r.stopped) BOOST_TEST(c.reason.find("did not come back ONLINE within 600 s") != std::string::npos, c.reason);
    }
  }
  // The last one back: idle, and the rolling member is forgotten.
  auto f = facts({P("a", false), S("b", false), S("c", false)});
  f.rolling = "b";
  f.rolled_at_ms = 40'000;
  auto c = next_gr_rollout(f);
  BOOST_TEST((c.move == rollout_move::idle));
  BOOST_TEST(c.rolling_done);
  BOOST_TEST(c.phase.empty());
}

BOOST_AUTO_TEST_SUITE_END()
