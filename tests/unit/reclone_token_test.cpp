// Table tests for validate_reclone_token(): both accepted forms and every rejection reason.
#include "actors/operator/decide/reclone_token.hpp"

#include <boost/test/unit_test.hpp>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace br::test;

const std::string group = "orders";
const names sites = {"iad", "pdx", "sfo"};
// pdx diverged (recorded as the server prints it, with ",\n"); sfo has no record; iad is active.
const std::map<std::string, std::string> divergent = {
    {"pdx", "BD414D9A-E603-11F1-821B-02FC00000001:8-10,\n" + uuid_b + ":1-3"},
    {"sfo", ""},
};
const std::string active = "iad";

BOOST_AUTO_TEST_SUITE(decisions_reclone_token)

BOOST_AUTO_TEST_CASE(s4_accepted_forms) {
  struct row {
    const char* name;
    std::string value;
    std::string site;
    reclone_kind kind;
  };
  const std::vector<row> rows = {
      {"8-char prefix", "pdx:bd414d9a", "pdx", reclone_kind::divergent_prefix},
      {"prefix, different case", "pdx:BD414D9A-e603", "pdx", reclone_kind::divergent_prefix},
      {"prefix spanning the newline separator (compact form)",
       "pdx:bd414d9a-e603-11f1-821b-02fc00000001:8-10," + uuid_b.substr(0, 4), "pdx",
       reclone_kind::divergent_prefix},
      {"whole record", "pdx:" + uuid_a + ":8-10," + uuid_b + ":1-3", "pdx",
       reclone_kind::divergent_prefix},
      {"surrounding whitespace", "  pdx:bd414d9a \n", "pdx", reclone_kind::divergent_prefix},
      {"cold reclone", "sfo:confirm=orders", "sfo", reclone_kind::cold_confirm},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto v = validate_reclone_token(r.value, group, sites, divergent, active);
      BOOST_TEST(v.accepted, v.reason);
      BOOST_TEST(v.site == r.site);
      BOOST_TEST(v.kind == r.kind);
      BOOST_TEST(v.reason.empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(s4_every_rejection_reason) {
  struct row {
    const char* name;
    std::string value;
    std::string reason;  // substring of the RecloneRejected text
  };
  const std::vector<row> rows = {
      {"empty", "", "annotation is empty"},
      {"whitespace only", "  ", "annotation is empty"},
      {"no site", ":bd414d9a", "names no site"},
      {"unknown site", "ord:bd414d9a", "unknown site \"ord\""},
      {"the active primary", "iad:confirm=orders",
       "refusing to reclone iad: it is the active primary"},
      {"bare site with a recorded divergentGtid", "pdx",
       "bare site form is not accepted: pdx has a recorded divergentGtid"},
      {"bare site without divergence", "sfo", "bare site form is not accepted for a cold reclone"},
      {"empty token", "pdx:", "empty confirmation token"},
      {"prefix too short (7)", "pdx:bd414d9", "prefix too short: 7 characters"},
      {"prefix mismatch", "pdx:bd414d9b", "does not match the recorded divergentGtid of pdx"},
      {"prefix of another site's set", "pdx:" + uuid_b.substr(0, 12), "does not match"},
      {"prefix longer than the record", "pdx:" + uuid_a + ":8-10," + uuid_b + ":1-4",
       "does not match"},
      {"prefix for a site without divergence", "sfo:bd414d9a", "sfo has no recorded divergentGtid"},
      {"confirm for a divergent site", "pdx:confirm=orders", "cold reclone confirmation refused"},
      {"confirm naming another group", "sfo:confirm=payments",
       "confirm token names group \"payments\""},
      {"confirm with empty group", "sfo:confirm=", "confirm token names group \"\""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto v = validate_reclone_token(r.value, group, sites, divergent, active);
      BOOST_TEST(!v.accepted);
      BOOST_TEST(v.reason.find(r.reason) != std::string::npos, "reason was: " << v.reason);
    }
  }
}

BOOST_AUTO_TEST_CASE(prefix_length_boundary_is_exactly_eight) {
  BOOST_TEST(validate_reclone_token("pdx:bd414d9a", group, sites, divergent, active).accepted);
  BOOST_TEST(!validate_reclone_token("pdx:bd414d9", group, sites, divergent, active).accepted);
  BOOST_TEST(reclone_min_prefix == 8u);
}

BOOST_AUTO_TEST_CASE(nothing_is_recloned_without_an_active_primary_to_clone_from) {
  // A group without a primary (all sites down, or not bootstrapped yet) has no donor.
  auto v = validate_reclone_token("sfo:confirm=orders", group, sites, divergent, "");
  BOOST_TEST(!v.accepted);
  BOOST_TEST(v.reason == "the group has no active primary to clone sfo from");
  BOOST_TEST(validate_reclone_token("sfo:confirm=orders", group, sites, divergent, active).accepted);
}

// After an in-place restore (spec.restoreInPlace) the restore's token, recorded and used by the
// coordinator, confirms the discard: whatever divergence is recorded, each site once, never the
// restored site, never while frozen, never with another token.
BOOST_AUTO_TEST_CASE(the_in_place_restore_token_confirms_a_reclone_once_per_site) {
  const std::string T1 = "2026-11-26T15:00:00Z", T2 = "2026-11-26T16:00:00Z";
  const restore_freeze_record lifted{T1, false, "iad", {"sfo"}, {"pdx", "sfo"}};
  struct row {
    const char* name;
    std::string value;
    restore_freeze_record restore;
    std::string reason;  // "" = accepted
  };
  const std::vector<row> rows = {
      {"a site with recorded divergence", "pdx:restore=" + T1, lifted, ""},
      {"surrounding whitespace", " pdx:restore= " + T1 + " ", lifted, ""},
      {"no restore recorded", "pdx:restore=" + T1, {}, "not the in-place restore recorded last (none)"},
      {"an older token", "pdx:restore=" + T1, {T2, false, "iad", {}, {}}, "not the in-place restore recorded last (" + T2 + ")"},
      {"a newer token", "pdx:restore=" + T2, lifted, "is not the in-place restore recorded last"},
      {"empty token", "pdx:restore=", lifted, "is not the in-place restore recorded last"},
      {"still frozen", "pdx:restore=" + T1, {T1, true, "iad", {}, {}}, "has not ended (the group is frozen)"},
      {"abandoned: the target may be half loaded (M8)", "pdx:restore=" + T1,
       {T1, false, "iad", {}, {"iad", "pdx", "sfo"}}, "failed and was lifted"},
      {"already recloned for it", "sfo:restore=" + T1, lifted, "sfo was already recloned"},
      {"the restored site (no longer active)", "pdx:restore=" + T1, {T1, false, "pdx", {}, {}}, "pdx is the restored site"},
      {"the active primary", "iad:restore=" + T1, lifted, "it is the active primary"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto v = validate_reclone_token(r.value, group, sites, divergent, active, r.restore);
      BOOST_TEST(v.accepted == r.reason.empty(), v.reason);
      if (r.reason.empty()) {
        BOOST_TEST(v.site == "pdx");
        BOOST_TEST(v.kind == reclone_kind::restore_token);
      } else {
        BOOST_TEST(v.reason.find(r.reason) != std::string::npos, "reason was: " << v.reason);
      }
    }
  }
  // Without the restore form, the recorded restore changes nothing of the other forms.
  BOOST_TEST(!validate_reclone_token("pdx:confirm=orders", group, sites, divergent, active, lifted).accepted);
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
