// The backup source of a Group Replication group (decide/gr_backup_source.hpp, issue 23) as a
// table: an ONLINE SECONDARY holding the most transactions, never RECOVERING/ERROR/OFFLINE or
// unreachable members, the PRIMARY only without a secondary or when requested, nothing without an
// agreed view with quorum.
#include <boost/test/unit_test.hpp>

#include "actors/operator/decide/gr_backup_source.hpp"

using namespace br::gr;

namespace {

const std::string U = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
const std::string V = "4a22fb58-82db-22f2-af44-d91bb0530673";

/// "O" ONLINE, "R" RECOVERING, "F" OFFLINE, "E" ERROR, "X" UNREACHABLE, "?" not in the view;
/// role "P"/"S"/""; reach false = the caller could not read it; gtid "" unknown, "-" empty.
backup_member m(const std::string& name, const std::string& st, const std::string& role,
                const std::string& gtid = "", bool reach = true) {
  backup_member b;
  b.name = name;
  b.state = st == "O" ? member_state::online
            : st == "R" ? member_state::recovering
            : st == "F" ? member_state::offline
            : st == "E" ? member_state::error
            : st == "X" ? member_state::unreachable
                        : member_state::unknown;
  b.role = role == "P" ? member_role::primary : role == "S" ? member_role::secondary : member_role::none;
  b.reachable = reach;
  if (!gtid.empty()) b.gtid_executed = *br::gtid_set::parse(gtid == "-" ? "" : gtid);
  return b;
}

std::string upto(int n) { return U + ":1-" + std::to_string(n); }

struct row {
  std::string what;
  bool known, quorum;
  std::vector<backup_member> members;
  std::string override_name;
  std::string want;      // "" = none
  bool want_primary;
  std::string reason_has;
};

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_backup_source)

BOOST_AUTO_TEST_CASE(table) {
  const std::vector<row> rows = {
      {"no agreed view: nothing", false, false,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(9))}, "", "", false, "no agreed view"},
      {"agreed view without quorum: nothing", true, false,
       {m("a", "O", "P", upto(9)), m("b", "X", "S"), m("c", "X", "S")}, "", "", false, "no quorum"},
      {"3 ONLINE: the secondary holding the most transactions", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(7)), m("c", "O", "S", upto(8))}, "", "c",
       false, "most transactions (of 2)"},
      {"equal sets: declared order", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(9)), m("c", "O", "S", upto(9))}, "", "b",
       false, "most transactions"},
      {"an unknown set is not preferred over a known one", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S"), m("c", "O", "S", upto(8))}, "", "c", false, ""},
      {"incomparable sets: declared order", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(5) + "," + V + ":1"),
        m("c", "O", "S", upto(8))},
       "", "b", false, ""},
      {"a RECOVERING secondary is never the source", true, true,
       {m("a", "O", "P", upto(9)), m("b", "R", "S", upto(9)), m("c", "O", "S", upto(3))}, "", "c",
       false, "the ONLINE SECONDARY"},
      {"an ERROR member is never the source", true, true,
       {m("a", "O", "P", upto(9)), m("b", "E", "S", upto(9)), m("c", "O", "S", upto(3))}, "", "c",
       false, ""},
      {"a secondary the caller cannot read is skipped", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(9), false), m("c", "O", "S", upto(3))}, "",
       "c", false, ""},
      {"no ONLINE secondary (RECOVERING, OFFLINE): the primary", true, true,
       {m("a", "O", "P", upto(9)), m("b", "R", "S"), m("c", "F", "")}, "", "a", true,
       "no reachable ONLINE SECONDARY"},
      {"a one-member group: the primary", true, true, {m("a", "O", "P", upto(9))}, "", "a", true, ""},
      {"the primary unreachable and no secondary: nothing", true, true,
       {m("a", "O", "P", upto(9), false), m("b", "R", "S")}, "", "", false, "no reachable ONLINE"},
      {"requested primary", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(9))}, "a", "a", true, "requested"},
      {"requested secondary with fewer transactions", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(9)), m("c", "O", "S", upto(2))}, "c", "c",
       false, "requested"},
      {"requested RECOVERING member: refused", true, true,
       {m("a", "O", "P", upto(9)), m("b", "R", "S"), m("c", "O", "S", upto(9))}, "b", "", false,
       "RECOVERING"},
      {"requested member not in the group: refused", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(9))}, "z", "", false, "not a member"},
      {"requested member unreachable: refused", true, true,
       {m("a", "O", "P", upto(9)), m("b", "O", "S", upto(9), false)}, "b", "", false,
       "does not answer"},
      {"requested member without quorum: refused", true, false,
       {m("a", "O", "P", upto(9)), m("b", "X", "S"), m("c", "X", "S")}, "a", "", false, "no quorum"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      backup_source_facts f;
      f.view_known = r.known;
      f.has_quorum = r.quorum;
      f.members = r.members;
      f.override_name = r.override_name;
      auto got = choose_backup_source(f);
      BOOST_TEST(got.name == r.want);
      BOOST_TEST(got.primary == r.want_primary);
      BOOST_TEST(!got.reason.empty());
      if (!r.reason_has.empty())
        BOOST_TEST(got.reason.find(r.reason_has) != std::string::npos, got.reason);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
