// spec.tls in the backup, restore and verify Jobs (issue 26): the group's TLS Secret mounted
// read-only at /etc/mysql/tls in the Job's container and `--tls-ca` (verify: also the server
// certificate and key of its scratch server) on the command line; without spec.tls, neither.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/backup/backup_render.hpp"
#include "actors/operator/kube/restore/restore_render.hpp"
#include "actors/operator/kube/verify/verify_render.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br;
using json = nlohmann::json;

namespace {

/// Group "orders" (sites iad, pdx, sea) with an S3 backup profile and initFromBackup; `tls`
/// (null: none) as spec.tls.
config::failover_group group(const json& tls) {
  config::field_errors errs;
  auto j = config::yaml_to_json(config_spec_test::kube_base_yaml, errs);
  j["spec"].erase("secretName");
  j["spec"]["credentials"] = {{"operatorSecret", "orders-operator"}};
  j["spec"]["backup"] = {
      {"profiles", json::array({{{"name", "s3"},
                                 {"storage", {{"type", "S3"}, {"s3", {{"bucket", "bk"}, {"credentialsSecret", "aws"}}}}}}})}};
  j["spec"]["initFromBackup"] = {{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}}};
  if (!tls.is_null()) j["spec"]["tls"] = tls;
  auto res = config::parse_group(j);
  BOOST_TEST_REQUIRE(res.errors.empty(), config::to_string(res.errors));
  return res.group;
}

json mysql_backup() {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlBackup"},
          {"metadata", {{"name", "nightly-1"}, {"namespace", "db"}, {"uid", "u-b"}}},
          {"spec", {{"failoverGroupRef", {{"name", "orders"}}}, {"profileName", "s3"}}},
          {"status", {{"phase", "Succeeded"}, {"startTime", "2026-11-26T03:00:00Z"}}}};
}

/// The three Jobs of `g`: backup, restore, verify.
std::vector<json> jobs(const config::failover_group& g) {
  backup_ctl::render_settings r;
  const auto& p = g.spec.backup->profiles[0];
  json verification = {{"metadata", {{"name", "v1"}, {"namespace", "db"}, {"uid", "u-v"}}},
                       {"spec", {{"failoverGroupRef", {{"name", "orders"}}}, {"profileName", "s3"}}}};
  verify_ctl::backup_entry b{"nightly-1", "u-b", "orders", "s3", "Succeeded", "2026-11-26T03:10:00Z",
                             "s3://bk/nightly-1/", "S3"};
  return {backup_ctl::render_backup_job(mysql_backup(), g, p, "pdx", "iad", r),
          restore_ctl::render_restore_job(g, restore_ctl::resolve_source(g, mysql_backup()), "iad", r),
          verify_ctl::render_verify_job(verification, g, p, config::verification_run_spec{}, b, r)};
}

const json* find_named(const json& list, const std::string& name) {
  for (const auto& x : list)
    if (x.value("name", "") == name) return &x;
  return nullptr;
}

/// The values following `flag` in `args` ("" when absent).
std::string arg(const json& args, const std::string& flag) {
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == flag) return args[i + 1].get<std::string>();
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(jobs_mount_the_tls_secret_and_verify_against_its_ca) {
  auto g = group({{"secretName", "orders-certs"}});
  int n = 0;
  for (const auto& job : jobs(g)) {
    const auto& pod = job["spec"]["template"]["spec"];
    const auto& c = pod["containers"][0];
    const std::string who = c.value("name", "") + " job";
    const json* v = find_named(pod["volumes"], "tls");
    BOOST_TEST_REQUIRE(v != nullptr, who);
    BOOST_TEST((*v)["secret"]["secretName"] == "orders-certs", who);
    BOOST_TEST((*v)["secret"]["defaultMode"] == 0440, who);  // readable through the pod's fsGroup
    const json* m = find_named(c["volumeMounts"], "tls");
    BOOST_TEST_REQUIRE(m != nullptr, who);
    BOOST_TEST((*m)["mountPath"] == "/etc/mysql/tls", who);
    BOOST_TEST((*m)["readOnly"] == true, who);
    BOOST_TEST(!m->contains("subPath"), who);
    BOOST_TEST(arg(c["args"], "--tls-ca") == "/etc/mysql/tls/ca.crt", who);
    const bool verify = c["args"][1] == "verify";
    // Only verify's scratch server serves a certificate (the group's: it names 127.0.0.1).
    BOOST_TEST(arg(c["args"], "--tls-cert") == (verify ? "/etc/mysql/tls/tls.crt" : ""), who);
    BOOST_TEST(arg(c["args"], "--tls-key") == (verify ? "/etc/mysql/tls/tls.key" : ""), who);
    ++n;
  }
  BOOST_TEST(n == 3);
}

BOOST_AUTO_TEST_CASE(without_spec_tls_no_secret_and_no_flag) {
  auto g = group(json());
  for (const auto& job : jobs(g)) {
    const auto& pod = job["spec"]["template"]["spec"];
    const auto& c = pod["containers"][0];
    BOOST_TEST(find_named(pod["volumes"], "tls") == nullptr);
    BOOST_TEST(find_named(c["volumeMounts"], "tls") == nullptr);
    for (const auto& a : c["args"]) BOOST_TEST(a.get<std::string>().rfind("--tls", 0) != 0u);
  }
  // The default Secret name follows the group.
  auto d = jobs(group(json::object()));
  const json* v = find_named(d[0]["spec"]["template"]["spec"]["volumes"], "tls");
  BOOST_TEST_REQUIRE(v != nullptr);
  BOOST_TEST((*v)["secret"]["secretName"] == "orders-tls");
}
