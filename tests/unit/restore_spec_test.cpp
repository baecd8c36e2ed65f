// spec.initFromBackup (issue 21): parsing, canonical JSON, one table row per validation rule with
// its exact field path (acceptance 4: bad input refused naming the field), restoreInPlace's rules
// (then refused: not built),
// the split of an S3 prefix / PVC subPath into store and backup name, and the bootstrap hold.
#include <boost/test/unit_test.hpp>
#include <functional>
#include <tuple>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/restore_spec.hpp"
#include "config/rfc3339.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br::config;
using config_spec_test::find_error;
using json = nlohmann::json;

namespace {

std::string dump(const field_errors& errs) {
  return errs.empty() ? "(none)" : to_string(errs);
}

/// A valid group with spec.backup (an S3 profile, PITR on) and an initFromBackup naming a
/// MysqlBackup, to a point in time.
json base() {
  field_errors errs;
  auto j = yaml_to_json(config_spec_test::kube_base_yaml, errs);
  BOOST_TEST_REQUIRE(errs.empty(), dump(errs));
  j["spec"].erase("secretName");
  j["spec"]["credentials"] = {{"operatorSecret", "orders-operator"}};
  j["spec"]["backup"] = {
      {"profiles",
       json::array({{{"name", "s3"},
                     {"storage",
                      {{"type", "S3"},
                       {"s3", {{"bucket", "b"}, {"credentialsSecret", "aws"}}}}}}})},
      {"pitr", {{"enabled", true}, {"profileName", "s3"}}}};
  j["spec"]["initFromBackup"] = {{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
                                 {"pointInTime", {{"stopDatetime", "2026-11-26T14:03:00Z"}}}};
  return j;
}

field_errors load(const json& doc) {
  auto res = parse_group(doc);
  auto more = validate(res.group, run_mode::kubernetes);
  res.errors.insert(res.errors.end(), more.begin(), more.end());
  return res.errors;
}

std::function<void(json&)> set(const char* pointer, json value) {
  return [p = json::json_pointer{pointer}, value](json& doc) { doc[p] = value; };
}

std::function<void(json&)> erase(const char* pointer) {
  return
      [p = json::json_pointer{pointer}](json& doc) { doc.at(p.parent_pointer()).erase(p.back()); };
}

const json s3_source = {{"bucket", "b"}, {"prefix", "prod/nightly-1"}, {"credentialsSecret", "aws"}};

struct row {
  const char* rule;
  std::vector<std::function<void(json&)>> edits;
  const char* path;      // "" = must validate cleanly
  const char* fragment;  // expected in the message
};

}  // namespace

BOOST_AUTO_TEST_SUITE(restore_spec_rules)

BOOST_AUTO_TEST_CASE(base_is_valid_and_reads_back) {
  auto doc = base();
  BOOST_TEST(load(doc).empty(), dump(load(doc)));
  auto g = parse_group(doc).group;
  BOOST_TEST_REQUIRE(g.spec.init_from_backup.has_value());
  const auto& ib = *g.spec.init_from_backup;
  BOOST_TEST_REQUIRE(ib.source.mysql_backup_ref.has_value());
  BOOST_TEST(ib.source.mysql_backup_ref->name == "nightly-1");
  BOOST_TEST(ib.point_in_time->stop_datetime == "2026-11-26T14:03:00Z");
  // Canonical JSON reads back to the same value, for each kind of source.
  for (const json& src : {json{{"mysqlBackupRef", {{"name", "x"}}}}, json{{"s3", s3_source}},
                          json{{"pvc", {{"claimName", "c"}, {"subPath", "a/b"}}}}}) {
    field_errors errs;
    init_from_backup_spec in, again;
    read(json{{"source", src}, {"pointInTime", {{"stopGtid", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"}}}},
         "spec.initFromBackup", in, errs);
    read(to_json(in), "spec.initFromBackup", again, errs);
    BOOST_TEST(errs.empty(), dump(errs));
    BOOST_TEST((again == in), to_json(in).dump());
  }
}

BOOST_AUTO_TEST_CASE(every_rule_reports_its_path) {
  const row rows[] = {
      {"a MysqlBackup, no point in time", {erase("/spec/initFromBackup/pointInTime")}, "", ""},
      {"an S3 location", {set("/spec/initFromBackup/source", json{{"s3", s3_source}})}, "", ""},
      {"a directory on a claim",
       {set("/spec/initFromBackup/source", json{{"pvc", {{"claimName", "bk"}, {"subPath", "nightly-1"}}}})},
       "", ""},
      {"stopDatetime in MySQL's form", {set("/spec/initFromBackup/pointInTime/stopDatetime", "2026-11-26 14:03:00")},
       "", ""},
      {"a GTID bound",
       {set("/spec/initFromBackup/pointInTime",
            json{{"stopGtid", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-50"}})},
       "", ""},
      {"no source", {set("/spec/initFromBackup/source", json::object())}, "spec.initFromBackup.source",
       "exactly one of mysqlBackupRef, s3 or pvc"},
      {"two sources", {set("/spec/initFromBackup/source/s3", s3_source)},
       "spec.initFromBackup.source", "not 2"},
      {"unknown source member", {set("/spec/initFromBackup/source/gcs", json::object())},
       "spec.initFromBackup.source.gcs", ""},
      {"mysqlBackupRef without a name", {set("/spec/initFromBackup/source/mysqlBackupRef", json::object())},
       "spec.initFromBackup.source.mysqlBackupRef.name", "required"},
      {"mysqlBackupRef with a bad name", {set("/spec/initFromBackup/source/mysqlBackupRef/name", "Nightly_1")},
       "spec.initFromBackup.source.mysqlBackupRef.name", "invalid MysqlBackup name"},
      {"mysqlBackupRef without spec.backup",
       {erase("/spec/backup"), erase("/spec/initFromBackup/pointInTime")},
       "spec.initFromBackup.source.mysqlBackupRef", "needs spec.backup"},
      {"S3 without a bucket", {set("/spec/initFromBackup/source", json{{"s3", {{"prefix", "p/x"}, {"credentialsSecret", "aws"}}}})},
       "spec.initFromBackup.source.s3.bucket", "required"},
      {"S3 without credentials (acceptance 4)",
       {set("/spec/initFromBackup/source", json{{"s3", {{"bucket", "b"}, {"prefix", "p/x"}}}})},
       "spec.initFromBackup.source.s3.credentialsSecret", "AWS_ACCESS_KEY_ID"},
      {"S3 without a prefix", {set("/spec/initFromBackup/source", json{{"s3", {{"bucket", "b"}, {"credentialsSecret", "aws"}}}})},
       "spec.initFromBackup.source.s3.prefix", "the backup's own directory"},
      {"S3 prefix ending in a bad name",
       {set("/spec/initFromBackup/source", json{{"s3", {{"bucket", "b"}, {"prefix", "p/a b"}, {"credentialsSecret", "aws"}}}})},
       "spec.initFromBackup.source.s3.prefix", "must be the backup's name"},
      {"PVC without a claim", {set("/spec/initFromBackup/source", json{{"pvc", {{"subPath", "x"}}}})},
       "spec.initFromBackup.source.pvc.claimName", "required"},
      {"PVC without a subPath", {set("/spec/initFromBackup/source", json{{"pvc", {{"claimName", "bk"}}}})},
       "spec.initFromBackup.source.pvc.subPath", "required"},
      {"PVC subPath escaping the claim",
       {set("/spec/initFromBackup/source", json{{"pvc", {{"claimName", "bk"}, {"subPath", "../x"}}}})},
       "spec.initFromBackup.source.pvc.subPath", "without \"..\""},
      {"stopDatetime not a time", {set("/spec/initFromBackup/pointInTime/stopDatetime", "yesterday")},
       "spec.initFromBackup.pointInTime.stopDatetime", "invalid time \"yesterday\""},
      {"stopDatetime with a fraction", {set("/spec/initFromBackup/pointInTime/stopDatetime", "2026-11-26T14:03:00.5Z")},
       "spec.initFromBackup.pointInTime.stopDatetime", "whole seconds"},
      {"stopGtid not a GTID set", {set("/spec/initFromBackup/pointInTime", json{{"stopGtid", "nope"}})},
       "spec.initFromBackup.pointInTime.stopGtid", "invalid GTID set"},
      {"both bounds",
       {set("/spec/initFromBackup/pointInTime/stopGtid", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5")},
       "spec.initFromBackup.pointInTime", "either stopDatetime or stopGtid"},
      {"excludeGtids refused",
       {set("/spec/initFromBackup/pointInTime", json{{"excludeGtids", "3e11fa47-71ca-11e1-9e33-c80aa9429562:7"}})},
       "spec.initFromBackup.pointInTime.excludeGtids", "not implemented yet"},
      {"an empty pointInTime", {set("/spec/initFromBackup/pointInTime", json::object())},
       "spec.initFromBackup.pointInTime", "required: stopDatetime or stopGtid"},
      {"a point in time without the archive", {set("/spec/backup/pitr/enabled", false)},
       "spec.initFromBackup.pointInTime", "needs the binlog archive"},
      {"loadOptions refused", {set("/spec/initFromBackup/loadOptions", json{{"threads", 4}})},
       "spec.initFromBackup.loadOptions", "not implemented yet"},
      {"decryption refused", {set("/spec/initFromBackup/decryption", json{{"passphraseSecret", {{"name", "k"}}}})},
       "spec.initFromBackup.decryption", "not implemented yet"},
      {"a secretName group (the Job reads MYSQL_ROOT_PASSWORD from either Secret)",
       {erase("/spec/credentials"), set("/spec/secretName", "orders-mysql")}, "", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      auto doc = base();
      for (const auto& e : r.edits) e(doc);
      auto errs = load(doc);
      if (std::string{r.path}.empty()) {
        BOOST_TEST(errs.empty(), dump(errs));
      } else {
        BOOST_TEST(find_error(errs, r.path, r.fragment) != nullptr, dump(errs));
        BOOST_TEST(errs.size() == 1u, dump(errs));
      }
    }
  }
}

// spec.restoreInPlace: every rule with its path; each row expects its own error (if any) and no
// other (a valid one is accepted in Kubernetes mode: the restore controller runs it).
BOOST_AUTO_TEST_CASE(restore_in_place_rules) {
  struct row {
    const char* rule;
    std::vector<std::function<void(json&)>> edits;
    const char* path;  // "" = valid
    const char* fragment;
  };
  const std::vector<row> rows = {
      {"valid: a MysqlBackup to a point in time", {}, "", ""},
      {"valid: an S3 location, no point in time",
       {set("/spec/restoreInPlace/source", json{{"s3", s3_source}}), erase("/spec/restoreInPlace/pointInTime")}, "", ""},
      {"confirm missing", {erase("/spec/restoreInPlace/confirm")}, "spec.restoreInPlace.confirm", "required"},
      {"confirm not RFC 3339", {set("/spec/restoreInPlace/confirm", "now")}, "spec.restoreInPlace.confirm",
       "invalid time \"now\""},
      {"no source", {set("/spec/restoreInPlace/source", json::object())}, "spec.restoreInPlace.source",
       "exactly one of mysqlBackupRef, s3 or pvc"},
      {"S3 without credentials", {set("/spec/restoreInPlace/source", json{{"s3", {{"bucket", "b"}, {"prefix", "p/x"}}}})},
       "spec.restoreInPlace.source.s3.credentialsSecret", "AWS_ACCESS_KEY_ID"},
      {"stopDatetime not a time", {set("/spec/restoreInPlace/pointInTime/stopDatetime", "yesterday")},
       "spec.restoreInPlace.pointInTime.stopDatetime", "invalid time"},
      {"a point in time without the archive", {set("/spec/backup/pitr/enabled", false)},
       "spec.restoreInPlace.pointInTime", "needs the binlog archive"},
      {"excludeGtids refused", {set("/spec/restoreInPlace/pointInTime", json{{"excludeGtids", "3e11fa47-71ca-11e1-9e33-c80aa9429562:7"}})},
       "spec.restoreInPlace.pointInTime.excludeGtids", "not implemented yet"},
      {"per-schema (includeSchemas with one entry) refused",
       {set("/spec/restoreInPlace/loadOptions", json{{"includeSchemas", {"shop"}}})},
       "spec.restoreInPlace.loadOptions.includeSchemas", "per-schema restore"},
      {"other loadOptions refused", {set("/spec/restoreInPlace/loadOptions", json{{"threads", 4}})},
       "spec.restoreInPlace.loadOptions", "loaded whole"},
      {"decryption refused", {set("/spec/restoreInPlace/decryption", json{{"passphraseSecret", {{"name", "k"}}}})},
       "spec.restoreInPlace.decryption", "not implemented yet"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      auto doc = base();
      doc["spec"]["restoreInPlace"] = doc["spec"]["initFromBackup"];
      doc["spec"]["restoreInPlace"]["confirm"] = "2026-11-26T15:00:00Z";
      doc["spec"].erase("initFromBackup");
      for (const auto& e : r.edits) e(doc);
      auto errs = load(doc);
      const bool own = !std::string{r.path}.empty();
      if (own) BOOST_TEST(find_error(errs, r.path, r.fragment) != nullptr, dump(errs));
      BOOST_TEST(errs.size() == (own ? 1u : 0u), dump(errs));
    }
  }
  // Malformed: refused by the reader with its path (nothing is validated further).
  for (auto [pointer, value, path] : {std::tuple{"/spec/restoreInPlace/confirm", json(5), "spec.restoreInPlace.confirm"},
                                      std::tuple{"/spec/restoreInPlace/when", json("now"), "spec.restoreInPlace.when"}}) {
    auto doc = base();
    doc["spec"]["restoreInPlace"] = doc["spec"]["initFromBackup"];
    doc["spec"]["restoreInPlace"]["confirm"] = "2026-11-26T15:00:00Z";
    doc["spec"].erase("initFromBackup");
    set(pointer, value)(doc);
    auto errs = load(doc);
    BOOST_TEST(find_error(errs, path, "") != nullptr, dump(errs));
    BOOST_TEST(errs.size() == 1u, dump(errs));
  }
  // Read and written back as it was given.
  auto doc = base();
  doc["spec"]["restoreInPlace"] = doc["spec"]["initFromBackup"];
  doc["spec"]["restoreInPlace"]["confirm"] = "2026-11-26T15:00:00Z";
  auto g = parse_group(doc);
  BOOST_TEST_REQUIRE(g.group.spec.restore_in_place.has_value());
  BOOST_TEST(g.group.spec.restore_in_place->confirm == "2026-11-26T15:00:00Z");
  BOOST_TEST(to_json(*g.group.spec.restore_in_place) == doc["spec"]["restoreInPlace"]);
}

BOOST_AUTO_TEST_CASE(standalone_mode_refuses_it) {
  field_errors errs;
  auto doc = yaml_to_json(config_spec_test::standalone_base_yaml, errs);
  doc["spec"]["initFromBackup"] = {{"source", {{"pvc", {{"claimName", "c"}, {"subPath", "x"}}}}}};
  auto res = parse_group(doc);
  auto more = validate(res.group, run_mode::standalone);
  BOOST_TEST(find_error(more, "spec.initFromBackup", "Kubernetes mode only") != nullptr, dump(more));
  doc["spec"].erase("initFromBackup");
  doc["spec"]["restoreInPlace"] = {{"confirm", "2026-11-26T15:00:00Z"},
                                   {"source", {{"pvc", {{"claimName", "c"}, {"subPath", "x"}}}}}};
  res = parse_group(doc);
  more = validate(res.group, run_mode::standalone);
  BOOST_TEST(find_error(more, "spec.restoreInPlace", "Kubernetes mode only") != nullptr, dump(more));
}

// Group Replication: the group elects and fences itself; nothing would hold it while the data is
// replaced (the coordinator refuses the freeze too).
BOOST_AUTO_TEST_CASE(group_replication_refuses_it) {
  auto doc = base();
  doc["spec"]["restoreInPlace"] = doc["spec"]["initFromBackup"];
  doc["spec"]["restoreInPlace"]["confirm"] = "2026-11-26T15:00:00Z";
  doc["spec"].erase("initFromBackup");
  doc["spec"]["replication"]["mode"] = "groupReplication";
  auto errs = load(doc);
  BOOST_TEST(find_error(errs, "spec.restoreInPlace", "not implemented yet in groupReplication mode") != nullptr,
             dump(errs));
}

BOOST_AUTO_TEST_CASE(a_location_splits_into_store_and_backup_name) {
  struct r {
    const char* in;
    const char* parent;
    const char* name;
  };
  for (auto x : {r{"nightly-1", "", "nightly-1"}, r{"prod/nightly-1", "prod", "nightly-1"},
                 r{"a/b/c/", "a/b", "c"}, r{"", "", ""}}) {
    auto s = split_backup_location(x.in);
    BOOST_TEST(s.parent == x.parent, x.in);
    BOOST_TEST(s.name == x.name, x.in);
  }
}

BOOST_AUTO_TEST_CASE(stop_datetime_forms) {
  BOOST_TEST(parse_stop_datetime("2026-11-26T14:03:00Z").value_or(0) == 1795701780);
  BOOST_TEST(parse_stop_datetime("2026-11-26 14:03:00").value_or(0) == 1795701780);
  BOOST_TEST(parse_stop_datetime("2026-11-26T15:03:00+01:00").value_or(0) == 1795701780);
  BOOST_TEST(!parse_stop_datetime("2026-11-26T14:03:00.250Z"));
  BOOST_TEST(!parse_stop_datetime("2026-11-26"));
}

BOOST_AUTO_TEST_CASE(the_bootstrap_hold_follows_status_restore) {
  auto g = parse_group(base()).group;
  const auto& ib = g.spec.init_from_backup;
  struct r {
    const char* name;
    json status;
    bool held;
  };
  for (const auto& x : {r{"no status yet", json::object(), true},
                        r{"Pending", {{"restore", {{"phase", "Pending"}}}}, true},
                        r{"Running", {{"restore", {{"phase", "Running"}}}}, true},
                        r{"Failed", {{"restore", {{"phase", "Failed"}}}}, true},
                        r{"Succeeded", {{"restore", {{"phase", "Succeeded"}}}}, false},
                        r{"a malformed restore", {{"restore", "Succeeded"}}, true}}) {
    BOOST_TEST(restore_bootstrap_hold(ib, x.status).empty() == !x.held, x.name);
  }
  BOOST_TEST(restore_bootstrap_hold(std::nullopt, json::object()).empty());
  BOOST_TEST(restore_bootstrap_hold(std::nullopt, {{"restore", {{"phase", "Failed"}}}}).empty());
  // initFromBackup removed while its Job still loads: held until that Job ended.
  BOOST_TEST(!restore_bootstrap_hold(std::nullopt, {{"restore", {{"phase", "Running"}}}}).empty());
  // The text does not change with the phase (a change restarts the group).
  BOOST_TEST(restore_bootstrap_hold(ib, json::object()) ==
             restore_bootstrap_hold(ib, {{"restore", {{"phase", "Running"}}}}));
}

BOOST_AUTO_TEST_SUITE_END()
