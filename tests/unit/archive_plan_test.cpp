// Archive plan: binlog index parsing and which sealed files a scan archives.
#include <boost/test/unit_test.hpp>

#include "actors/sidecar/archive/archive_plan.hpp"

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

BOOST_AUTO_TEST_SUITE_END()
