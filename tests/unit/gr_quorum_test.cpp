// Group Replication quorum arithmetic and the guarded recovery choice (decide/gr_quorum.hpp,
// issue 23 acceptance 2) as table tests: PDB maxUnavailable, size checks, fence and scale-down
// refusals, quorum loss, force-members vs re-bootstrap, incomparable and unknown GTID sets.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/gr_quorum.hpp"

using namespace br::gr;

namespace {

const std::string U = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
const std::string V = "4a22fb58-82db-22f2-af44-d91bb0530673";

/// "O" ONLINE, "R" RECOVERING, "F" OFFLINE, "E" ERROR, "X" unreachable; role "P"/"S"/"";
/// gtid "" = unknown, otherwise a set (use "-" for the empty set).
quorum_member m(const std::string& site, const std::string& st, const std::string& role = "S",
                const std::string& gtid = "") {
  quorum_member q;
  q.site = site;
  q.reachable = st != "X";
  q.answered = q.reachable;
  q.state = st == "O" ? member_state::online
            : st == "R" ? member_state::recovering
            : st == "F" ? member_state::offline
            : st == "E" ? member_state::error
                        : member_state::unreachable;
  q.role = role == "P" ? member_role::primary : role == "S" ? member_role::secondary : member_role::none;
  if (!gtid.empty()) q.gtid_executed = *br::gtid_set::parse(gtid == "-" ? "" : gtid);
  return q;
}

std::string upto(int n) { return U + ":1-" + std::to_string(n); }

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_quorum)

BOOST_AUTO_TEST_CASE(quorum_and_pdb_arithmetic) {
  struct row {
    std::size_t n, quorum, max_unavailable;
  };
  for (auto r : std::vector<row>{{0, 1, 0}, {1, 1, 0}, {2, 2, 0}, {3, 2, 1}, {4, 3, 1},
                                 {5, 3, 2}, {6, 4, 2}, {7, 4, 3}, {9, 5, 4}}) {
    BOOST_TEST_CONTEXT("n=" << r.n) {
      BOOST_TEST(quorum_of(r.n) == r.quorum);
      BOOST_TEST(pdb_max_unavailable(r.n) == r.max_unavailable);
    }
  }
}

BOOST_AUTO_TEST_CASE(group_size_checks) {
  BOOST_TEST((check_group_size(0).verdict == size_verdict::rejected));
  BOOST_TEST((check_group_size(1).verdict == size_verdict::ok));
  BOOST_TEST((check_group_size(3).verdict == size_verdict::ok));
  auto four = check_group_size(4);
  BOOST_TEST((four.verdict == size_verdict::even_warning));
  BOOST_TEST(four.message.find("tolerate 1 failure") != std::string::npos, four.message);
  BOOST_TEST((check_group_size(2).verdict == size_verdict::even_warning));
  BOOST_TEST((check_group_size(10).verdict == size_verdict::rejected));
}

BOOST_AUTO_TEST_CASE(fence_refusals) {
  struct row {
    std::string name;
    std::vector<quorum_member> members;
    std::string site;
    bool allowed;
    std::string reason_has;
  };
  const std::vector<row> rows = {
      {"a secondary of a healthy 3", {m("a", "O", "P"), m("b", "O"), m("c", "O")}, "b", true, "2 ONLINE"},
      {"a second secondary: below quorum", {m("a", "O", "P"), m("b", "F", "", "-"), m("c", "O")}, "c", false,
       "below quorum"},
      {"the primary: the group elects another", {m("a", "O", "P"), m("b", "O"), m("c", "O")}, "a", true,
       "2 ONLINE"},
      {"the primary of a group at its quorum", {m("a", "O", "P"), m("b", "O"), m("c", "X")}, "a", false,
       "below quorum"},
      {"an unreachable member takes nothing", {m("a", "O", "P"), m("b", "O"), m("c", "X")}, "c", true, ""},
      {"a secondary when one is already down", {m("a", "O", "P"), m("b", "O"), m("c", "X")}, "b", false,
       "1 ONLINE, 2 needed of 3"},
      {"5 members, two fenced already", {m("a", "O", "P"), m("b", "O"), m("c", "O"), m("d", "F"), m("e", "F")},
       "c", false, "below quorum"},
      {"5 members, one down", {m("a", "O", "P"), m("b", "O"), m("c", "O"), m("d", "O"), m("e", "X")}, "d", true,
       "3 ONLINE, 3 needed of 5"},
      {"already fenced", {m("a", "O", "P"), m("b", "O"), m("c", "O")}, "b", true, ""},
      {"unknown member", {m("a", "O", "P"), m("b", "O"), m("c", "O")}, "z", false, "unknown member"},
  };
  for (auto r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      if (r.name == "already fenced") r.members[1].fenced = true;
      auto p = may_fence(r.members, r.members.size(), r.site);
      BOOST_TEST(p.allowed == r.allowed, p.reason);
      BOOST_TEST(p.reason.find(r.reason_has) != std::string::npos, p.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(scale_down_refusals) {
  struct row {
    std::string name;
    std::vector<quorum_member> members;
    std::string site;
    bool allowed;
    std::string reason_has;
  };
  const std::vector<row> rows = {
      {"3 -> 2, all online", {m("a", "O", "P"), m("b", "O"), m("c", "O")}, "c", true, "2 ONLINE, 2 needed of 2"},
      {"3 -> 2, one other down", {m("a", "O", "P"), m("b", "X"), m("c", "O")}, "c", false, "below quorum"},
      {"3 -> 2, the removed one is down", {m("a", "O", "P"), m("b", "O"), m("c", "X")}, "c", true, ""},
      {"2 -> 1, both online", {m("a", "O", "P"), m("b", "O")}, "b", true, "1 ONLINE, 1 needed of 1"},
      {"no quorum: a leave cannot be agreed", {m("a", "O", "P"), m("b", "X"), m("c", "X")}, "c", false,
       "no quorum"},
      {"the primary leaves, the group elects", {m("a", "O", "P"), m("b", "O"), m("c", "O")}, "a", true, ""},
      {"the last member", {m("a", "O", "P")}, "a", false, "last member"},
      {"5 -> 4 with one down", {m("a", "O", "P"), m("b", "O"), m("c", "O"), m("d", "O"), m("e", "X")}, "d",
       true, "3 ONLINE, 3 needed of 4"},
      {"5 -> 4 with two down", {m("a", "O", "P"), m("b", "O"), m("c", "O"), m("d", "X"), m("e", "X")}, "c",
       false, "below quorum"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto p = may_remove(r.members, r.members.size(), r.site);
      BOOST_TEST(p.allowed == r.allowed, p.reason);
      BOOST_TEST(p.reason.find(r.reason_has) != std::string::npos, p.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(quorum_loss) {
  BOOST_TEST(!quorum_lost({m("a", "O", "P"), m("b", "O"), m("c", "X")}, 3));
  BOOST_TEST(quorum_lost({m("a", "O", "P"), m("b", "X"), m("c", "X")}, 3));
  BOOST_TEST(quorum_lost({m("a", "O", "P"), m("b", "R"), m("c", "X")}, 3));  // RECOVERING counts not
  BOOST_TEST(quorum_lost({m("a", "O"), m("b", "O")}, 5));  // counted over the declared size
  BOOST_TEST(!quorum_lost({m("a", "O", "P")}, 1));
}

BOOST_AUTO_TEST_CASE(guarded_recovery_choice) {
  struct row {
    std::string name;
    std::vector<quorum_member> members;
    recovery_kind kind;
    std::string site;
    std::string reason_has;
  };
  const std::vector<row> rows = {
      {"quorum held: nothing", {m("a", "O", "P"), m("b", "O"), m("c", "X")}, recovery_kind::none, "",
       "has quorum"},
      {"the surviving primary", {m("a", "O", "P", upto(9)), m("b", "X"), m("c", "X")},
       recovery_kind::force_members, "a", "surviving PRIMARY a"},
      {"the surviving primary, unknown set", {m("a", "O", "P"), m("b", "X"), m("c", "X")},
       recovery_kind::force_members, "a", "surviving PRIMARY"},
      {"a lone secondary survivor", {m("a", "X"), m("b", "O", "S", upto(7)), m("c", "X")},
       recovery_kind::force_members, "b", "lone survivor b"},
      {"two secondaries of five: the dominant one",
       {m("a", "X"), m("b", "O", "S", upto(5)), m("c", "O", "S", upto(8)), m("d", "X"), m("e", "X")},
       recovery_kind::force_members, "c", "include every other survivor"},
      {"two secondaries with equal sets: declared order",
       {m("a", "X"), m("b", "O", "S", upto(5)), m("c", "O", "S", upto(5)), m("d", "X"), m("e", "X")},
       recovery_kind::force_members, "b", ""},
      {"two secondaries, incomparable",
       {m("a", "X"), m("b", "O", "S", U + ":1-5"), m("c", "O", "S", U + ":1-4," + V + ":1"), m("d", "X"),
        m("e", "X")},
       recovery_kind::blocked, "", "incomparable"},
      {"two secondaries, one set unknown",
       {m("a", "X"), m("b", "O", "S", upto(5)), m("c", "O", "S"), m("d", "X"), m("e", "X")},
       recovery_kind::blocked, "", "not known"},
      {"two primaries", {m("a", "O", "P", upto(3)), m("b", "O", "P", upto(3)), m("c", "X"), m("d", "X"), m("e", "X")},
       recovery_kind::blocked, "", "more than one survivor"},
      {"a reachable offline member is ahead of the survivor",
       {m("a", "O", "S", upto(5)), m("b", "F", "", upto(9)), m("c", "X")}, recovery_kind::blocked, "",
       "b holds transactions a lacks"},
      {"the survivor's set unknown, a reachable member's known",
       {m("a", "O", "P"), m("b", "E", "", upto(9)), m("c", "X")}, recovery_kind::blocked, "",
       "cannot be compared"},
      {"total outage, one unreachable",
       {m("a", "F", "", upto(9)), m("b", "F", "", upto(5)), m("c", "X")}, recovery_kind::blocked, "",
       "c cannot be read"},
      {"total outage, all reachable, a dominant member",
       {m("a", "F", "", upto(5)), m("b", "F", "", upto(9)), m("c", "E", "", upto(7))},
       recovery_kind::rebootstrap, "b", "include every member"},
      {"total outage, all reachable, incomparable",
       {m("a", "F", "", upto(5)), m("b", "F", "", V + ":1-3"), m("c", "F", "", upto(5))},
       recovery_kind::blocked, "", "incomparable"},
      {"total outage, all reachable, one set unknown",
       {m("a", "F", "", upto(5)), m("b", "F", ""), m("c", "F", "", upto(5))}, recovery_kind::blocked, "",
       "not known"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto p = plan_quorum_recovery(r.members, r.members.size());
      BOOST_TEST(to_string(p.kind) == to_string(r.kind), p.reason);
      BOOST_TEST(p.site == r.site, p.reason);
      BOOST_TEST(p.reason.find(r.reason_has) != std::string::npos, p.reason);
      if (p.kind == recovery_kind::force_members || p.kind == recovery_kind::rebootstrap) {
        BOOST_TEST(p.rejoin.size() == r.members.size() - 1);
        BOOST_TEST((std::find(p.rejoin.begin(), p.rejoin.end(), p.site) == p.rejoin.end()));
      }
    }
  }
  // A member the operator never read counts as unreachable for a total outage.
  auto p = plan_quorum_recovery({m("a", "F", "", upto(5)), m("b", "F", "", upto(5))}, 3);
  BOOST_TEST(to_string(p.kind) == "blocked", p.reason);
  BOOST_TEST(p.reason.find("never read") != std::string::npos, p.reason);
}

BOOST_AUTO_TEST_CASE(quorum_block_rows) {
  struct row {
    std::string name;
    std::vector<quorum_member> members;
    quorum_facts facts;
    bool blocked;
  };
  const quorum_facts lost{true, true, false};
  std::vector<row> rows = {
      {"two of three killed", {m("a", "O", "P"), m("b", "X"), m("c", "X")}, lost, true},
      {"all three down", {m("a", "X"), m("b", "X"), m("c", "X")}, lost, true},
      {"all three back OFFLINE", {m("a", "F"), m("b", "F"), m("c", "F")}, lost, true},
      {"one of three killed", {m("a", "O", "P"), m("b", "O"), m("c", "X")}, lost, false},
      {"never bootstrapped", {m("a", "F"), m("b", "F"), m("c", "F")}, {false, true, false}, false},
      {"not every member polled yet", {m("a", "O", "P"), m("b", "X"), m("c", "X")}, {true, false, false}, false},
      {"an agreed view with quorum (a forced one-member group)",
       {m("a", "O", "P"), m("b", "F"), m("c", "X")}, {true, true, true}, false},
  };
  // Before its failure detection notices, the survivor's own table still shows the others: the
  // group is not (yet) Blocked. The same while a member joins (RECOVERING is heard, not ONLINE).
  auto seeing = m("a", "O", "P");
  seeing.sees_majority = true;
  rows.push_back({"the survivor still sees a majority of its view", {seeing, m("b", "X"), m("c", "X")}, lost, false});
  rows.push_back({"a join in progress", {seeing, m("b", "R"), m("c", "F")}, lost, false});
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto v = quorum_block(r.members, 3, r.facts);
      BOOST_TEST(v.blocked == r.blocked, v.reason);
      BOOST_TEST(v.reason.empty() == !r.blocked, v.reason);
      if (r.blocked) BOOST_TEST(v.reason.find("needed of 3") != std::string::npos, v.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(a_survivor_that_sees_a_majority_is_not_forced) {
  // The operator reaches only a, but a's own table shows a, b, c ONLINE: a partition between the
  // operator and b, c, not a quorum loss. Forcing a alone would split the group.
  auto a = m("a", "O", "S", upto(5));
  a.sees_majority = true;
  auto p = plan_quorum_recovery({a, m("b", "X"), m("c", "X")}, 3);
  BOOST_TEST(to_string(p.kind) == "blocked", p.reason);
  BOOST_TEST(p.reason.find("a still sees a majority of its group reachable") != std::string::npos, p.reason);
}

BOOST_AUTO_TEST_CASE(force_members_needs_every_member_left_out_down) {
  // Review M6: a member left out of a forced membership must be down: not answering, or
  // answering and not ONLINE in a view with quorum.
  auto unread = m("b", "X");
  unread.answered = true;  // its server answered, its member table did not
  auto quorate = m("b", "R", "S", upto(5));
  quorate.sees_majority = true;  // its own table: a view with quorum (not counted a survivor)
  auto down_b = m("b", "X");     // answers nothing: down as far as anyone can tell
  auto offline_b = m("b", "F", "", upto(5));  // answers, left its group
  struct row {
    std::string name;
    quorum_member b;
    bool allowed;
    std::string reason_has;
  };
  const std::vector<row> rows = {
      {"b answers, its table unread", unread, false, "b answers but its member table could not be read"},
      {"b in a view with quorum", quorate, false, "b is ONLINE in a view with quorum"},
      {"b does not answer", down_b, true, ""},
      {"b OFFLINE", offline_b, true, ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto p = plan_quorum_recovery({m("a", "O", "P", upto(7)), r.b, m("c", "X")}, 3);
      BOOST_TEST((p.kind == recovery_kind::force_members) == r.allowed, p.reason);
      BOOST_TEST(p.reason.find(r.reason_has) != std::string::npos, p.reason);
    }
  }
  // A total outage re-bootstraps from reads of every member: M6 is force_members' rule only.
  auto all = plan_quorum_recovery({m("a", "F", "", upto(7)), m("b", "F", "", upto(5)), m("c", "F", "", upto(6))}, 3);
  BOOST_TEST(to_string(all.kind) == "rebootstrap", all.reason);
}

BOOST_AUTO_TEST_CASE(the_plan_digest_names_what_is_confirmed) {
  // Review M5: the digest changes with anything a person is shown (survivor, its set, what each
  // other member may lose) and only then.
  auto plan = [](const std::string& survivor_set, const std::string& b_last) {
    auto b = m("b", "X");
    if (!b_last.empty()) b.last_gtid = *br::gtid_set::parse(b_last);
    return plan_quorum_recovery({m("a", "O", "P", survivor_set), b, m("c", "X")}, 3);
  };
  const auto base = plan(upto(7), upto(7));
  BOOST_TEST_REQUIRE(to_string(base.kind) == "forceMembers", base.reason);
  BOOST_TEST(base.digest.size() == 16u, base.digest);
  BOOST_TEST(plan(upto(7), upto(7)).digest == base.digest);  // same reads, same digest
  BOOST_TEST(plan(upto(8), upto(7)).digest != base.digest);  // the survivor's set moved
  BOOST_TEST(plan(upto(7), upto(9)).digest != base.digest);  // b may lose more than shown
  BOOST_TEST(plan(upto(7), "").digest != base.digest);       // b never read
  auto other = plan_quorum_recovery({m("a", "X"), m("b", "O", "P", upto(7)), m("c", "X")}, 3);
  BOOST_TEST(other.digest != base.digest);  // another survivor
  auto refused = plan_quorum_recovery({m("a", "O", "P", upto(5)), m("b", "F", "", upto(9)), m("c", "X")}, 3);
  BOOST_TEST(refused.digest.empty());  // nothing to confirm
}

BOOST_AUTO_TEST_CASE(the_plan_says_what_each_other_member_may_lose) {
  auto b = m("b", "X");
  b.last_gtid = *br::gtid_set::parse(upto(9));  // held 8-9 beyond a at its last read
  auto c = m("c", "X");
  c.last_gtid = *br::gtid_set::parse(upto(4));
  auto p = plan_quorum_recovery({m("a", "O", "P", upto(7)), b, c, m("d", "X"), m("e", "F", "", upto(6))}, 5);
  BOOST_TEST_REQUIRE(to_string(p.kind) == "forceMembers", p.reason);
  BOOST_TEST_REQUIRE(p.at_risk.size() == 4u);
  BOOST_TEST(p.at_risk[0] == "b: 2 transaction(s) at its last read (" + U + ":8-9), and anything it committed after that");
  BOOST_TEST(p.at_risk[1] == "c: nothing at its last read; anything it committed after that is lost");
  BOOST_TEST(p.at_risk[2] == "d: unknown (never read); whatever it committed may be lost");
  BOOST_TEST(p.at_risk[3] == "e: nothing (its transactions are all on a)");
}

BOOST_AUTO_TEST_SUITE_END()
