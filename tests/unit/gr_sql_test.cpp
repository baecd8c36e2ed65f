// io/mysql/group_replication's pure parts: the snapshot parser (rows as MySQL 9.7 returns them
// for gr_snapshot_sql) and the statements of a START / bootstrap.
#include <boost/test/unit_test.hpp>

#include "io/mysql/group_replication.hpp"
#include "io/mysql/sql_text.hpp"

using namespace br;
using namespace br::mysql;

namespace {

const std::vector<std::string> cols = {"self_id",      "group_name",  "plugin_loaded",
                                       "view_id",      "member_id",   "member_host",
                                       "member_port",  "member_state", "member_role",
                                       "member_version"};

row r(std::vector<std::optional<std::string>> v) {
  return v;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(gr_sql)

BOOST_AUTO_TEST_CASE(three_online_members) {
  query_result q;
  q.columns = cols;
  const std::string g = "8a94f357-aab4-11df-86ab-c80aa9429562";
  q.rows = {r({"u1", g, "1", "17:3", "u1", "10.0.0.1", "3306", "ONLINE", "PRIMARY", "9.7.4"}),
            r({"u1", g, "1", "17:3", "u2", "10.0.0.2", "3306", "ONLINE", "SECONDARY", "9.7.4"}),
            r({"u1", g, "1", "17:3", "u3", "10.0.0.3", "3307", "RECOVERING", "SECONDARY",
               "9.7.4"})};
  auto s = parse_gr_snapshot(q);
  BOOST_TEST_REQUIRE(s.ok());
  BOOST_TEST(s->plugin_loaded);
  BOOST_TEST(s->member_id == "u1");
  BOOST_TEST(s->group_name == g);
  BOOST_TEST(s->view_id == "17:3");
  BOOST_TEST(s->self_state == "ONLINE");
  BOOST_TEST_REQUIRE(s->rows.size() == 3u);
  BOOST_TEST(s->rows[2].port == 3307);
  BOOST_TEST(s->rows[2].state == "RECOVERING");
  BOOST_TEST(s->rows[0].role == "PRIMARY");
}

BOOST_AUTO_TEST_CASE(plugin_absent_or_stopped) {
  query_result q;
  q.columns = cols;
  // No plugin: the LEFT JOIN's single row with NULL member columns.
  q.rows = {r({"u1", std::nullopt, "0", std::nullopt, std::nullopt, std::nullopt, std::nullopt,
               std::nullopt, std::nullopt, std::nullopt})};
  auto s = parse_gr_snapshot(q);
  BOOST_TEST_REQUIRE(s.ok());
  BOOST_TEST(!s->plugin_loaded);
  BOOST_TEST(s->rows.empty());
  BOOST_TEST(s->self_state.empty());
  // Loaded but stopped: one row, the member itself, OFFLINE, no role, no view (measured on 9.7).
  q.rows = {r({"u1", "", "1", std::nullopt, "u1", "h", "3306", "OFFLINE", "", "9.7.4"})};
  s = parse_gr_snapshot(q);
  BOOST_TEST_REQUIRE(s.ok());
  BOOST_TEST(s->plugin_loaded);
  BOOST_TEST(s->self_state == "OFFLINE");
  BOOST_TEST(s->view_id.empty());
}

BOOST_AUTO_TEST_CASE(malformed_results_are_errors) {
  query_result q;
  q.columns = cols;
  q.rows = {r({"u1", "", "1", "", "u1", "h", "33o6", "ONLINE", "PRIMARY", "9.7.4"})};
  BOOST_TEST(!parse_gr_snapshot(q).ok());
  q.rows.clear();
  BOOST_TEST(!parse_gr_snapshot(q).ok());
  q.columns.pop_back();
  q.rows = {r({"u1", "", "1", "", "u1", "h", "3306", "ONLINE", "PRIMARY"})};
  BOOST_TEST(!parse_gr_snapshot(q).ok());
}

BOOST_AUTO_TEST_CASE(settings_and_start_statements) {
  gr_settings s;
  s.group_name = "8a94f357-aab4-11df-86ab-c80aa9429562";
  s.local_address = "10.0.0.1:3306";
  s.group_seeds = "10.0.0.1:3306,10.0.0.2:3306";
  s.consistency = "BEFORE_ON_PRIMARY_FAILOVER";
  s.exit_state_action = "READ_ONLY";
  s.auto_rejoin_tries = 3;
  sql_quoter q;
  auto sql = gr_settings_sql(s, q);
  auto has = [&](const std::string& x) {
    return std::find(sql.begin(), sql.end(), x) != sql.end();
  };
  // The bootstrap flag is switched off before every START (never left ON by anyone).
  BOOST_TEST(sql.front() == "SET GLOBAL group_replication_bootstrap_group = OFF");
  BOOST_TEST(has("SET GLOBAL group_replication_start_on_boot = OFF"));
  BOOST_TEST(has("SET GLOBAL group_replication_single_primary_mode = ON"));
  // The MySQL stack: no XCom allowlist between members on different nodes (docs/group-replication.md).
  BOOST_TEST(has("SET GLOBAL group_replication_communication_stack = 'MYSQL'"));
  BOOST_TEST(has("SET GLOBAL group_replication_local_address = '10.0.0.1:3306'"));
  BOOST_TEST(has("SET GLOBAL group_replication_group_name = '" + s.group_name + "'"));
  BOOST_TEST(has("SET GLOBAL group_replication_group_seeds = '" + s.group_seeds + "'"));
  BOOST_TEST(has("SET GLOBAL group_replication_autorejoin_tries = 3"));
  BOOST_TEST(has("SET GLOBAL group_replication_ssl_mode = 'REQUIRED'"));  // recovery_ssl default
  s.recovery_ssl = false;
  auto plain = gr_settings_sql(s, q);
  BOOST_TEST((std::find(plain.begin(), plain.end(),
                        "SET GLOBAL group_replication_ssl_mode = 'DISABLED'") != plain.end()));
  BOOST_TEST(gr_start_sql("repl", "it's", q) ==
             "START GROUP_REPLICATION USER = 'repl', PASSWORD = 'it''s'");
  BOOST_TEST(gr_start_sql("", "", q) == "START GROUP_REPLICATION");
}

// The TLS statements (issue 26), one row per case: spec.tls (ssl_ca) verifies the group
// communication and the recovery channel whatever spec.replication.tls says; without it
// spec.replication.tls only encrypts. Each row lists the statement for each variable, or "" when
// it must not be sent.
BOOST_AUTO_TEST_CASE(tls_statements_per_case) {
  struct row_t {
    bool encrypt;
    std::string ca;
    std::string ssl_mode, use_ssl, ca_sql, verify, public_key;
  };
  const std::vector<row_t> rows = {
      {true, "/etc/mysql/tls/ca.crt", "'VERIFY_IDENTITY'", "ON", "'/etc/mysql/tls/ca.crt'", "ON",
       "OFF"},
      {false, "/ca's.pem", "'VERIFY_IDENTITY'", "ON", "'/ca''s.pem'", "ON", "OFF"},
      {true, "", "'REQUIRED'", "ON", "", "", "ON"},
      {false, "", "'DISABLED'", "OFF", "", "", "ON"},
  };
  sql_quoter q;
  for (const auto& rw : rows) {
    BOOST_TEST_CONTEXT("encrypt " << rw.encrypt << " ca '" << rw.ca << "'") {
      gr_settings s;
      s.group_name = "8a94f357-aab4-11df-86ab-c80aa9429562";
      s.recovery_ssl = rw.encrypt;
      s.ssl_ca = rw.ca;
      const auto sql = gr_settings_sql(s, q);
      auto value_of = [&](const std::string& var) {
        const std::string prefix = "SET GLOBAL " + var + " = ";
        std::string found;
        int n = 0;
        for (const auto& x : sql)
          if (x.starts_with(prefix)) found = x.substr(prefix.size()), ++n;
        BOOST_TEST(n <= 1, var << " set " << n << " times");
        return found;
      };
      BOOST_TEST(value_of("group_replication_ssl_mode") == rw.ssl_mode);
      BOOST_TEST(value_of("group_replication_recovery_use_ssl") == rw.use_ssl);
      BOOST_TEST(value_of("group_replication_recovery_ssl_ca") == rw.ca_sql);
      BOOST_TEST(value_of("group_replication_recovery_ssl_verify_server_cert") == rw.verify);
      BOOST_TEST(value_of("group_replication_recovery_get_public_key") == rw.public_key);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
