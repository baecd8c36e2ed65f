// The Group Replication scale-down's pure decision (decide/gr_scale_down.hpp): which leaving
// member is stopped next, the switchover before the PRIMARY, the quorum of the smaller group, and
// every wait.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/gr_scale_down.hpp"

using namespace br;
using namespace br::gr;

namespace {

const std::string G = "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa";

quorum_member stay(const std::string& site, member_role role,
                   member_state state = member_state::online, const std::string& gtids = "1-100") {
  quorum_member m;
  m.site = site;
  m.role = role;
  m.state = state;
  m.reachable = state != member_state::unreachable && state != member_state::unknown;
  m.gtid_executed = *gtid_set::parse(G + ":" + gtids);
  return m;
}

quorum_member SP(const std::string& s) { return stay(s, member_role::primary); }
quorum_member SS(const std::string& s, const std::string& g = "1-100") {
  return stay(s, member_role::secondary, member_state::online, g);
}
quorum_member down(const std::string& s) {
  return stay(s, member_role::none, member_state::unknown);
}

/// A leaving member ONLINE in the agreed view (and in its own).
leaving_member leave(const std::string& site, member_role role = member_role::secondary,
                     const std::string& phase = "") {
  leaving_member m;
  m.site = site;
  m.phase = phase;
  m.identified = true;
  m.reachable = true;
  m.own_state = member_state::online;
  m.in_view = true;
  m.state = member_state::online;
  m.role = role;
  m.listed_by_others = true;
  return m;
}

/// The same member after its STOP: OFFLINE by its own word, out of everyone's view.
leaving_member left(const std::string& site, const std::string& phase = "Stopping") {
  leaving_member m;
  m.site = site;
  m.phase = phase;
  m.identified = true;
  m.reachable = true;
  m.own_state = member_state::offline;
  return m;
}

scale_down_facts facts(std::vector<quorum_member> staying, std::vector<leaving_member> leaving,
                       std::size_t view_size) {
  scale_down_facts f;
  f.staying = std::move(staying);
  f.leaving = std::move(leaving);
  f.view_known = true;
  f.has_quorum = true;
  f.view_size = view_size;
  return f;
}

struct row {
  const char* name;
  scale_down_facts f;
  scale_down_move move;
  std::string site;
  std::string target = "";
  std::string reason_has = "";
};

}  // namespace

BOOST_AUTO_TEST_CASE(scale_down_table) {
  auto blocked = facts({SP("a"), SS("b")}, {leave("c")}, 3);
  blocked.blocked = true;
  auto unknown = facts({SP("a"), SS("b")}, {leave("c")}, 3);
  unknown.view_known = false;
  auto no_quorum = facts({SP("a"), SS("b")}, {leave("c")}, 3);
  no_quorum.has_quorum = false;
  auto handing = facts({SP("a"), SS("b")}, {leave("c")}, 3);
  handing.switchover_target = "b";
  auto unreadable = facts({SP("a"), SS("b")}, {leave("c")}, 3);
  unreadable.leaving[0].reachable = false;
  auto offline_listed = facts({SP("a"), SS("b")}, {leave("c")}, 3);
  offline_listed.leaving[0].own_state = member_state::offline;
  auto gone_unknown_view = facts({SP("a"), SS("b")}, {left("c")}, 2);
  gone_unknown_view.view_known = false;
  auto unreachable_gone = facts({SP("a"), SS("b")}, {left("c")}, 2);
  unreachable_gone.leaving[0].reachable = false;
  unreachable_gone.leaving[0].own_state = member_state::unknown;
  auto never_read = facts({SP("a"), SS("b")}, {left("c", "")}, 2);
  never_read.leaving[0].identified = false;
  never_read.leaving[0].reachable = false;
  auto still_listed = facts({SP("a"), SS("b")}, {left("c")}, 2);
  still_listed.leaving[0].listed_by_others = true;

  std::vector<row> rows = {
      {"nobody leaves", facts({SP("a"), SS("b"), SS("c")}, {}, 3), scale_down_move::idle, ""},
      {"a SECONDARY of 3 is recorded first", facts({SP("a"), SS("b")}, {leave("c")}, 3),
       scale_down_move::record, "c", "", "leaves 2 ONLINE, 2 needed of 2"},
      {"recorded Stopping and still in the group: STOP (again)",
       facts({SP("a"), SS("b")}, {leave("c", member_role::secondary, "Stopping")}, 3),
       scale_down_move::stop, "c"},
      {"out of the group: Stopped, new size 2", facts({SP("a"), SS("b")}, {left("c")}, 2),
       scale_down_move::stopped, "c", "", "out of the group"},
      {"never recorded but already out (never joined)", facts({SP("a"), SS("b")}, {left("c", "")}, 2),
       scale_down_move::stopped, "c"},
      {"gone and not answering: Stopped", unreachable_gone, scale_down_move::stopped, "c", "",
       "not answering"},
      {"never read (not identified), not answering: wait, never judged out", never_read,
       scale_down_move::wait, "c", "", "never read"},
      {"OFFLINE but a member still lists it: wait", still_listed, scale_down_move::wait, "c", "",
       "OFFLINE and the others still list it"},
      {"out but no agreed view: wait", gone_unknown_view, scale_down_move::wait, "c", "",
       "no majority agrees"},
      {"quorum lost: wait", blocked, scale_down_move::wait, "c", "", "lost its quorum"},
      {"view unknown: wait", unknown, scale_down_move::wait, "c", "", "no majority agrees"},
      {"view without quorum: wait", no_quorum, scale_down_move::wait, "c", "", "no quorum"},
      {"a switchover in flight: wait", handing, scale_down_move::wait, "c", "", "making b its primary"},
      {"a staying member RECOVERING: wait",
       facts({SP("a"), stay("b", member_role::secondary, member_state::recovering)}, {leave("c")}, 3),
       scale_down_move::wait, "c", "", "b is RECOVERING"},
      {"the leaver does not answer: wait", unreadable, scale_down_move::wait, "c", "",
       "does not answer"},
      {"OFFLINE by its own word, still listed: wait", offline_listed, scale_down_move::wait, "c", "",
       "OFFLINE"},
      // b is down (not in the view any more): a and c ONLINE of a view of 2; the group that stays
      // is {a, b}, whose majority is 2: only a would be ONLINE.
      {"one staying member down: the smaller group would lose its majority",
       facts({SP("a"), down("b")}, {leave("c")}, 2), scale_down_move::wait, "c", "",
       "would leave 1 ONLINE, 2 needed of 2"},
      {"5 members, one down, one leaves: 3 of 4 stay ONLINE",
       facts({SP("a"), SS("b"), SS("c"), down("d")}, {leave("e")}, 5), scale_down_move::record, "e"},
      {"5 members, two down: the group has 3 ONLINE of 5, the smaller 2 of 4: wait",
       facts({SP("a"), SS("b"), down("c"), down("d")}, {leave("e")}, 5), scale_down_move::wait, "e",
       "", "would leave 2 ONLINE, 3 needed of 4"},
      {"the PRIMARY leaves: hand over first, to the most advanced SECONDARY",
       facts({SS("a", "1-90"), SS("b", "1-100")}, {leave("c", member_role::primary)}, 3),
       scale_down_move::switchover, "c", "b", "before c leaves"},
      {"the PRIMARY, ties: declared order", facts({SS("a"), SS("b")}, {leave("c", member_role::primary)}, 3),
       scale_down_move::switchover, "c", "a"},
      {"the PRIMARY with no staying SECONDARY ONLINE: wait (quorum first)",
       facts({down("a"), SS("b")}, {leave("c", member_role::primary)}, 3), scale_down_move::wait, "c",
       "", "would leave 1 ONLINE"},
      {"the PRIMARY of 2 leaves a group of 1: hand over first",
       facts({SS("a")}, {leave("b", member_role::primary)}, 2), scale_down_move::switchover, "b", "a"},
      {"a SECONDARY of 2 leaves a group of 1", facts({SP("a")}, {leave("b")}, 2),
       scale_down_move::record, "b", "", "leaves 1 ONLINE, 1 needed of 1"},
      {"two leave at once: one at a time, in order",
       facts({SP("a")}, {leave("b"), leave("c")}, 3), scale_down_move::record, "b"},
      {"two leave at once: the second after the first is Stopped",
       facts({SP("a")}, {left("b", "Stopped"), leave("c")}, 2), scale_down_move::record, "c"},
      {"every leave Stopped: idle", facts({SP("a"), SS("b")}, {left("c", "Stopped")}, 2),
       scale_down_move::idle, ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto c = next_gr_scale_down(r.f);
      BOOST_TEST(to_string(c.move) == to_string(r.move));
      BOOST_TEST(c.site == r.site);
      BOOST_TEST(c.target == r.target);
      if (!r.reason_has.empty())
        BOOST_TEST(c.reason.find(r.reason_has) != std::string::npos, c.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(scale_down_size_counts_an_expelled_member) {
  // b was expelled (the view has 2 members) but it stays declared: the group is still 3.
  BOOST_TEST(scale_down_size(facts({SP("a"), down("b")}, {leave("c")}, 2)) == 3u);
  BOOST_TEST(scale_down_size(facts({SP("a"), SS("b")}, {left("c", "Stopped")}, 2)) == 2u);
  BOOST_TEST(scale_down_size(facts({SP("a"), SS("b"), SS("c")}, {leave("d"), leave("e")}, 5)) == 5u);
  // The new size after a leave: the staying members (or a larger view still draining).
  auto c = next_gr_scale_down(facts({SP("a"), SS("b")}, {left("c")}, 2));
  BOOST_TEST(c.new_size == 2u);
}
