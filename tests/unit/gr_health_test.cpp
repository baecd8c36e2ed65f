// The sidecar's Group Replication checks (actors/sidecar/runtime/gr_health): a member serves only
// while it is ONLINE in a view whose ONLINE members are a majority.
#include <boost/test/unit_test.hpp>

#include "actors/sidecar/runtime/gr_health.hpp"

using namespace br;
using namespace br::sidecar;

namespace {

gr_snapshot snap(std::vector<std::pair<std::string, std::string>> rows, const std::string& self = "a") {
  gr_snapshot s;
  s.plugin_loaded = true;
  s.member_id = self;
  for (auto& [id, state_role] : rows) {
    auto sp = state_role.find('/');
    s.rows.push_back({id, id, 3306, state_role.substr(0, sp),
                      sp == std::string::npos ? "" : state_role.substr(sp + 1), "9.7.4"});
  }
  return s;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_health_rows)

BOOST_AUTO_TEST_CASE(roles_from_the_members_own_quorate_view) {
  struct row {
    const char* name;
    gr_snapshot s;
    gr_local_role role;
    const char* reason;
  };
  gr_snapshot no_plugin;
  const row rows[] = {
      {"primary", snap({{"a", "ONLINE/PRIMARY"}, {"b", "ONLINE/SECONDARY"}, {"c", "ONLINE/SECONDARY"}}),
       gr_local_role::primary, "ONLINE PRIMARY"},
      {"secondary", snap({{"a", "ONLINE/SECONDARY"}, {"b", "ONLINE/PRIMARY"}}), gr_local_role::secondary,
       "ONLINE SECONDARY"},
      {"alone of one", snap({{"a", "ONLINE/PRIMARY"}}), gr_local_role::primary, "ONLINE PRIMARY"},
      {"cut off from the others",
       snap({{"a", "ONLINE/PRIMARY"}, {"b", "UNREACHABLE/SECONDARY"}, {"c", "UNREACHABLE/SECONDARY"}}),
       gr_local_role::none, "no quorum"},
      {"half of four", snap({{"a", "ONLINE/PRIMARY"}, {"b", "ONLINE/SECONDARY"},
                             {"c", "UNREACHABLE/SECONDARY"}, {"d", "UNREACHABLE/SECONDARY"}}),
       gr_local_role::none, "no quorum"},
      {"recovering", snap({{"a", "RECOVERING/SECONDARY"}, {"b", "ONLINE/PRIMARY"}}), gr_local_role::none,
       "member is RECOVERING"},
      {"stopped", snap({{"a", "OFFLINE/"}}), gr_local_role::none, "member is OFFLINE"},
      {"error", snap({{"a", "ERROR/"}, {"b", "ONLINE/PRIMARY"}}), gr_local_role::none, "member is ERROR"},
      {"no plugin", no_plugin, gr_local_role::none, "plugin is not loaded"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto h = gr_health_of(r.s);
      BOOST_TEST((h.role == r.role));
      BOOST_TEST(h.reason.find(r.reason) != std::string::npos, h.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(the_declared_group_decides_a_lone_members_quorum) {
  auto lone = snap({{"a", "ONLINE/PRIMARY"}});
  lone.group_name = "g1";
  BOOST_TEST((gr_health_of(lone).role == gr_local_role::primary));  // nothing declared
  auto h = gr_health_of(lone, {3, "g1"});  // a group of its own, 1 of the 3 declared members
  BOOST_TEST((h.role == gr_local_role::none));
  BOOST_TEST(h.reason.find("1 of 3") != std::string::npos, h.reason);
  auto two = snap({{"a", "ONLINE/PRIMARY"}, {"b", "ONLINE/SECONDARY"}});
  two.group_name = "g1";
  BOOST_TEST((gr_health_of(two, {3, "g1"}).role == gr_local_role::primary));
  h = gr_health_of(two, {3, "g2"});  // another group's member
  BOOST_TEST((h.role == gr_local_role::none));
  BOOST_TEST(h.reason.find("not g2") != std::string::npos, h.reason);
}

BOOST_AUTO_TEST_SUITE_END()
