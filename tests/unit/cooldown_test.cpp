// Table tests for failover_cooldown() boundaries and merge_durable_failover_record() (S7).
#include "actors/operator/decide/cooldown.hpp"

#include <boost/test/unit_test.hpp>
#include <chrono>

#include "tests/unit/decisions_test_util.hpp"

namespace {

using namespace br;
using namespace std::chrono_literals;

const wall_time t0{std::chrono::seconds(1'700'000'000)};
const caf::timespan five_min = 5min;

BOOST_AUTO_TEST_SUITE(decisions_cooldown)

BOOST_AUTO_TEST_CASE(cooldown_boundaries_table) {
  struct row {
    const char* name;
    std::optional<wall_time> last;
    wall_time now;
    bool allowed;
    caf::timespan remaining;
  };
  const std::vector<row> rows = {
      {"no failover recorded", std::nullopt, t0, true, 0ns},
      {"right after a failover", t0, t0, false, five_min},
      {"one nanosecond before the boundary", t0, t0 + five_min - 1ns, false, 1ns},
      {"exactly at the boundary", t0, t0 + five_min, true, 0ns},
      {"after the boundary", t0, t0 + five_min + 1s, true, 0ns},
      {"record one minute in the future still suppresses", t0 + 1min, t0, false, 6min},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto c = failover_cooldown(r.now, r.last, five_min);
      BOOST_TEST(c.allowed == r.allowed);
      BOOST_TEST(c.remaining.count() == r.remaining.count());
    }
  }
}

BOOST_AUTO_TEST_CASE(zero_cooldown_always_allows) {
  BOOST_TEST(failover_cooldown(t0, t0, 0ns).allowed);
}

failover_record rec(wall_time at, std::string target) {
  return {at, std::move(target)};
}

bool has_warning(const merged_failover_record& m, const std::string& needle) {
  for (const auto& w : m.warnings)
    if (w.find(needle) != std::string::npos) return true;
  return false;
}

BOOST_AUTO_TEST_CASE(s7_merge_table) {
  const auto skew = caf::timespan{5min};
  const auto now = t0 + 1h;
  struct row {
    const char* name;
    std::optional<failover_record> status;
    std::optional<failover_record> annotation;
    record_source source;
    std::optional<failover_record> expected;
    std::string warning;  // substring expected in some warning ("" = no warnings at all)
  };
  const std::vector<row> rows = {
      {"neither copy", std::nullopt, std::nullopt, record_source::none, std::nullopt, ""},
      {"status only", rec(t0, "b"), std::nullopt, record_source::status, rec(t0, "b"), ""},
      {"annotation only (status writes were failing)", std::nullopt, rec(t0, "b"),
       record_source::annotation, rec(t0, "b"),
       "restored lastFailover from out-of-band annotations"},
      {"annotation newer", rec(t0, "b"), rec(t0 + 10s, "a"), record_source::annotation,
       rec(t0 + 10s, "a"), "restored lastFailover from out-of-band annotations"},
      {"status newer", rec(t0 + 10s, "a"), rec(t0, "b"), record_source::status, rec(t0 + 10s, "a"),
       ""},
      {"equal copies", rec(t0, "b"), rec(t0, "b"), record_source::status, rec(t0, "b"), ""},
      {"equal times, different targets", rec(t0, "b"), rec(t0, "a"), record_source::status,
       rec(t0, "b"), "disagree"},
      {"status stamped too far in the future is refused", rec(now + skew + 1s, "a"), rec(t0, "b"),
       record_source::annotation, rec(t0, "b"), "refusing durable failover record"},
      {"annotation stamped too far in the future is refused", rec(t0, "b"), rec(now + 1h, "a"),
       record_source::status, rec(t0, "b"), "refusing durable failover record"},
      {"exactly at the skew limit is accepted", rec(t0, "b"), rec(now + skew, "a"),
       record_source::annotation, rec(now + skew, "a"), "restored"},
      {"one nanosecond beyond the limit is refused", rec(t0, "b"), rec(now + skew + 1ns, "a"),
       record_source::status, rec(t0, "b"), "refusing"},
      {"both in the future: nothing", rec(now + 1h, "a"), rec(now + 2h, "b"), record_source::none,
       std::nullopt, "refusing"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("row: " << r.name) {
      auto m = merge_durable_failover_record(r.status, r.annotation, now, skew);
      BOOST_TEST(m.source == r.source);
      BOOST_TEST(static_cast<bool>(m.record) == r.expected.has_value());
      if (m.record && r.expected) {
        BOOST_TEST(m.record->target == r.expected->target);
        BOOST_TEST(m.record->at.time_since_epoch().count() ==
                   r.expected->at.time_since_epoch().count());
      }
      if (r.warning.empty())
        BOOST_TEST(m.warnings.empty());
      else
        BOOST_TEST(has_warning(m, r.warning));
    }
  }
}

BOOST_AUTO_TEST_CASE(s7_merged_record_drives_the_cooldown) {
  // Restart: status copy lost, annotation copy 2 minutes old -> failover still suppressed.
  auto now = t0 + 2min;
  auto m = merge_durable_failover_record(std::nullopt, rec(t0, "b"), now, 5min);
  BOOST_TEST_REQUIRE(static_cast<bool>(m.record));
  auto c = failover_cooldown(now, m.record->at, five_min);
  BOOST_TEST(!c.allowed);
  BOOST_TEST(c.remaining.count() == caf::timespan{3min}.count());
}

BOOST_AUTO_TEST_SUITE_END()

}  // namespace
