// The group's PITR progress in GET /status, folded from sidecar reports (pure).
#include <boost/test/unit_test.hpp>

#include "actors/operator/api/pitr_status.hpp"

using nlohmann::json;
using br::check_archiver_report;
using br::pitr_status_of;

namespace {

json report_with(json archiver) {
  return {{"epochSeen", 4}, {"fenced", false}, {"archiver", std::move(archiver)}};
}

json archiving(bool primary, uint64_t files, uint64_t bytes, std::string last,
               std::string error = "", uint64_t backlog = 0) {
  return {{"enabled", true},         {"primary", primary},
          {"filesArchived", files},  {"bytesArchived", bytes},
          {"backlogFiles", backlog}, {"uploadFailures", error.empty() ? 0 : 1},
          {"lastUploadTime", last.empty() ? json(nullptr) : json(last)},
          {"lastError", error}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(pitr_status)

BOOST_AUTO_TEST_CASE(nothing_when_no_site_archives) {
  BOOST_TEST(pitr_status_of({}).is_null());
  std::map<std::string, json> r{{"s1", {{"epochSeen", 3}}},  // an older sidecar: no archiver
                                {"s2", report_with({{"enabled", false}})}};
  BOOST_TEST(pitr_status_of(r).is_null());
}

BOOST_AUTO_TEST_CASE(sums_sites_and_takes_the_newest_upload) {
  // After a failover: s1 archived 4 files as the old primary, s2 archives 2 now.
  std::map<std::string, json> r{
      {"s1", report_with(archiving(false, 4, 4000, "2026-11-24T10:00:00Z"))},
      {"s2", report_with(archiving(true, 2, 300, "2026-11-24T11:30:00Z", "", 1))},
      {"s3", {{"epochSeen", 4}}}};
  auto p = pitr_status_of(r);
  BOOST_TEST(p["enabled"] == true);
  BOOST_TEST(p["archivingSite"] == "s2");
  BOOST_TEST(p["archivedFileCount"] == 6);
  BOOST_TEST(p["archivedBytes"] == 4300);
  BOOST_TEST(p["lastArchivedTime"] == "2026-11-24T11:30:00Z");
  BOOST_TEST(p["backlogFiles"] == 1);
  BOOST_TEST(p["message"] == "");
  BOOST_TEST(p["sites"].size() == 2u);
  BOOST_TEST(p["sites"]["s1"]["primary"] == false);
  BOOST_TEST(p["sites"]["s2"]["filesArchived"] == 2);
  BOOST_TEST(!p["sites"].contains("s3"));
}

BOOST_AUTO_TEST_CASE(errors_and_a_missing_primary_are_in_the_message) {
  std::map<std::string, json> r{
      {"s1", report_with(archiving(false, 0, 0, "", "manifest unreadable: $.files[0].name"))},
      {"s2", report_with(archiving(false, 1, 10, "2026-11-24T09:00:00Z"))}};
  auto p = pitr_status_of(r);
  BOOST_TEST(p["archivingSite"] == "");
  BOOST_TEST(p["message"] == "no site archives as primary; s1: manifest unreadable: $.files[0].name");
  BOOST_TEST(p["uploadFailures"] == 1);
  BOOST_TEST(p["lastArchivedTime"] == "2026-11-24T09:00:00Z");
  BOOST_TEST(p["sites"]["s1"]["lastUploadTime"].is_null());
}

BOOST_AUTO_TEST_CASE(malformed_archiver_objects_are_named_by_field) {
  BOOST_TEST(check_archiver_report(archiving(true, 1, 1, "")) == "");
  BOOST_TEST(check_archiver_report(json{{"enabled", false}}) == "");
  BOOST_TEST(check_archiver_report(json("on")) == "archiver must be an object");
  BOOST_TEST(check_archiver_report(json::object()) == "archiver.enabled must be a boolean");
  BOOST_TEST(check_archiver_report(json{{"enabled", true}}) ==
             "archiver.primary must be a boolean");
  auto a = archiving(true, 1, 1, "");
  a["filesArchived"] = -2;
  BOOST_TEST(check_archiver_report(a) == "archiver.filesArchived must be a non-negative integer");
  a = archiving(true, 1, 1, "");
  a["lastError"] = 5;
  BOOST_TEST(check_archiver_report(a) == "archiver.lastError must be a string or null");
  // A malformed archiver in a stored report is left out, never trusted.
  std::map<std::string, json> r{{"s1", report_with(json{{"enabled", true}})}};
  BOOST_TEST(pitr_status_of(r).is_null());
}

BOOST_AUTO_TEST_SUITE_END()
