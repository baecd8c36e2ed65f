// Binlog manifest: version-1 shape, sorted idempotent upsert, strict parsing with JSON paths.
#include <boost/test/unit_test.hpp>

#include "io/binlog/manifest.hpp"

using namespace br::binlog;
using nlohmann::json;

namespace {

manifest_entry entry(const std::string& name, uint64_t size = 100) {
  manifest_entry e;
  e.name = name;
  e.remote_path = "binlogs/a/" + name;
  e.size = size;
  e.first_event_time = "2026-11-24T10:00:00Z";
  e.last_event_time = "2026-11-24T10:05:00Z";
  e.previous_gtids = "";
  e.end_gtids = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5";
  e.archived_at = "2026-11-24T10:06:00Z";
  return e;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(binlog_manifest)

BOOST_AUTO_TEST_CASE(upsert_keeps_files_sorted_and_is_idempotent) {
  manifest m;
  m.site = "a";
  m.upsert(entry("binlog.000003"));
  m.upsert(entry("binlog.000001"));
  m.upsert(entry("binlog.000002"));
  m.upsert(entry("binlog.000002"));
  BOOST_TEST_REQUIRE(m.files.size() == 3u);
  BOOST_TEST(m.files[0].name == "binlog.000001");
  BOOST_TEST(m.files[2].name == "binlog.000003");
  m.upsert(entry("binlog.000002", 999));  // replaces by name
  BOOST_TEST(m.files.size() == 3u);
  BOOST_TEST(m.find("binlog.000002")->size == 999u);
  BOOST_TEST(m.find("binlog.000009") == nullptr);
}

BOOST_AUTO_TEST_CASE(json_round_trip_with_the_reference_field_names) {
  manifest m;
  m.site = "b";
  m.upsert(entry("binlog.000007"));
  auto j = to_json(m);
  BOOST_TEST(j["version"] == 1);
  BOOST_TEST(j["site"] == "b");
  for (auto key : {"name", "remotePath", "size", "firstEventTime", "lastEventTime", "previousGtids",
                   "endGtids", "archivedAt"})
    BOOST_TEST(j["files"][0].contains(key), key);
  auto back = parse_manifest(j.dump());
  BOOST_TEST_REQUIRE(back.value.has_value(), back.error);
  BOOST_TEST(back.value->site == "b");
  BOOST_TEST((back.value->files == m.files));
}

BOOST_AUTO_TEST_CASE(bad_manifests_name_the_field) {
  auto err = [](const json& j) { return parse_manifest(j.dump()).error; };
  BOOST_TEST(parse_manifest("{").error == "manifest: not a JSON object");
  BOOST_TEST(err({{"site", "a"}, {"files", json::array()}}) == "manifest.version: missing or not an integer");
  BOOST_TEST(err({{"version", 2}, {"site", "a"}, {"files", json::array()}}).find("not supported") !=
             std::string::npos);
  BOOST_TEST(err({{"version", 1}, {"files", json::array()}}) == "manifest.site: missing or not a string");
  BOOST_TEST(err({{"version", 1}, {"site", "a"}}) == "manifest.files: missing or not an array");
  manifest m;
  m.site = "a";
  m.upsert(entry("binlog.000001"));
  auto j = to_json(m);
  j["files"][0].erase("endGtids");
  BOOST_TEST(err(j) == "manifest.files[0].endGtids: missing or not a string");
  j = to_json(m);
  j["files"][0]["size"] = -1;
  BOOST_TEST(err(j) == "manifest.files[0].size: missing or not a non-negative integer");
  j = to_json(m);
  j["files"].push_back(j["files"][0]);
  BOOST_TEST(err(j) == "manifest.files[1].name: \"binlog.000001\" listed twice");
  j = to_json(m);
  j["files"][0]["name"] = "";
  BOOST_TEST(err(j) == "manifest.files[0].name: empty");
}

BOOST_AUTO_TEST_CASE(rfc3339_is_utc_with_seconds) {
  BOOST_TEST(rfc3339(0) == "1970-01-01T00:00:00Z");
  BOOST_TEST(rfc3339(1795522986) == "2026-11-24T12:23:06Z");
}

BOOST_AUTO_TEST_SUITE_END()
