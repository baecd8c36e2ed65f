// Unit tests of io/mysql parts that need no server: quoting, session filter, dialect text, probe
// rows.
#include <boost/test/unit_test.hpp>

#include <vector>

#include "io/mysql/fencing.hpp"
#include "io/mysql/mysql8_dialect.hpp"
#include "io/mysql/probe.hpp"
#include "io/mysql/probe_wire.hpp"

using namespace br::mysql;

namespace {
const char* kUuidA = "bd414d9a-e603-11f1-821b-02fc00000001";

probe_row replica_row() {
  probe_row r;
  r["read_only"] = "1";
  r["super_read_only"] = "1";
  r["gtid_executed"] = std::string(kUuidA) + ":1-5,\nbf5d5d75-e603-11f1-aa37-02fc00000001:1-2";
  r["server_uuid"] = "bf5d5d75-e603-11f1-aa37-02fc00000001";
  r["server_id"] = "102";
  r["version"] = "9.7.4-2";
  r["channel_configured"] = "1";
  r["io_state"] = "CONNECTING";
  r["sql_state"] = "ON";
  r["source_host"] = "127.0.0.1";
  r["source_port"] = "3317";
  r["seconds_behind_source"] = std::nullopt;
  r["last_io_errno"] = "2003";
  r["last_io_error"] = "error connecting to source ... attempt 2/10";
  r["last_sql_errno"] = std::nullopt;
  r["last_sql_error"] = std::nullopt;
  r["received_set"] = std::string(kUuidA) + ":1-5";
  r["source_uuid"] = std::string(kUuidA);
  r["uptime"] = "3600";
  r["started_at"] = "1795749600";
  // No semi-sync plugin loaded: performance_schema has no rows, the pivots answer NULL.
  for (auto col : {"ss_source_enabled", "ss_source_status", "ss_wait_point", "ss_wait_count",
                   "ss_timeout", "ss_wait_no_replica", "ss_clients", "ss_replica_enabled",
                   "ss_replica_status", "ss_no_tx", "ss_wait_sessions"})
    r[col] = std::nullopt;
  return r;
}
}  // namespace

BOOST_AUTO_TEST_SUITE(mysql_adapter_pure)

BOOST_AUTO_TEST_CASE(quoting_escapes_quotes_and_backslashes) {
  sql_quoter q;
  BOOST_TEST(q("") == "''");
  BOOST_TEST(q("abc") == "'abc'");
  BOOST_TEST(q("it's") == "'it''s'");
  BOOST_TEST(q("a\\b") == "'a\\\\b'");
  BOOST_TEST(q(std::string("a\nb\0c", 5)) == "'a\\nb\\0c'");
  sql_quoter nbe{true};
  BOOST_TEST(nbe("a\\b'c") == "'a\\b''c'");
}

BOOST_AUTO_TEST_CASE(session_filter_keeps_replication_and_system_sessions) {
  kill_policy policy{{"bloodraven", "monitor"}};
  const uint64_t own = 7;
  auto app = [](uint64_t id, std::optional<std::string> user, std::string cmd) {
    return session_info{id, std::move(user), "127.0.0.1:5000", std::move(cmd)};
  };
  BOOST_TEST(is_application_session(app(10, "app", "Sleep"), own, policy));
  BOOST_TEST(is_application_session(app(11, "root", "Query"), own, policy));
  BOOST_TEST(!is_application_session(app(7, "app", "Sleep"), own, policy));  // ourselves
  BOOST_TEST(!is_application_session(app(12, "system user", "Connect"), own, policy));
  BOOST_TEST(!is_application_session(app(13, "event_scheduler", "Daemon"), own, policy));
  BOOST_TEST(!is_application_session(app(14, "", "Query"), own, policy));
  BOOST_TEST(!is_application_session(app(15, std::nullopt, "Sleep"), own, policy));
  BOOST_TEST(!is_application_session(app(16, "repl", "Binlog Dump GTID"), own, policy));
  BOOST_TEST(!is_application_session(app(17, "repl", "Binlog Dump"), own, policy));
  BOOST_TEST(!is_application_session(app(18, "x", "Daemon"), own, policy));
  BOOST_TEST(!is_application_session(app(19, "bloodraven", "Sleep"), own, policy));
  BOOST_TEST(!is_application_session(app(20, "monitor", "Query"), own, policy));
  BOOST_TEST(is_application_session(app(21, "Bloodraven", "Sleep"), own, policy));  // exact names
}

BOOST_AUTO_TEST_CASE(mysql8_probe_is_one_select) {
  auto stmts = mysql8().probe_statements("", sql_quoter{});
  BOOST_TEST_REQUIRE(stmts.size() == 1u);
  BOOST_TEST(stmts[0].rfind("SELECT", 0) == 0u);
  BOOST_TEST(stmts[0].find("{ch}") == std::string::npos);
  BOOST_TEST(stmts[0].find(';') == std::string::npos);
  // Every column the parser needs is produced by the statement.
  const auto& c = mysql8().probe_columns();
  for (const auto* col :
       {&c.read_only, &c.super_read_only, &c.gtid_executed, &c.server_uuid, &c.server_id,
        &c.version, &c.channel_configured, &c.io_state, &c.sql_state, &c.source_host,
        &c.source_port, &c.seconds_behind_source, &c.last_io_errno, &c.last_io_error,
        &c.last_sql_errno, &c.last_sql_error, &c.received_set, &c.uptime, &c.started_at, &c.ss_source_enabled,
        &c.ss_source_status, &c.ss_wait_point, &c.ss_wait_count, &c.ss_timeout,
        &c.ss_wait_no_replica, &c.ss_clients, &c.ss_replica_enabled, &c.ss_replica_status,
        &c.source_uuid, &c.ss_no_tx, &c.ss_wait_sessions})
    BOOST_TEST(stmts[0].find(" AS " + *col) != std::string::npos, *col);
  // The channel name is a quoted literal.
  auto named = mysql8().probe_statements("eu'1", sql_quoter{});
  BOOST_TEST(named[0].find("CHANNEL_NAME = 'eu''1'") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(mysql8_statement_text) {
  const auto& d = mysql8();
  sql_quoter q;
  BOOST_TEST(d.fence_sql() == "SET GLOBAL super_read_only = ON");
  BOOST_TEST(d.promote_sql().size() == 3u);
  BOOST_TEST(d.kill_sql(42) == "KILL CONNECTION 42");
  BOOST_TEST(d.stop_replica_sql("", replica_threads::sql_thread, q) ==
             "STOP REPLICA SQL_THREAD FOR CHANNEL ''");
  BOOST_TEST(d.start_replica_sql("", replica_threads::both, q) == "START REPLICA FOR CHANNEL ''");
  BOOST_TEST(d.reset_replica_all_sql("", q) == "RESET REPLICA ALL FOR CHANNEL ''");
  replication_source src;
  src.host = "10.0.0.5";
  src.port = 3317;
  src.user = "repl";
  src.password = "p'w";
  src.ssl = false;
  src.connect_retry = std::chrono::seconds{2};
  src.retry_count = 86400;
  BOOST_TEST(d.change_source_sql(src, "", q) ==
             "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '10.0.0.5', SOURCE_PORT = 3317, "
             "SOURCE_USER = 'repl', SOURCE_PASSWORD = 'p''w', SOURCE_AUTO_POSITION = 1, "
             "SOURCE_SSL = 0, GET_SOURCE_PUBLIC_KEY = 1, SOURCE_CONNECT_RETRY = 2, "
             "SOURCE_RETRY_COUNT = 86400 FOR CHANNEL ''");
  // spec.tls (issue 26): verified TLS, no public-key fetching, whatever ssl/get_public_key say.
  src.ssl_ca = "/etc/mysql/tls/ca.crt";
  BOOST_TEST(d.change_source_sql(src, "", q) ==
             "CHANGE REPLICATION SOURCE TO SOURCE_HOST = '10.0.0.5', SOURCE_PORT = 3317, "
             "SOURCE_USER = 'repl', SOURCE_PASSWORD = 'p''w', SOURCE_AUTO_POSITION = 1, "
             "SOURCE_SSL = 1, SOURCE_SSL_CA = '/etc/mysql/tls/ca.crt', "
             "SOURCE_SSL_VERIFY_SERVER_CERT = 1, GET_SOURCE_PUBLIC_KEY = 0, "
             "SOURCE_CONNECT_RETRY = 2, SOURCE_RETRY_COUNT = 86400 FOR CHANNEL ''");
  auto set = br::gtid_set::parse(std::string(kUuidA) + ":1-5");
  BOOST_TEST_REQUIRE(set.has_value());
  BOOST_TEST(d.wait_for_executed_sql(*set, std::chrono::seconds{5}, q) ==
             "SELECT WAIT_FOR_EXECUTED_GTID_SET('" + std::string(kUuidA) +
                 ":1-5', 5) AS timed_out");
  clone_donor donor{"127.0.0.1", 3318, "repl", "replpw"};
  BOOST_TEST(d.clone_sql(donor, q) ==
             "CLONE INSTANCE FROM 'repl'@'127.0.0.1':3318 IDENTIFIED BY 'replpw'");
  BOOST_TEST(d.set_clone_donor_list_sql(donor, q) ==
             "SET GLOBAL clone_valid_donor_list = '127.0.0.1:3318'");
  // spec.tls (issue 26): the donor's certificate must chain to the CA.
  donor.ssl_ca = "/etc/mysql/tls/ca.crt";
  BOOST_TEST(d.clone_sql(donor, q) ==
             "CLONE INSTANCE FROM 'repl'@'127.0.0.1':3318 IDENTIFIED BY 'replpw' REQUIRE SSL");
  BOOST_TEST(d.set_clone_ssl_ca_sql(donor, q) ==
             "SET GLOBAL clone_ssl_ca = '/etc/mysql/tls/ca.crt'");
}

BOOST_AUTO_TEST_CASE(probe_row_of_a_connecting_replica) {
  auto p = parse_probe_row(replica_row(), mysql8());
  BOOST_TEST_REQUIRE(p.ok(), (p.ok() ? "" : p.error().to_string()));
  BOOST_TEST(p->read_only);
  BOOST_TEST(p->super_read_only);
  BOOST_TEST(!p->writable());
  BOOST_TEST(p->server_id == 102u);
  BOOST_TEST(p->version == "9.7.4-2");
  BOOST_TEST(p->gtid_executed.count() == 7u);
  BOOST_TEST(p->channel.configured);
  BOOST_TEST((p->channel.io == thread_state::connecting));
  BOOST_TEST((p->channel.sql == thread_state::on));
  BOOST_TEST(p->channel.source_port == 3317);
  BOOST_TEST(!p->channel.seconds_behind_source.has_value());
  BOOST_TEST(p->channel.last_io_errno == 2003u);
  BOOST_TEST(p->channel.last_sql_errno == 0u);
  BOOST_TEST(p->channel.received.count() == 5u);
}

// While SET GLOBAL super_read_only=ON waits for a lock, the server shows read_only=0 and
// super_read_only=1 (MySQL 9.7) although nothing is enforced: the probe must not call that fenced.
BOOST_AUTO_TEST_CASE(probe_row_of_a_fence_still_waiting_for_its_lock_is_not_fenced) {
  struct row {
    const char *ro, *sro;
    bool super_read_only, writable;
  };
  const std::vector<row> table{
      {"0", "1", false, true},  // the SET is pending: not fenced, writes resume when it gives up
      {"1", "1", true, false},  // fenced
      {"1", "0", false, false},  // read_only only (a replica, or the SET's second phase pending)
      {"0", "0", false, true},
  };
  for (const auto& t : table) {
    BOOST_TEST_CONTEXT("read_only " << t.ro << " super_read_only " << t.sro) {
      probe_row r = replica_row();
      r["read_only"] = t.ro;
      r["super_read_only"] = t.sro;
      auto p = parse_probe_row(r, mysql8());
      BOOST_TEST_REQUIRE(p.ok());
      BOOST_TEST(p->super_read_only == t.super_read_only);
      BOOST_TEST(p->writable() == t.writable);
    }
  }
}

BOOST_AUTO_TEST_CASE(probe_row_of_a_primary_without_channel) {
  probe_row r = replica_row();
  r["read_only"] = "0";
  r["super_read_only"] = "0";
  r["channel_configured"] = "0";
  for (auto col : {"io_state", "sql_state", "source_host", "source_port", "last_io_errno",
                   "last_io_error", "received_set", "source_uuid"})
    r[col] = std::nullopt;
  auto p = parse_probe_row(r, mysql8());
  BOOST_TEST_REQUIRE(p.ok());
  BOOST_TEST(p->writable());
  BOOST_TEST(!p->channel.configured);
  BOOST_TEST((p->channel.io == thread_state::off));
  BOOST_TEST(p->channel.source_port == 0);
  BOOST_TEST(p->channel.received.empty());
}

BOOST_AUTO_TEST_CASE(probe_row_semisync_and_uptime) {
  auto none = parse_probe_row(replica_row(), mysql8());
  BOOST_TEST_REQUIRE(none.ok());
  BOOST_TEST(none->uptime_s == 3600u);
  BOOST_TEST(none->started_at == 1795749600);
  BOOST_TEST(!none->semisync.source_loaded);
  BOOST_TEST(!none->semisync.replica_loaded);
  BOOST_TEST(!none->semisync.source_on);

  probe_row r = replica_row();
  r["ss_source_enabled"] = "ON";
  r["ss_source_status"] = "ON";
  r["ss_wait_point"] = "AFTER_SYNC";
  r["ss_wait_count"] = "2";
  r["ss_timeout"] = "4294967295";
  r["ss_wait_no_replica"] = "ON";
  r["ss_clients"] = "2";
  r["ss_replica_enabled"] = "OFF";
  r["ss_replica_status"] = "OFF";
  r["ss_no_tx"] = "7";
  r["ss_wait_sessions"] = "3";
  auto p = parse_probe_row(r, mysql8());
  BOOST_TEST_REQUIRE(p.ok());
  const auto& s = p->semisync;
  BOOST_TEST(s.source_loaded);
  BOOST_TEST(s.source_enabled);
  BOOST_TEST(s.source_on);
  BOOST_TEST(s.wait_point == "AFTER_SYNC");
  BOOST_TEST(s.wait_count == 2u);
  BOOST_TEST(s.timeout_ms == 4294967295u);
  BOOST_TEST(s.wait_no_replica);
  BOOST_TEST(s.clients == 2u);
  BOOST_TEST(s.replica_loaded);
  BOOST_TEST(!s.replica_enabled);
  BOOST_TEST(s.no_tx == 7u);
  BOOST_TEST(s.wait_sessions == 3u);
  BOOST_TEST(p->channel.source_uuid == kUuidA);

  // The message form carries all of it (operator and sidecar report the same fields).
  auto w = to_wire(*p);
  BOOST_TEST(w.uptime_s == 3600u);
  BOOST_TEST(w.started_at == 1795749600);
  BOOST_TEST(w.semisync.source_loaded);
  BOOST_TEST(w.semisync.source_on);
  BOOST_TEST(w.semisync.wait_point == "AFTER_SYNC");
  BOOST_TEST(w.semisync.wait_count == 2u);
  BOOST_TEST(w.semisync.timeout_ms == 4294967295u);
  BOOST_TEST(w.semisync.no_tx == 7u);
  BOOST_TEST(w.semisync.wait_sessions == 3u);
  BOOST_TEST(w.source_uuid == kUuidA);
  BOOST_TEST(w.semisync.wait_no_replica);
  BOOST_TEST(w.semisync.clients == 2u);
  BOOST_TEST(w.semisync.replica_loaded);
  BOOST_TEST(!w.semisync.replica_enabled);

  probe_row bad = replica_row();
  bad["ss_wait_count"] = "two";
  BOOST_TEST(!parse_probe_row(bad, mysql8()).ok());
  probe_row missing = replica_row();
  missing.erase("uptime");
  BOOST_TEST(!parse_probe_row(missing, mysql8()).ok());
}

BOOST_AUTO_TEST_CASE(probe_row_problems_are_errors) {
  probe_row missing = replica_row();
  missing.erase("server_uuid");
  auto a = parse_probe_row(missing, mysql8());
  BOOST_TEST_REQUIRE(!a.ok());
  BOOST_TEST((a.error().kind == error_kind::other));
  BOOST_TEST(a.error().message.find("server_uuid") != std::string::npos);

  probe_row bad_gtid = replica_row();
  bad_gtid["gtid_executed"] = "not-a-uuid:1-5";
  BOOST_TEST(!parse_probe_row(bad_gtid, mysql8()).ok());

  probe_row bad_flag = replica_row();
  bad_flag["read_only"] = "maybe";
  BOOST_TEST(!parse_probe_row(bad_flag, mysql8()).ok());

  probe_row lag = replica_row();
  lag["seconds_behind_source"] = "1.250000";
  auto l = parse_probe_row(lag, mysql8());
  BOOST_TEST_REQUIRE(l.ok());
  BOOST_TEST(*l->channel.seconds_behind_source == 1.25);
}

BOOST_AUTO_TEST_SUITE_END()
