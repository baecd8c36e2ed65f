// Table tests for classify_recovery() (exact divergent set and count, S4) and
// detect_returning_primary().
#include "actors/operator/decide/recovery.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace br::test;

const std::string A = uuid_a;
const std::string B = uuid_b;

BOOST_AUTO_TEST_SUITE(decisions_recovery)

BOOST_AUTO_TEST_CASE(s4_classify_table) {
  struct row {
    const char* name;
    std::string old_set;
    std::string active_set;
    recovery_kind kind;
    std::string divergent;  // compact text
    uint64_t count;
  };
  const std::vector<row> rows = {
      {"equal sets: rejoin", A + ":1-10", A + ":1-10", recovery_kind::contained, "", 0},
      {"old behind: rejoin", A + ":1-7", A + ":1-10," + B + ":1-3", recovery_kind::contained, "",
       0},
      {"old empty: rejoin", "", A + ":1-3", recovery_kind::contained, "", 0},
      {"unreplicated tail", A + ":1-10", A + ":1-7", recovery_kind::divergent, A + ":8-10", 3},
      {"tail plus writes of another stream", A + ":1-10," + B + ":1-3", A + ":1-7",
       recovery_kind::divergent, A + ":8-10," + B + ":1-3", 6},
      {"holes: only the missing intervals count", A + ":1-5:8-9", A + ":1-6",
       recovery_kind::divergent, A + ":8-9", 2},
      {"active empty", A + ":1-4", "", recovery_kind::divergent, A + ":1-4", 4},
      {"tagged transactions", A + ":1-3:ops:1-2", A + ":1-3", recovery_kind::divergent,
       A + ":ops:1-2", 2},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto c = classify_recovery(gtids(r.old_set), gtids(r.active_set));
      BOOST_TEST(c.kind == r.kind);
      BOOST_TEST(c.divergent_count == r.count);
      BOOST_TEST(c.divergent_gtid == r.divergent);
      BOOST_TEST(c.divergent == gtids(r.divergent));
    }
  }
}

BOOST_AUTO_TEST_CASE(s4_large_divergence_count_is_exact) {
  auto c = classify_recovery(gtids(A + ":1-1000000"), gtids(A + ":1-999000"));
  BOOST_TEST(c.divergent_count == 1000u);
}

BOOST_AUTO_TEST_CASE(detect_returning_primary_table) {
  const returning_primary_facts yes{"a", site_state::read_only, false, true, "b"};
  BOOST_TEST(detect_returning_primary(yes));
  struct row {
    const char* name;
    returning_primary_facts f;
  };
  const std::vector<row> no = {
      {"writable (split brain first)", {"a", site_state::writable, false, true, "b"}},
      {"unreachable", {"a", site_state::unreachable, false, true, "b"}},
      {"unknown", {"a", site_state::unknown, false, true, "b"}},
      {"replication configured (already a replica)", {"a", site_state::read_only, true, true, "b"}},
      {"no prior failover", {"a", site_state::read_only, false, false, "b"}},
      {"the active site itself", {"b", site_state::read_only, false, true, "b"}},
  };
  for (const auto& r : no) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      BOOST_TEST(!detect_returning_primary(r.f));
    }
  }
}

BOOST_AUTO_TEST_CASE(a_split_brain_loser_is_checked_whatever_its_channel_says) {
  // Fenced as a loser: replication configured but stopped (STOP REPLICA, then made writable by
  // hand), and even without a prior failover (tier 2 resolves a split brain with no history).
  const returning_primary_facts loser{"a", site_state::read_only, true, false, "b", true};
  BOOST_TEST(detect_returning_primary(loser));
  auto no_channel = loser;
  no_channel.replication_configured = false;
  BOOST_TEST(detect_returning_primary(no_channel));
  // Still never while writable, unreachable, or when it is the active site.
  for (auto st : {site_state::writable, site_state::unreachable, site_state::unknown}) {
    auto f = loser;
    f.state = st;
    BOOST_TEST(!detect_returning_primary(f), to_string(st));
  }
  auto active = loser;
  active.active_site = "a";
  BOOST_TEST(!detect_returning_primary(active));
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
