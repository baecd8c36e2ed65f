// spec.backup.pitr rendered into the site pods (issue 21): the archiver's BLOODRAVEN_PITR_*
// settings, its volume and mount in the sidecar, and max_binlog_size in my.cnf. Table test.
#include <boost/test/unit_test.hpp>

#include <map>

#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/render/my_cnf.hpp"
#include "config/render/options.hpp"
#include "config/render/workload.hpp"

using namespace br;
using json = nlohmann::json;

namespace {

json doc(const json& backup) {
  auto site = [](const std::string& n) {
    return json{{"name", n}, {"zone", "z"}, {"lbIP", "10.0.0.1"},
                {"taintNodeSelector", {{"shipstream.io/site.g", n}}}, {"storage", {{"size", "1Gi"}}}};
  };
  json d = {{"apiVersion", "shipstream.io/v1alpha1"},
            {"kind", "MysqlFailoverGroup"},
            {"metadata", {{"name", "g"}, {"namespace", "db"}, {"uid", "u"}}},
            {"spec",
             {{"credentials", {{"operatorSecret", "g-operator"}}},
              {"dns", {{"hostname", "g.example.com"}}},
              {"sites", json::array({site("a"), site("b")})}}}};
  if (!backup.is_null()) d["spec"]["backup"] = backup;
  return d;
}

json profiles() {
  return json::array(
      {{{"name", "s3"},
        {"storage", {{"type", "S3"},
                     {"s3", {{"bucket", "arch"}, {"prefix", "g1"}, {"region", "eu-west-1"},
                             {"endpointURL", "http://rclone:8080"}, {"forcePathStyle", true},
                             {"credentialsSecret", "aws"}}}}}},
       {{"name", "vol"},
        {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "archive"}, {"subPath", "g"}}}}}}});
}

struct rendered {
  std::map<std::string, std::string> env;  // the sidecar's
  json volume;                             // "pitr-archive" or null
  json mount;
  std::string my_cnf;
};

rendered render_pod(const json& backup) {
  auto parsed = config::parse_group(doc(backup));
  BOOST_TEST_REQUIRE(parsed.errors.empty(), config::to_string(parsed.errors));
  auto errs = config::validate(parsed.group, config::run_mode::kubernetes);
  BOOST_TEST_REQUIRE(errs.empty(), config::to_string(errs));
  render::render_options o;
  auto d = render::render_deployment(parsed.group, 0, "cm", "h", o);
  const json& pod = d["spec"]["template"]["spec"];
  rendered r;
  for (const auto& c : pod["containers"])
    if (c["name"] == "sidecar") {
      for (const auto& e : c["env"])
        if (e.contains("value")) r.env[e["name"]] = e["value"];
      for (const auto& m : c["volumeMounts"])
        if (m["name"] == "pitr-archive") r.mount = m;
    }
  for (const auto& v : pod["volumes"])
    if (v["name"] == "pitr-archive") r.volume = v;
  r.my_cnf = render::render_my_cnf(parsed.group.spec, 0).content;
  return r;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(render_pitr)

BOOST_AUTO_TEST_CASE(archiver_settings_follow_spec_backup_pitr) {
  struct row {
    const char* rule;
    json backup;
    std::map<std::string, std::string> env;  // expected BLOODRAVEN_PITR_* (all of them)
    std::string volume_kind;                  // "", "secret", "persistentVolumeClaim"
    std::string mount_path, sub_path;
    std::string max_binlog_size;  // "" = absent from my.cnf
  };
  const row rows[] = {
      {"no spec.backup", nullptr, {}, "", "", "", ""},
      {"PITR off", {{"profiles", profiles()}, {"pitr", {{"enabled", false}, {"profileName", "s3"}}}},
       {}, "", "", "", ""},
      {"PITR to S3",
       {{"profiles", profiles()},
        {"pitr", {{"enabled", true}, {"profileName", "s3"}, {"archivePollInterval", "30s"}}}},
       {{"BLOODRAVEN_PITR_ENABLED", "true"},
        {"BLOODRAVEN_PITR_PROFILE_NAME", "s3"},
        {"BLOODRAVEN_PITR_BINLOG_INDEX", "binlog.index"},
        {"BLOODRAVEN_PITR_POLL_INTERVAL", "30s"},
        {"BLOODRAVEN_PITR_STORAGE_TYPE", "S3"},
        {"BLOODRAVEN_PITR_S3_BUCKET", "arch"},
        {"BLOODRAVEN_PITR_S3_PREFIX", "g1"},
        {"BLOODRAVEN_PITR_S3_REGION", "eu-west-1"},
        {"BLOODRAVEN_PITR_S3_ENDPOINT", "http://rclone:8080"},
        {"BLOODRAVEN_PITR_S3_FORCE_PATH_STYLE", "true"},
        {"BLOODRAVEN_PITR_S3_CREDENTIALS_DIR", "/run/bloodraven/aws-creds"}},
       "secret", "/run/bloodraven/aws-creds", "", "104857600"},
      {"PITR to a PVC with a smaller binlog size",
       {{"profiles", profiles()},
        {"pitr", {{"enabled", true}, {"profileName", "vol"}, {"maxBinlogSize", "64M"}}}},
       {{"BLOODRAVEN_PITR_ENABLED", "true"},
        {"BLOODRAVEN_PITR_PROFILE_NAME", "vol"},
        {"BLOODRAVEN_PITR_BINLOG_INDEX", "binlog.index"},
        {"BLOODRAVEN_PITR_POLL_INTERVAL", "1m"},
        {"BLOODRAVEN_PITR_STORAGE_TYPE", "PVC"},
        {"BLOODRAVEN_PITR_PVC_MOUNT_PATH", "/backups"}},
       "persistentVolumeClaim", "/backups", "g", "67108864"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      auto got = render_pod(r.backup);
      std::map<std::string, std::string> pitr_env;
      for (const auto& [k, v] : got.env)
        if (k.starts_with("BLOODRAVEN_PITR_")) pitr_env[k] = v;
      BOOST_TEST((pitr_env == r.env));
      for (const auto& [k, v] : r.env) BOOST_TEST(pitr_env[k] == v, k);
      if (r.volume_kind.empty()) {
        BOOST_TEST(got.volume.is_null());
        BOOST_TEST(got.mount.is_null());
      } else {
        BOOST_TEST(got.volume.contains(r.volume_kind), got.volume.dump());
        BOOST_TEST(got.mount["mountPath"] == r.mount_path);
        BOOST_TEST(got.mount.value("subPath", "") == r.sub_path);
      }
      auto at = got.my_cnf.find("max-binlog-size");
      if (r.max_binlog_size.empty())
        BOOST_TEST(at == std::string::npos);
      else
        BOOST_TEST(got.my_cnf.find("max-binlog-size = " + r.max_binlog_size + "\n") != std::string::npos,
                   got.my_cnf);
    }
  }
  // The S3 credentials reach the sidecar as files from the profile's Secret, never as values.
  auto s3 = render_pod({{"profiles", profiles()}, {"pitr", {{"enabled", true}, {"profileName", "s3"}}}});
  BOOST_TEST(s3.volume["secret"]["secretName"] == "aws");
  for (const auto& [k, v] : s3.env) BOOST_TEST(k.find("SECRET") == std::string::npos, k);
}

BOOST_AUTO_TEST_SUITE_END()
