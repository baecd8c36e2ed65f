// Backup engine pure parts: the mysqldump header (GTID_PURGED, binlog coordinates; MySQL 9.7's
// text), backup.json round trip and refusals naming the field, bounded result lines, the
// option-file text (quoting; newline refused), backup names.
#include <boost/test/unit_test.hpp>

#include "io/backup/backup_meta.hpp"
#include "io/backup/dump_header.hpp"
#include "io/backup/tool_env.hpp"

using namespace br::backup;

namespace {

// As mysqldump 9.7.4 writes it (--single-transaction --source-data=2 --set-gtid-purged=ON).
const std::string header_97 =
    "-- MySQL dump 10.13  Distrib 9.7.4, for Linux (x86_64)\n"
    "SET @MYSQLDUMP_TEMP_LOG_BIN = @@SESSION.SQL_LOG_BIN;\n"
    "SET @@SESSION.SQL_LOG_BIN= 0;\n\n--\n-- GTID state at the beginning of the backup \n--\n\n"
    "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'eb0f4afb-e9a0-11f1-b3b5-02fc00000001:1-2';\n\n"
    "--\n-- Position to start replication or point-in-time recovery from\n--\n\n"
    "-- CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE='binlog.000001', SOURCE_LOG_POS=655;\n\n"
    "--\n-- Current Database: `appdb`\n--\n\n"
    "CREATE DATABASE /*!32312 IF NOT EXISTS*/ `appdb`;\n";

}  // namespace

BOOST_AUTO_TEST_SUITE(backup_parts)

BOOST_AUTO_TEST_CASE(dump_header_table) {
  struct row {
    std::string what;
    std::string text;
    std::optional<std::string> gtids;
    std::optional<std::string> file;
    std::optional<uint64_t> pos;
    bool done;
  };
  const std::string two_uuids =
      "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'eb0f4afb-e9a0-11f1-b3b5-02fc00000001:1-2,\n"
      "fb0f4afb-e9a0-11f1-b3b5-02fc00000001:1-7';\n"
      "-- CHANGE REPLICATION SOURCE TO SOURCE_LOG_FILE='binlog.000012', SOURCE_LOG_POS=4;\n";
  std::vector<row> rows = {
      {"mysqldump 9.7", header_97, "eb0f4afb-e9a0-11f1-b3b5-02fc00000001:1-2", "binlog.000001", 655, true},
      {"cut before the position", header_97.substr(0, header_97.find("-- CHANGE")),
       "eb0f4afb-e9a0-11f1-b3b5-02fc00000001:1-2", std::nullopt, std::nullopt, false},
      {"a set over two lines", two_uuids,
       "eb0f4afb-e9a0-11f1-b3b5-02fc00000001:1-2,fb0f4afb-e9a0-11f1-b3b5-02fc00000001:1-7", "binlog.000012",
       4, true},
      {"empty set", "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ '';\n", "", std::nullopt, std::nullopt, false},
      {"statement not finished yet", "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'eb0f4afb-e9a0-11f1-b3b5-02f",
       std::nullopt, std::nullopt, std::nullopt, false},
      {"malformed set", "SET @@GLOBAL.GTID_PURGED=/*!80000 '+'*/ 'zz:1';\n", std::nullopt, std::nullopt,
       std::nullopt, false},
      {"data without a header", "-- MySQL dump\n\nUSE `appdb`;\n", std::nullopt, std::nullopt, std::nullopt, true},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto h = parse_dump_header(r.text);
      BOOST_TEST((h.gtid_purged == r.gtids));
      BOOST_TEST((h.binlog_file == r.file));
      BOOST_TEST((h.binlog_pos == r.pos));
      BOOST_TEST(h.done == r.done);
    }
  }
}

BOOST_AUTO_TEST_CASE(backup_info_round_trip_and_refusals) {
  backup_info b;
  b.name = "g-20261126140300";
  b.dump_key = b.name + "/dump.sql.gz";
  b.size_bytes = 123;
  b.dump_bytes = 456;
  b.sha256 = "ab";
  b.gtid_executed = "eb0f4afb-e9a0-11f1-b3b5-02fc00000001:1-2";
  b.binlog_file = "binlog.000001";
  b.binlog_pos = 655;
  b.schemas = {"appdb"};
  b.start_time = "2026-11-26T14:03:00Z";
  b.snapshot_time = "2026-11-26T14:03:01Z";
  b.completion_time = "2026-11-26T14:03:09Z";
  auto text = to_json(b).dump();
  auto p = parse_backup_info(text);
  BOOST_REQUIRE(p.value);
  BOOST_TEST(to_json(*p.value) == to_json(b));
  BOOST_TEST(!to_json(b).contains("groupReplication"));  // not a GR member: no such member
  BOOST_TEST(!p.value->group_replication);
  // A Group Replication source (issue 23): its group and its role at the start are kept.
  backup_info g = b;
  g.group_replication = gr_source_info{"5f3e1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b",
                                       "eb0f4afb-e9a0-11f1-b3b5-02fc00000001", "SECONDARY", "ONLINE"};
  auto pg = parse_backup_info(to_json(g).dump());
  BOOST_REQUIRE(pg.value);
  BOOST_TEST((pg.value->group_replication == g.group_replication));
  BOOST_TEST(to_json(g)["groupReplication"]["memberRole"] == "SECONDARY");

  struct row {
    std::string what;
    std::function<void(nlohmann::json&)> edit;
    std::string error_part;
  };
  std::vector<row> rows = {
      {"no gtidExecuted", [](auto& j) { j.erase("gtidExecuted"); }, ".gtidExecuted"},
      {"snapshotTime a number", [](auto& j) { j["snapshotTime"] = 5; }, ".snapshotTime"},
      {"negative size", [](auto& j) { j["sizeBytes"] = -1; }, ".sizeBytes"},
      {"other version", [](auto& j) { j["version"] = 2; }, ".version 2"},
      {"other method", [](auto& j) { j["method"] = "clone"; }, ".method"},
      {"schemas not strings", [](auto& j) { j["schemas"] = {1}; }, ".schemas[0]"},
      {"groupReplication not an object", [](auto& j) { j["groupReplication"] = 1; },
       ".groupReplication.groupName"},
      {"groupReplication without its role",
       [](auto& j) { j["groupReplication"] = {{"groupName", "x"}, {"memberId", "y"}, {"memberState", "ONLINE"}}; },
       ".groupReplication.memberRole"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto j = to_json(b);
      r.edit(j);
      auto q = parse_backup_info(j.dump());
      BOOST_TEST(!q.value);
      BOOST_TEST(q.error.find(r.error_part) != std::string::npos, q.error);
    }
  }
  BOOST_TEST(!parse_backup_info("[1]").value);
}

BOOST_AUTO_TEST_CASE(result_json_stays_within_a_termination_message) {
  nlohmann::json j = {{"location", "s3://b/p/x/"}, {"message", std::string(10000, 'm')},
                      {"gtidExecuted", "a"}};
  auto s = bounded_result_json(j);
  BOOST_TEST(s.size() <= 4096u);
  auto back = nlohmann::json::parse(s);
  BOOST_TEST(back["location"] == "s3://b/p/x/");
  BOOST_TEST(back["gtidExecuted"] == "a");
  nlohmann::json g = {{"location", "x"}, {"gtidExecuted", std::string(9000, '1')}};
  auto t = bounded_result_json(g);
  BOOST_TEST(t.size() <= 4096u);
  BOOST_TEST(nlohmann::json::parse(t)["gtidExecutedTruncated"] == true);
  nlohmann::json small = {{"a", 1}};
  BOOST_TEST(bounded_result_json(small) == small.dump());
}

BOOST_AUTO_TEST_CASE(option_file_text) {
  std::string err;
  BOOST_TEST(client_option_text("root", "p\"w\\d#;x", err) == "[client]\nuser=\"root\"\npassword=\"p\\\"w\\\\d#;x\"\n");
  BOOST_TEST(err == "");
  client_option_text("root", "a\nb", err);
  BOOST_TEST(err.find("newline") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(backup_names) {
  BOOST_TEST(valid_backup_name("shop-20261126140300"));
  BOOST_TEST(valid_backup_name("a.b_c"));
  for (const std::string& bad : std::vector<std::string>{"", ".", "..", "a/b", "a b", std::string(201, 'a'), "ä"})
    BOOST_TEST(!valid_backup_name(bad), bad);
}

BOOST_AUTO_TEST_SUITE_END()
