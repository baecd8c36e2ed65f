// Archive plan: binlog index parsing and which sealed files a scan archives.
#include <boost/test/unit_test.hpp>

#include "actors/sidecar/archive/archive_plan.hpp"
#include "config/rfc3339.hpp"

using namespace br::sidecar;
using br::binlog::manifest;
using br::binlog::manifest_entry;

namespace {

std::vector<index_entry> three() {
  return parse_binlog_index("./binlog.000001\n./binlog.000002\n./binlog.000003\n", "/var/lib/mysql");
}

manifest holding(const std::string& name, uint64_t size) {
  manifest m;
  m.site = "a";
  manifest_entry e;
  e.name = name;
  e.size = size;
  m.upsert(e);
  return m;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(archive_plan_tests)

BOOST_AUTO_TEST_CASE(index_lines_resolve_against_the_binlog_directory) {
  auto e = parse_binlog_index("./binlog.000001\r\n\n/data/logs/binlog.000002\nbinlog.000003", "/var/lib/mysql");
  BOOST_TEST_REQUIRE(e.size() == 3u);
  BOOST_TEST(e[0].name == "binlog.000001");
  BOOST_TEST(e[0].path == "/var/lib/mysql/binlog.000001");
  BOOST_TEST(e[1].name == "binlog.000002");
  BOOST_TEST(e[1].path == "/data/logs/binlog.000002");
  BOOST_TEST(e[2].path == "/var/lib/mysql/binlog.000003");
  BOOST_TEST(parse_binlog_index("", "/x").empty());
}

BOOST_AUTO_TEST_CASE(the_file_being_written_is_never_archived) {
  auto plan = plan_archive(three(), {10, 20, 30}, manifest{});
  BOOST_TEST((plan.to_archive == std::vector<size_t>{0, 1}));
  BOOST_TEST(plan.conflicts.empty());
  auto one = parse_binlog_index("./binlog.000001\n", "/d");
  BOOST_TEST(plan_archive(one, {10}, manifest{}).to_archive.empty());
}

BOOST_AUTO_TEST_CASE(archived_files_are_skipped) {
  auto plan = plan_archive(three(), {10, 20, 30}, holding("binlog.000001", 10));
  BOOST_TEST((plan.to_archive == std::vector<size_t>{1}));
}

BOOST_AUTO_TEST_CASE(a_file_archived_with_another_size_is_a_conflict_not_an_overwrite) {
  auto plan = plan_archive(three(), {10, 20, 30}, holding("binlog.000002", 25));
  BOOST_TEST((plan.to_archive == std::vector<size_t>{0}));
  BOOST_TEST_REQUIRE(plan.conflicts.size() == 1u);
  BOOST_TEST(plan.conflicts[0] == "binlog.000002: archived with 25 bytes, now 20 (not overwritten)");
}

// Retention (reference 7.4): entries whose lastEventTime is before the cutoff go, nothing newer,
// nothing at all without a cutoff, never an entry that cannot be dated.
BOOST_AUTO_TEST_CASE(retention_table) {
  auto entry = [](const std::string& name, const std::string& last) {
    br::binlog::manifest_entry e;
    e.name = name;
    e.remote_path = "binlogs/a/" + name;
    e.last_event_time = last;
    return e;
  };
  manifest m;
  m.site = "a";
  m.files = {entry("binlog.000001", "2026-11-20T10:00:00Z"), entry("binlog.000002", "2026-11-21T10:00:00Z"),
             entry("binlog.000003", "2026-11-22T10:00:00Z"), entry("binlog.000004", "not a time"),
             entry("binlog.000005", "2026-11-23T10:00:00Z")};
  auto ms = [](const std::string& t) {
    return br::config::parse_rfc3339(t)->time_since_epoch().count();
  };
  struct row {
    std::optional<int64_t> cutoff;
    std::vector<std::string> dropped;
  };
  std::vector<row> rows = {
      {std::nullopt, {}},                                                  // no cutoff (503 / none)
      {ms("2026-11-01T00:00:00Z"), {}},                                    // older than everything
      {ms("2026-11-20T10:00:00Z"), {}},                                    // equal: not before
      {ms("2026-11-20T10:00:00.001Z"), {"binlog.000001"}},                 // just after
      {ms("2026-11-22T09:59:59Z"), {"binlog.000001", "binlog.000002"}},    // the oldest two
      {ms("2026-12-31T00:00:00Z"), {"binlog.000001", "binlog.000002", "binlog.000003", "binlog.000005"}},
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    BOOST_TEST_CONTEXT("row " << i) {
      auto p = plan_retention(m, rows[i].cutoff);
      std::vector<std::string> dropped;
      for (const auto& e : p.drop) dropped.push_back(e.name);
      BOOST_TEST(dropped == rows[i].dropped, boost::test_tools::per_element());
      BOOST_TEST(p.keep.files.size() + p.drop.size() == m.files.size());
      BOOST_TEST(p.keep.site == "a");
      BOOST_TEST((p.undated == std::vector<std::string>{"binlog.000004"}));
      for (const auto& k : p.keep.files)
        for (const auto& d : p.drop) BOOST_TEST(k.name != d.name);
    }
  }
}

BOOST_AUTO_TEST_CASE(cutoff_answers) {
  std::string why;
  BOOST_TEST(!cutoff_from_answer(503, "{\"error\":\"x\"}", why).has_value());
  BOOST_TEST(why.find("503") != std::string::npos);
  BOOST_TEST(!cutoff_from_answer(200, "{\"namespace\":\"n\",\"group\":\"g\",\"profile\":\"p\"}", why));
  BOOST_TEST(why.find("no cutoffTime") != std::string::npos);
  BOOST_TEST(!cutoff_from_answer(200, "garbage", why));
  BOOST_TEST(!cutoff_from_answer(200, "{\"cutoffTime\":42}", why));
  BOOST_TEST(!cutoff_from_answer(200, "{\"cutoffTime\":\"yesterday\"}", why));
  BOOST_TEST(!cutoff_from_answer(200, std::string(70000, ' '), why));
  auto c = cutoff_from_answer(200, "{\"cutoffTime\":\"2026-11-22T10:00:00.500Z\"}", why);
  BOOST_REQUIRE(c.has_value());
  BOOST_TEST(*c == br::config::parse_rfc3339("2026-11-22T10:00:00.500Z")->time_since_epoch().count());
  BOOST_TEST(why == "");
}

BOOST_AUTO_TEST_SUITE_END()
