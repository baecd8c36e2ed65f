// `restore --replace` (spec.restoreInPlace's Job): which live targets are refused, with what
// message, and which schemas a replace drops (never MySQL's own nor the operator's); the reset
// that keeps binlog names increasing and the statement that keeps discarded GTIDs from reuse.
#include <boost/test/unit_test.hpp>

#include "io/backup/replace_target.hpp"

using namespace br::backup;

BOOST_AUTO_TEST_SUITE(backup_replace)

BOOST_AUTO_TEST_CASE(replace_refusal_table) {
  struct row {
    std::string what;
    replace_facts f;
    std::string expect;  ///< "" = accepted, else a piece of the message
  };
  const replace_facts fenced{"ON", true, true, 0, {}};
  auto with = [&](auto change) {
    auto f = fenced;
    change(f);
    return f;
  };
  const std::vector<row> rows = {
      {"fenced, alone, gtid ON", fenced, ""},
      {"super_read_only without read_only is still fenced", with([](replace_facts& f) { f.read_only = false; }), ""},
      {"writable", with([](replace_facts& f) { f.super_read_only = false; f.read_only = false; }),
       "is writable (super_read_only is OFF)"},
      {"read_only only (SUPER users still write)", with([](replace_facts& f) { f.super_read_only = false; }),
       "is writable (super_read_only is OFF, read_only ON)"},
      {"a replica attached", with([](replace_facts& f) { f.replicas_attached = 1; }), "still has 1 replica(s) attached"},
      {"two replicas, also writable: replicas named first", with([](replace_facts& f) { f.replicas_attached = 2; f.super_read_only = false; }),
       "still has 2 replica(s) attached"},
      {"replicating from someone", with([](replace_facts& f) { f.channels = {""}; }), "is a replica (channel (default) is not OFF)"},
      {"two named channels", with([](replace_facts& f) { f.channels = {"a", "b"}; }), "channel a, b is not OFF"},
      {"gtid_mode OFF", with([](replace_facts& f) { f.gtid_mode = "OFF"; }), "has gtid_mode OFF"},
      {"gtid_mode unread", with([](replace_facts& f) { f.gtid_mode = ""; }), "has gtid_mode NULL"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto e = replace_refusal(r.f, "db:3306");
      if (r.expect.empty()) {
        BOOST_TEST(e == "");
      } else {
        BOOST_TEST(e.find(r.expect) != std::string::npos, e);
        BOOST_TEST(e.find("the target db:3306") == 0u, e);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(schemas_to_drop_keeps_system_and_operator_schemas) {
  const std::vector<std::string> all = {"appdb", "bloodraven", "information_schema", "mysql", "performance_schema",
                                        "shop", "sys", "Sys2", "MySQL", "a`b"};
  const std::vector<std::string> expect = {"appdb", "shop", "Sys2", "a`b"};
  BOOST_TEST(schemas_to_drop(all) == expect, boost::test_tools::per_element());
  BOOST_TEST(schemas_to_drop({}).empty());
}

BOOST_AUTO_TEST_CASE(identifiers_are_quoted) {
  BOOST_TEST(quote_identifier("appdb") == "`appdb`");
  BOOST_TEST(quote_identifier("a`b") == "`a``b`");
  BOOST_TEST(quote_identifier("") == "``");
}

BOOST_AUTO_TEST_CASE(reset_keeps_binlog_names_increasing_table) {
  struct row {
    std::string what;
    std::vector<std::string> names;
    std::string statement;  // "" = refused
    std::string error_part;
  };
  const std::vector<row> rows = {
      {"past the highest index", {"binlog.000003", "binlog.000004", "binlog.000005"}, "RESET BINARY LOGS AND GTIDS TO 6", ""},
      {"by number, not by text", {"binlog.999999", "binlog.1000000"}, "RESET BINARY LOGS AND GTIDS TO 1000001", ""},
      {"unsorted", {"binlog.000009", "binlog.000002"}, "RESET BINARY LOGS AND GTIDS TO 10", ""},
      {"binary logging off: the plain reset", {}, "RESET BINARY LOGS AND GTIDS", ""},
      {"a name without an index", {"binlog.000001", "binlog"}, "", "binary log binlog has no index number"},
      {"MySQL's last index", {"binlog.2000000000"}, "", "leaves no higher one"},
      {"one below it", {"binlog.1999999999"}, "RESET BINARY LOGS AND GTIDS TO 2000000000", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      std::string error;
      auto st = reset_statement(r.names, error);
      BOOST_TEST(st.value_or("") == r.statement);
      if (r.error_part.empty()) BOOST_TEST(error == "");
      else BOOST_TEST(error.find(r.error_part) != std::string::npos, error);
    }
  }
}

BOOST_AUTO_TEST_CASE(account_statements_table) {
  struct row {
    std::string statement;
    bool account;
  };
  const std::vector<row> rows = {
      {"CREATE USER 'app'@'%' IDENTIFIED WITH 'caching_sha2_password' AS '$A$005$x'", true},
      {"create user if not exists 'app'@'%'", true},
      {"ALTER USER 'app'@'%' IDENTIFIED WITH 'caching_sha2_password' AS 'x'", true},  // SET PASSWORD as logged
      {"DROP USER 'app'@'%' /* xid=11 */", true},
      {"RENAME USER 'a'@'%' TO 'b'@'%'", true},
      {"GRANT SELECT ON `appdb`.* TO 'app'@'%' /* xid=8 */", true},
      {"REVOKE ALL ON *.* FROM 'app'@'%'", true},
      {"CREATE ROLE r1 /* xid=10 */", true},
      {"DROP ROLE r1", true},
      {"SET DEFAULT ROLE r1 TO 'app'@'%'", true},
      {"SET PASSWORD FOR 'app'@'%' = 'x'", true},
      {"  /* a comment */\n  GRANT\tSELECT ON t TO u", true},
      {"BEGIN", false},
      {"CREATE TABLE usernames (id INT)", false},
      {"CREATE USERS_TABLE", false},
      {"CREATE DEFINER=`root`@`%` EVENT e ON SCHEDULE EVERY 1 SECOND DO SELECT 1", false},
      {"GRANTED", false},
      {"ALTER TABLE user ADD c INT", false},
      {"DROP TABLE `grant`", false},
      {"INSERT INTO mysql.user VALUES ()", false},
      {"/* unterminated comment GRANT", false},
      {"", false},
  };
  for (const auto& r : rows) BOOST_TEST(is_account_statement(r.statement) == r.account, r.statement);
}

BOOST_AUTO_TEST_CASE(discarded_gtids_are_subtracted_by_the_server) {
  auto before = br::gtid_set::parse("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-110,\n4e11fa47-71ca-11e1-9e33-c80aa9429562:1-3");
  BOOST_TEST_REQUIRE(before.has_value());
  BOOST_TEST(mark_discarded_statement(*before) ==
             "SET GLOBAL gtid_purged = CONCAT('+', GTID_SUBTRACT('3e11fa47-71ca-11e1-9e33-c80aa9429562:1-110,"
             "4e11fa47-71ca-11e1-9e33-c80aa9429562:1-3', @@GLOBAL.gtid_executed))");
}

BOOST_AUTO_TEST_SUITE_END()
