// Table tests of the bounded fence's pure rules (io/mysql/fence_plan.*) and the dialect text it
// runs: which errors are lock waits, how long each attempt waits, what follows an attempt.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "io/mysql/fence_plan.hpp"
#include "io/mysql/lock_holders_sql.hpp"
#include "io/mysql/mysql8_dialect.hpp"

using namespace br::mysql;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

mysql_error server(unsigned code) {
  return mysql_error{error_kind::server_error, code, "server said " + std::to_string(code), "HY000"};
}

mysql_error client(error_kind kind, unsigned code) {
  return mysql_error{kind, code, "client", ""};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(fence_plan)

BOOST_AUTO_TEST_CASE(lock_wait_failures_are_1205_and_1213_from_the_server) {
  struct row {
    mysql_error e;
    bool lock_wait;
  };
  const std::vector<row> table{
      {server(1205), true},                               // ER_LOCK_WAIT_TIMEOUT (measured, 9.7)
      {server(1213), true},                               // ER_LOCK_DEADLOCK (MDL victim)
      {server(1290), false},                              // read-only refusal
      {server(1227), false},                              // missing privilege
      {server(1317), false},                              // query interrupted
      {client(error_kind::timeout, 2013), false},         // client deadline: outcome unknown
      {client(error_kind::lost_connection, 2013), false},
      {client(error_kind::other, 1205), false},           // ours, whatever the number
  };
  for (const auto& r : table)
    BOOST_TEST_CONTEXT(r.e.to_string()) { BOOST_TEST(is_lock_wait_failure(r.e) == r.lock_wait); }
}

BOOST_AUTO_TEST_CASE(attempt_lock_wait_is_a_tenth_of_the_budget_within_bounds) {
  struct row {
    long budget_ms, elapsed_ms;
    bool first;
    long want_s;
  };
  const std::vector<row> table{
      {5000, 0, true, 1},      // fenceTimeout 5 s: a tenth is 0.5 s, the server's minimum is 1 s
      {20000, 0, true, 2},     // default FENCE_TIMEOUT: 2 s per attempt
      {60000, 0, true, 3},     // capped: writers queue behind the waiting SET
      {500, 0, true, 1},       // first attempt always runs, at the server minimum
      {0, 0, true, 1},
      {20000, 17500, false, 2},  // 2.5 s left: 2 s
      {20000, 18500, false, 1},  // 1.5 s left: only whole seconds that fit
      {20000, 19100, false, 0},  // 0.9 s left: no attempt fits
      {5000, 5000, false, 0},
      {5000, 7000, false, 0},    // past the deadline
      {5000, 7000, true, 1},     // (a first attempt is never skipped)
      {5000, 1200, false, 1},
  };
  for (const auto& r : table)
    BOOST_TEST_CONTEXT("budget " << r.budget_ms << " elapsed " << r.elapsed_ms << " first "
                                 << r.first) {
      BOOST_TEST(attempt_lock_wait(milliseconds{r.budget_ms}, milliseconds{r.elapsed_ms}, r.first)
                     .count() == r.want_s);
    }
}

BOOST_AUTO_TEST_CASE(next_step_after_an_attempt) {
  struct row {
    std::optional<mysql_error> err;
    long elapsed_ms, budget_ms;
    fence_next want;
  };
  const std::vector<row> table{
      {std::nullopt, 100, 5000, fence_next::done},
      {std::nullopt, 9000, 5000, fence_next::done},  // applied late is still applied
      {server(1205), 1050, 5000, fence_next::kill_blockers_and_retry},
      {server(1213), 20, 5000, fence_next::kill_blockers_and_retry},
      {server(1205), 3800, 5000, fence_next::kill_blockers_and_retry},  // 1.2 s left: one more
      {server(1205), 3801, 5000, fence_next::give_up_deadline},  // kill round + 1 s do not fit
      {server(1205), 4100, 5000, fence_next::give_up_deadline},
      {server(1205), 1050, 1000, fence_next::give_up_deadline},  // a sub-second budget: one try
      {server(1227), 10, 5000, fence_next::give_up_error},   // privileges: killing will not help
      {server(1290), 10, 5000, fence_next::give_up_error},
      {client(error_kind::timeout, 2013), 10, 5000, fence_next::give_up_error},  // caller probes
      {client(error_kind::lost_connection, 2013), 10, 5000, fence_next::give_up_error},
  };
  for (const auto& r : table)
    BOOST_TEST_CONTEXT((r.err ? r.err->to_string() : std::string("ok"))
                       << " elapsed " << r.elapsed_ms << " budget " << r.budget_ms) {
      BOOST_TEST(next_fence_step(r.err, milliseconds{r.elapsed_ms}, milliseconds{r.budget_ms}) ==
                 r.want);
    }
}

// A fence that keeps meeting a lock wait makes at most budget / min_lock_wait attempts and
// stops inside the budget: walk the rules with each attempt taking its full lock wait plus the
// kill round.
BOOST_AUTO_TEST_CASE(a_fence_that_always_waits_ends_within_its_budget) {
  for (long budget : {1000L, 2500L, 5000L, 20000L, 60000L}) {
    BOOST_TEST_CONTEXT("budget " << budget) {
      milliseconds elapsed{0};
      int attempts = 0;
      auto wait = attempt_lock_wait(milliseconds{budget}, elapsed, true);
      fence_next next = fence_next::kill_blockers_and_retry;
      while (next == fence_next::kill_blockers_and_retry && wait.count() > 0) {
        ++attempts;
        elapsed += wait;  // the attempt waits its whole lock wait, then fails
        next = next_fence_step(server(1205), elapsed, milliseconds{budget});
        if (next != fence_next::kill_blockers_and_retry) break;
        elapsed += kill_round_reserve;
        wait = attempt_lock_wait(milliseconds{budget}, elapsed, false);
      }
      BOOST_TEST(attempts >= 1);
      // The first attempt may overrun a sub-second budget by the server's minimum lock wait.
      BOOST_TEST(elapsed.count() <= std::max<long>(budget, 1000));
      BOOST_TEST(attempts <= std::max<long>(1, budget / 1000));
    }
  }
}

BOOST_AUTO_TEST_CASE(mysql8_lock_holder_text) {
  const auto& d = mysql8();
  const std::string sql = d.list_lock_holders_sql();
  BOOST_TEST(sql.rfind("SELECT DISTINCT", 0) == 0u);
  BOOST_TEST(sql.find(std::string(lock_holders_from_where)) != std::string::npos);
  // The columns kill_application_sessions parses.
  const auto& c = d.list_sessions_columns();
  for (const auto* col : {&c.id, &c.user, &c.host, &c.command})
    BOOST_TEST(sql.find(" AS " + *col) != std::string::npos, *col);
  // Global read lock and commit lock, granted intention-exclusive, never ourselves.
  BOOST_TEST(sql.find("OBJECT_TYPE IN ('GLOBAL', 'COMMIT')") != std::string::npos);
  BOOST_TEST(sql.find("LOCK_TYPE = 'INTENTION_EXCLUSIVE'") != std::string::npos);
  BOOST_TEST(sql.find("LOCK_STATUS = 'GRANTED'") != std::string::npos);
  BOOST_TEST(sql.find("PROCESSLIST_ID <> CONNECTION_ID()") != std::string::npos);
  BOOST_TEST(d.set_lock_wait_timeout_sql(seconds{2}) == "SET SESSION lock_wait_timeout = 2");
  BOOST_TEST(d.set_lock_wait_timeout_sql(seconds{0}) == "SET SESSION lock_wait_timeout = 1");
  BOOST_TEST(d.reset_lock_wait_timeout_sql() == "SET SESSION lock_wait_timeout = DEFAULT");
}

// The semi-sync release (docs/safety.md): clients off before the source side, only when the
// source side is on, never offline_mode on an already fenced server.
BOOST_AUTO_TEST_CASE(semisync_release_table) {
  struct row {
    semisync_fence_state in;
    semisync_fence_steps want;
  };
  const row rows[] = {
      // source on, fenced, offline              go_offline, kill, source_off
      {{false, false, false}, {false, false, false}},  // not semi-sync: a plain fence
      {{false, true, false}, {false, false, false}},
      {{false, false, true}, {false, false, false}},
      {{true, false, false}, {true, true, true}},      // a writable semi-sync primary
      {{true, false, true}, {false, true, true}},      // offline already (kept on afterwards)
      {{true, true, false}, {false, false, true}},     // fenced already: only release the applier
      {{true, true, true}, {false, false, true}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT("source_on " << r.in.source_on << " fenced " << r.in.fenced
                                    << " offline " << r.in.offline) {
      BOOST_TEST(plan_semisync_release(r.in) == r.want);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
