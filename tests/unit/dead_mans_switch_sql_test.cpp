// Table tests of the dead man's switch's pure parts: arming rule, state/comment parsing, SQL text.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "io/mysql/dead_mans_switch_sql.hpp"
#include "io/mysql/lock_holders_sql.hpp"

using namespace br::mysql;
using std::chrono::milliseconds;

BOOST_AUTO_TEST_SUITE(dead_mans_switch_sql)

BOOST_AUTO_TEST_CASE(armed_only_with_scheduler_on_and_event_enabled) {
  struct row {
    scheduler_state sched;
    event_status status;
    switch_arming want;
  };
  const std::vector<row> table = {
      {scheduler_state::on, event_status::enabled, switch_arming::armed},
      {scheduler_state::on, event_status::missing, switch_arming::event_missing},
      {scheduler_state::on, event_status::disabled, switch_arming::event_disabled},
      {scheduler_state::on, event_status::replica_side_disabled, switch_arming::event_replica_only},
      {scheduler_state::on, event_status::unknown, switch_arming::unknown},
      // The scheduler is the more fundamental cause: it is named even when the event is fine.
      {scheduler_state::off, event_status::enabled, switch_arming::scheduler_off},
      {scheduler_state::off, event_status::missing, switch_arming::scheduler_off},
      {scheduler_state::disabled, event_status::enabled, switch_arming::scheduler_disabled},
      {scheduler_state::unknown, event_status::enabled, switch_arming::unknown},
  };
  for (const auto& r : table) {
    BOOST_TEST_CONTEXT(r.sched << " / " << r.status) {
      BOOST_TEST(assess_switch(r.sched, r.status) == r.want);
      BOOST_TEST(is_armed(assess_switch(r.sched, r.status)) == (r.want == switch_arming::armed));
    }
  }
}

BOOST_AUTO_TEST_CASE(full_assessment_checks_definer_and_lease) {
  const milliseconds lease{3000};
  const auto on = scheduler_state::on;
  const auto en = event_status::enabled;
  BOOST_TEST(assess_switch(on, en, true, lease, lease) == switch_arming::armed);
  // Could not check the definer (no SELECT on mysql.*): not held against the switch.
  BOOST_TEST(assess_switch(on, en, std::nullopt, lease, lease) == switch_arming::armed);
  BOOST_TEST(assess_switch(on, en, false, lease, lease) == switch_arming::definer_cannot_fence);
  BOOST_TEST(assess_switch(on, en, true, milliseconds{2000}, lease) ==
             switch_arming::lease_mismatch);
  BOOST_TEST(assess_switch(on, en, true, std::nullopt, lease) == switch_arming::lease_mismatch);
  // Scheduler/event causes come first.
  BOOST_TEST(assess_switch(scheduler_state::off, en, false, std::nullopt, lease) ==
             switch_arming::scheduler_off);
  BOOST_TEST(assess_switch(on, event_status::missing, false, std::nullopt, lease) ==
             switch_arming::event_missing);
}

BOOST_AUTO_TEST_CASE(parses_server_values) {
  BOOST_TEST(parse_scheduler_state(std::string("ON")) == scheduler_state::on);
  BOOST_TEST(parse_scheduler_state(std::string("on")) == scheduler_state::on);
  BOOST_TEST(parse_scheduler_state(std::string("OFF")) == scheduler_state::off);
  BOOST_TEST(parse_scheduler_state(std::string("DISABLED")) == scheduler_state::disabled);
  BOOST_TEST(parse_scheduler_state(std::string("1")) == scheduler_state::on);
  BOOST_TEST(parse_scheduler_state(std::string("maybe")) == scheduler_state::unknown);
  BOOST_TEST(parse_scheduler_state(std::nullopt) == scheduler_state::unknown);
  BOOST_TEST(parse_event_status(std::string("ENABLED")) == event_status::enabled);
  BOOST_TEST(parse_event_status(std::string("DISABLED")) == event_status::disabled);
  BOOST_TEST(parse_event_status(std::string("SLAVESIDE_DISABLED")) ==
             event_status::replica_side_disabled);
  BOOST_TEST(parse_event_status(std::string("REPLICA_SIDE_X")) == event_status::unknown);
  BOOST_TEST(parse_event_status(std::nullopt) == event_status::missing);
}

BOOST_AUTO_TEST_CASE(comment_round_trips_the_lease) {
  for (long ms : {1L, 999L, 1000L, 3000L, 20000L, 86400000L}) {
    BOOST_TEST_CONTEXT("lease " << ms << " ms") {
      const auto c = switch_comment(milliseconds{ms});
      BOOST_TEST(c.find(std::to_string(ms * 1000)) != std::string::npos);
      BOOST_TEST((parse_switch_comment(c) == std::optional<milliseconds>(milliseconds{ms})));
    }
  }
  BOOST_TEST(!parse_switch_comment(""));
  BOOST_TEST(!parse_switch_comment("someone else's event"));
  // An older body version is not ours any more: ensure_switch re-creates it.
  BOOST_TEST(!parse_switch_comment("bloodraven dead-mans-switch v0 lease_us=3000000"));
  // v1 waited on locks for the server's lock_wait_timeout (a year): replaced by v2; v2 could
  // not fence a semi-synchronous source with commits waiting for acknowledgements: v3.
  BOOST_TEST(!parse_switch_comment("bloodraven dead-mans-switch v1 lease_us=3000000"));
  BOOST_TEST(!parse_switch_comment("bloodraven dead-mans-switch v2 lease_us=3000000"));
  BOOST_TEST((parse_switch_comment("bloodraven dead-mans-switch v3 lease_us=3000000") ==
              std::optional<milliseconds>(milliseconds{3000})));
  BOOST_TEST(!parse_switch_comment("bloodraven dead-mans-switch v3 lease_us="));
  BOOST_TEST(!parse_switch_comment("bloodraven dead-mans-switch v3 lease_us=3000000x"));
  BOOST_TEST(!parse_switch_comment("bloodraven dead-mans-switch v3 lease_us=1500"));  // not ms
  BOOST_TEST(!parse_switch_comment("bloodraven dead-mans-switch v3 lease_us=-1000"));
}

BOOST_AUTO_TEST_CASE(event_sql_bakes_in_the_lease_and_server_clock) {
  const auto sql = create_event_sql(milliseconds{2500});
  BOOST_TEST(sql.find("CREATE EVENT bloodraven.dead_mans_switch") == 0u);
  BOOST_TEST(sql.find("EVERY 1 SECOND") != std::string::npos);
  BOOST_TEST(sql.find("INTERVAL 2500000 MICROSECOND") != std::string::npos);
  BOOST_TEST(sql.find("'" + switch_comment(milliseconds{2500}) + "'") != std::string::npos);
  BOOST_TEST(sql.find("@@GLOBAL.super_read_only = 0") != std::string::npos);
  BOOST_TEST(sql.find("SET GLOBAL super_read_only = ON") != std::string::npos);
  // Both sides of the comparison use the server's UTC clock (no session time zone involved).
  BOOST_TEST(sql.find("UTC_TIMESTAMP(6) - INTERVAL") != std::string::npos);
  BOOST_TEST(refresh_heartbeat_sql().find("UTC_TIMESTAMP(6)") != std::string::npos);
  BOOST_TEST(sql.find("NOW(") == std::string::npos);
}

namespace {
size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}
}  // namespace

// The body must not wait a year behind LOCK TABLES ... WRITE or a running write: a short lock
// wait set before its first statement, the SET retried a bounded number of times with the lock
// holders killed in between, and the kill policy of fencing.hpp spelled in SQL.
BOOST_AUTO_TEST_CASE(event_sql_bounds_the_fence_and_kills_lock_holders) {
  const auto sql = create_event_sql(milliseconds{2500});
  const auto lock_wait = sql.find("SET SESSION lock_wait_timeout = " +
                                  std::to_string(event_lock_wait_s) + ";");
  BOOST_TEST_REQUIRE(lock_wait != std::string::npos);
  // Before the heartbeat read and before the SET: every statement of the body is bounded.
  BOOST_TEST(lock_wait < sql.find("NOT EXISTS (SELECT 1 FROM"));
  BOOST_TEST(lock_wait < sql.find("SET GLOBAL super_read_only = ON"));
  BOOST_TEST(event_lock_wait_s >= 1);  // the server's minimum
  // A lock wait (and only that) is caught, and the retry count is bounded.
  BOOST_TEST(sql.find("CONTINUE HANDLER FOR 1205, 1213 SET blocked = 1") != std::string::npos);
  BOOST_TEST(sql.find("attempt >= " + std::to_string(event_fence_attempts) + " THEN LEAVE fence") !=
             std::string::npos);
  BOOST_TEST(event_fence_attempts >= 2);
  BOOST_TEST(count_of(sql, "SET GLOBAL super_read_only = ON") == 1u);  // once, inside the loop
  // The victims are the lock holders (the same definition the operator and sidecar use).
  BOOST_TEST(sql.find(std::string(lock_holders_from_where)) != std::string::npos);
  BOOST_TEST(sql.find("KILL CONNECTION victim") != std::string::npos);
  // Kill policy: no system or scheduler thread, no replication feed or daemon, not the definer.
  for (const char* spared :
       {"'system user'", "'event_scheduler'", "'Binlog Dump'", "'Binlog Dump GTID'", "'Daemon'",
        "SUBSTRING_INDEX(CURRENT_USER(), '@', 1)"})
    BOOST_TEST(sql.find(spared) != std::string::npos, spared);
  // Declarations in the order MySQL requires per block (variables, cursor, handlers), the kill
  // round's failures end that round only, and each KILL's failure only that KILL.
  const auto kills = sql.find("kills: BEGIN");
  BOOST_TEST_REQUIRE(kills != std::string::npos);
  const auto cursor = sql.find("DECLARE victims CURSOR FOR", kills);
  const auto not_found = sql.find("DECLARE CONTINUE HANDLER FOR NOT FOUND", kills);
  const auto exit_handler = sql.find("DECLARE EXIT HANDLER FOR SQLEXCEPTION", kills);
  BOOST_TEST((cursor != std::string::npos && cursor < not_found && not_found < exit_handler));
  BOOST_TEST(sql.find("BEGIN DECLARE CONTINUE HANDLER FOR SQLEXCEPTION BEGIN END; KILL CONNECTION "
                      "victim; END;") != std::string::npos);
  // Balanced blocks: the text is one compound statement.
  BOOST_TEST(count_of(sql, "BEGIN") == count_of(sql, " END") - count_of(sql, "END IF") -
                                           count_of(sql, "END LOOP"));
  BOOST_TEST(count_of(sql, " LOOP") == 2 * count_of(sql, "END LOOP"));
}

BOOST_AUTO_TEST_CASE(definer_splits_at_the_last_at_sign) {
  BOOST_TEST((split_definer("bloodraven@%") == std::optional<account_name>({"bloodraven", "%"})));
  BOOST_TEST((split_definer("a@b@localhost") ==
              std::optional<account_name>({"a@b", "localhost"})));
  BOOST_TEST((split_definer("@localhost") == std::optional<account_name>({"", "localhost"})));
  BOOST_TEST(!split_definer("nobody"));
}

// A semi-synchronous source (v3): after a blocked attempt, clients off (offline_mode, the kill
// round) before the source side goes off, the source side PREPAREd (the variable exists only with
// the plugin), and offline_mode back OFF only when this run set it and the server is fenced.
BOOST_AUTO_TEST_CASE(event_sql_releases_a_semisync_source_after_its_clients) {
  const auto sql = create_event_sql(milliseconds{2500});
  const auto blocked_exit = sql.find("THEN LEAVE fence");
  const auto offline_on = sql.find("SET GLOBAL offline_mode = ON");
  const auto kills = sql.find("kills: BEGIN");
  const auto source_off = sql.find("PREPARE source_off FROM 'SET GLOBAL rpl_semi_sync_source_enabled = OFF'");
  const auto offline_off = sql.find("SET GLOBAL offline_mode = OFF");
  BOOST_TEST_REQUIRE(offline_on != std::string::npos);
  BOOST_TEST_REQUIRE(source_off != std::string::npos);
  BOOST_TEST_REQUIRE(offline_off != std::string::npos);
  BOOST_TEST(blocked_exit < offline_on);  // only after an attempt was blocked
  BOOST_TEST(offline_on < kills);
  BOOST_TEST(kills < source_off);
  BOOST_TEST(source_off < sql.find("END LOOP fence"));
  BOOST_TEST(sql.find("END LOOP fence") < offline_off);
  BOOST_TEST(sql.find("VARIABLE_NAME = 'rpl_semi_sync_source_enabled' AND VARIABLE_VALUE = 'ON'") <
             offline_on);
  BOOST_TEST(sql.find("@@GLOBAL.offline_mode = 0 THEN SET GLOBAL offline_mode = ON; SET went_offline = 1") !=
             std::string::npos);
  BOOST_TEST(sql.find("IF went_offline = 1 AND @@GLOBAL.super_read_only = 1 THEN SET GLOBAL offline_mode = OFF") !=
             std::string::npos);
  BOOST_TEST(count_of(sql, "rpl_semi_sync_source_enabled = OFF") == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
