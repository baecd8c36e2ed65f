// Backup verification in Kubernetes mode on the API SIMULATOR: the verification controller
// (actors/operator/kube/verify/) runs in this process under the chart's RBAC; no MySQL, no pod
// runs: the test plays the Job controller and kubelet (pod running, then the Job's end with the
// termination message `bloodraven backup verify` writes), as a real cluster would.
// An enabled profile gets its CronJob; the real `bloodraven trigger-verification` creates a
// MysqlBackupVerification; Provisioning -> Restoring -> Cleaning -> Succeeded with the Job
// deleted; a failure keeps its Job (keepOnFailure) or not; a refused member fails with its path;
// retention (keepFailures 1) deletes the older failure; disabling removes the CronJob.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <set>

#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/verify/verify_controller.hpp"
#include "io/log/log.hpp"
#include "io/metrics/metrics.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::eventually;
namespace bres = br::backup_ctl::resources;
namespace vres = br::verify_ctl::resources;

namespace {

const std::string ns = "default";
const std::string group = "g";

json site(const std::string& name) {
  return {{"name", name},
          {"zone", "z-" + name},
          {"lbIP", "192.0.2.1"},
          {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
          {"storage", {{"size", "1Gi"}}}};
}

json backup_spec() {
  return {{"profiles",
           json::array({{{"name", "s3"},
                         {"storage",
                          {{"type", "S3"},
                           {"s3", {{"bucket", "bk"}, {"credentialsSecret", "aws"},
                                   {"endpointURL", "http://s3.test:9000"}, {"forcePathStyle", true}}}}},
                         {"verification",
                          {{"enabled", true},
                           {"schedule", "0 5 * * *"},
                           {"sanityCheck", {{"query", "SELECT id FROM appdb.t"}, {"expect", {{"minRows", 3}}}}},
                           {"pointInTime", {{"mode", "latest"}}},
                           {"retentionPolicy", {{"keepSuccessful", 5}, {"keepFailures", 1}}}}}},
                        {{"name", "arch"}, {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "archive"}}}}}}})},
          {"pitr", {{"enabled", true}, {"profileName", "arch"}}}};
}

json group_object() {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", group}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", group + "-operator"}}},
            {"dns", {{"hostname", "g.example.com"}}},
            {"sites", json::array({site("a"), site("b")})},
            {"backup", backup_spec()}}}};
}

template <class R>
std::string why(const R& r) {
  return r.ok() ? std::string{} : r.error().describe();
}

struct verify_fixture {
  br::kube_sim::test::sim_cluster cluster;  // the chart's RBAC for the operator's identity
  br::kube_sim::test::temp_dir dir;
  std::string kubeconfig = cluster.sim.write_kubeconfig(dir.path.string());
  std::shared_ptr<kube::client> c = cluster.client("test");
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  ticking_actor controller;

  verify_fixture() {
    log::set_level(log::level::warn);
    must(cluster.install_crds(false));
    for (const char* crd : {"charts/bloodraven/crds/shipstream.io_mysqlbackups.yaml",
                            "charts/bloodraven/crds/shipstream.io_mysqlbackupverifications.yaml"})
      must(cluster.create(kube::resources::crds, "",
                          br::kube_sim::test::yaml_to_json(YAML::LoadFile(br::kube_sim::test::source_path(crd)))));
    must(cluster.create(kube::resources::mysqlfailovergroups, ns, group_object()));
    succeeded_backup("b-old", "2026-01-01T00:00:00Z");
    succeeded_backup("b-new", "2026-01-02T00:00:00Z");
  }

  void start_controller() {
    backup_ctl::controller_options o;
    o.client = cluster.client(br::kube_sim::test::operator_identity);
    o.interval = 150ms;
    o.render.image = "bloodraven:test";
    controller = verify_ctl::spawn_verify_controller(sys, o);
  }

  ~verify_fixture() {
    if (controller) {
      caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
      caf::scoped_actor self{sys};
      self->wait_for(controller);
    }
    auto denied = cluster.denials();
    BOOST_TEST(denied.empty(), "operator requests refused by the chart's RBAC:\n" << denied);
  }

  void must(const std::string& error) { BOOST_TEST_REQUIRE(error.empty(), error); }

  json get(const kube::resource_ref& r, const std::string& name) {
    auto got = c->get(r, ns, name);
    return got ? *got : json(nullptr);
  }
  json status(const std::string& name) {
    auto v = get(vres::mysqlbackupverifications, name);
    return v.is_object() ? v.value("status", json::object()) : json::object();
  }
  std::string phase(const std::string& name) { return status(name).value("phase", ""); }
  std::string condition(const std::string& name, const std::string& type) {
    for (const auto& x : status(name).value("conditions", json::array()))
      if (x.value("type", "") == type) return x.value("status", "") + "/" + x.value("reason", "");
    return "";
  }

  void succeeded_backup(const std::string& name, const std::string& done) {
    must(cluster.create(bres::mysqlbackups, ns,
                        {{"apiVersion", "shipstream.io/v1alpha1"},
                         {"kind", "MysqlBackup"},
                         {"metadata", {{"name", name}}},
                         {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", "s3"}}}}));
    auto s = c->merge_patch(bres::mysqlbackups, ns, name,
                            {{"status", {{"phase", "Succeeded"}, {"completionTime", done},
                                         {"location", "s3://bk/" + name + "/"}, {"storageType", "S3"}}}},
                            "status");
    BOOST_TEST_REQUIRE(s.ok(), why(s));
  }

  void create_verification(const std::string& name, json spec_extra = json::object()) {
    json spec = {{"failoverGroupRef", {{"name", group}}}, {"profileName", "s3"}};
    spec.update(spec_extra);
    must(cluster.create(vres::mysqlbackupverifications, ns,
                        {{"apiVersion", "shipstream.io/v1alpha1"},
                         {"kind", "MysqlBackupVerification"},
                         {"metadata", {{"name", name}}},
                         {"spec", spec}}));
  }

  /// The kubelet, played: the Job's pod is running (the scratch mysqld and the restore).
  void pod_running(const std::string& v) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", "mysqlverify-" + v + "-x1"},
                  {"namespace", ns},
                  {"labels", {{"shipstream.io/mysqlbackupverification", v}}}}},
                {"spec", {{"containers", json::array({{{"name", "verify"}, {"image", "bloodraven:test"}}})}}}};
    must(cluster.create(kube::resources::pods, ns, pod));
    auto p = c->merge_patch(kube::resources::pods, ns, "mysqlverify-" + v + "-x1",
                            {{"status", {{"phase", "Running"},
                                         {"containerStatuses", json::array({{{"name", "verify"},
                                                                             {"state", {{"running", json::object()}}}}})}}}},
                            "status");
    BOOST_TEST_REQUIRE(p.ok(), why(p));
  }

  /// The Job controller and kubelet, played: the pod ended with `message`, the Job Complete or
  /// Failed.
  void finish_job(const std::string& v, bool ok, const std::string& message) {
    const std::string pod = "mysqlverify-" + v + "-x1";
    if (get(kube::resources::pods, pod).is_null()) pod_running(v);
    auto p = c->merge_patch(
        kube::resources::pods, ns, pod,
        {{"status",
          {{"phase", ok ? "Succeeded" : "Failed"},
           {"containerStatuses",
            json::array({{{"name", "verify"},
                          {"state", {{"terminated", {{"exitCode", ok ? 0 : 1}, {"message", message},
                                                     {"finishedAt", "2026-01-03T00:01:00Z"}}}}}}})}}}},
        "status");
    BOOST_TEST_REQUIRE(p.ok(), why(p));
    json st = ok ? json{{"succeeded", 1}, {"conditions", json::array({{{"type", "Complete"}, {"status", "True"}}})}}
                 : json{{"failed", 1},
                        {"conditions", json::array({{{"type", "Failed"}, {"status", "True"},
                                                     {"reason", "BackoffLimitExceeded"}}})}};
    auto j = c->merge_patch(bres::jobs, ns, "mysqlverify-" + v, {{"status", st}}, "status");
    BOOST_TEST_REQUIRE(j.ok(), why(j));
  }
};

const std::string complete =
    R"({"name":"b-new","step":"cleanup","gtidExecuted":"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-30","tables":4,)"
    R"("binlogsReplayed":["s1/binlog.000002"],"replayLagSeconds":40,"sanity":{"rows":3,"durationMs":2}})";
const std::string checksum =
    R"({"name":"b-old","step":"restore","message":"b-old/dump.sql.gz: SHA-256 0a differs from backup.json's 0b"})";

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_verify, verify_fixture)

BOOST_AUTO_TEST_CASE(schedule_trigger_phases_keep_on_failure_retention_disable) {
  start_controller();
  // 1. The enabled profile's CronJob, running trigger-verification as the trigger ServiceAccount.
  const std::string cj = "mysql-g-verify-s3";
  BOOST_TEST_REQUIRE(eventually([&] { return get(bres::cronjobs, cj).is_object(); }, 20s));
  auto cron = get(bres::cronjobs, cj);
  BOOST_TEST(cron["spec"]["schedule"] == "0 5 * * *");
  const json& cpod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  BOOST_TEST(cpod["serviceAccountName"] == "bloodraven-backup-trigger");
  BOOST_TEST(cpod["containers"][0]["args"][0] == "trigger-verification");

  // 2. What the CronJob's pod runs: the real binary.
  test::child_process trigger(test::binary_path("bloodraven"),
                              {"trigger-verification", "--kubeconfig", kubeconfig, "--namespace", ns, "--group", group,
                               "--profile", "s3", "--triggered-by", "schedule/verify-s3", "--name", "v1"});
  auto rc = trigger.wait_exit(30s);
  BOOST_TEST_REQUIRE(rc.has_value());
  BOOST_TEST_REQUIRE(*rc == 0, trigger.output());
  BOOST_TEST(trigger.output().find("mysqlbackupverification.shipstream.io/v1 created") != std::string::npos,
             trigger.output());

  // 3. Provisioning: the Job restores the newest Succeeded backup, replays, checks.
  BOOST_TEST_REQUIRE(eventually([&] { return phase("v1") == "Provisioning"; }, 20s), status("v1").dump());
  BOOST_TEST(status("v1")["backupRef"]["name"] == "b-new");
  auto job = get(bres::jobs, "mysqlverify-v1");
  BOOST_TEST_REQUIRE(job.is_object());
  const json& args = job["spec"]["template"]["spec"]["containers"][0]["args"];
  BOOST_TEST(args == json::array({"backup", "verify", "--name", "b-new", "--work-dir", "/verify", "--result-file",
                                  "/dev/termination-log", "--pitr", "latest", "--sanity-query",
                                  "SELECT id FROM appdb.t", "--expect-min-rows", "3", "--keep-on-failure"}));
  BOOST_TEST(job["metadata"]["ownerReferences"][0]["kind"] == "MysqlBackupVerification");
  pod_running("v1");
  BOOST_TEST_REQUIRE(eventually([&] { return phase("v1") == "Restoring"; }, 20s), status("v1").dump());
  BOOST_TEST(status("v1")["podName"] == "mysqlverify-v1-x1");
  finish_job("v1", true, complete);
  BOOST_TEST_REQUIRE(eventually([&] { return phase("v1") == "Succeeded"; }, 20s), status("v1").dump());
  BOOST_TEST(condition("v1", "Verified") == "True/Verified");
  BOOST_TEST(condition("v1", "ResourcesCleanedUp") == "True/JobDeleted");
  BOOST_TEST(get(bres::jobs, "mysqlverify-v1").is_null());  // deleted after success
  BOOST_TEST(status("v1")["tables"] == 4);
  BOOST_TEST(status("v1")["sanityRows"] == 3);
  // Counted once at the result (not again at Succeeded); the freshness gauge set.
  const auto text = br::metrics::render_text();
  BOOST_TEST(text.find(R"(bloodraven_backup_verification_runs_total{group="g",namespace="default",profile="s3",result="success"} 1)") !=
                 std::string::npos,
             text);
  BOOST_TEST(text.find(R"(bloodraven_backup_verified_timestamp_seconds{group="g",namespace="default",profile="s3"})") !=
             std::string::npos);
  BOOST_TEST(text.find(R"(bloodraven_backup_verification_replay_lag_seconds{group="g",namespace="default",profile="s3"} 40)") !=
             std::string::npos);

  // 4. A corrupted dump: Failed with the Job's message; keepOnFailure (default) keeps the Job.
  create_verification("v2", {{"backupRef", {{"name", "b-old"}}}});
  BOOST_TEST_REQUIRE(eventually([&] { return get(bres::jobs, "mysqlverify-v2").is_object(); }, 20s));
  finish_job("v2", false, checksum);
  BOOST_TEST_REQUIRE(eventually([&] { return phase("v2") == "Failed"; }, 20s), status("v2").dump());
  BOOST_TEST(status("v2")["message"].get<std::string>().find("step restore: b-old/dump.sql.gz: SHA-256") == 0u,
             status("v2").dump());
  BOOST_TEST(condition("v2", "Verified") == "False/VerificationFailed");
  BOOST_TEST(condition("v2", "ResourcesCleanedUp") == "False/KeptOnFailure");
  std::this_thread::sleep_for(500ms);  // several passes: the Job stays
  BOOST_TEST(get(bres::jobs, "mysqlverify-v2").is_object());

  // 5. A member the operator does not implement: Failed naming it, no Job.
  create_verification("v3", {{"resources", {{"limits", {{"cpu", "1"}}}}}});
  BOOST_TEST_REQUIRE(eventually([&] { return phase("v3") == "Failed"; }, 20s));
  BOOST_TEST(status("v3")["message"].get<std::string>().find("spec.resources: not implemented yet") !=
                 std::string::npos,
             status("v3").dump());
  BOOST_TEST(get(bres::jobs, "mysqlverify-v3").is_null());
  // Retention (keepFailures 1): v3 is the newer failure, v2 goes (its Job is the garbage
  // collector's: owned by v2).
  BOOST_TEST(eventually([&] { return get(vres::mysqlbackupverifications, "v2").is_null(); }, 20s));
  BOOST_TEST(get(vres::mysqlbackupverifications, "v1").is_object());

  // 6. keepOnFailure false: the failed Job is deleted, then Failed with the resources cleaned up.
  create_verification("v4", {{"keepOnFailure", false}});
  BOOST_TEST_REQUIRE(eventually([&] { return get(bres::jobs, "mysqlverify-v4").is_object(); }, 20s));
  finish_job("v4", false, R"({"step":"check","message":"the sanity query returned 0 row(s), expected at least 3"})");
  BOOST_TEST_REQUIRE(eventually([&] { return phase("v4") == "Failed" && condition("v4", "ResourcesCleanedUp") == "True/JobDeleted"; }, 20s),
                     status("v4").dump());
  BOOST_TEST(get(bres::jobs, "mysqlverify-v4").is_null());

  // 7. Verification disabled: the CronJob goes; the verifications stay.
  auto g = get(kube::resources::mysqlfailovergroups, group);
  g["spec"]["backup"]["profiles"][0]["verification"]["enabled"] = false;
  BOOST_TEST_REQUIRE(c->update(kube::resources::mysqlfailovergroups, g).ok());
  BOOST_TEST(eventually([&] { return get(bres::cronjobs, cj).is_null(); }, 20s));
  BOOST_TEST(get(vres::mysqlbackupverifications, "v1").is_object());
}

BOOST_AUTO_TEST_SUITE_END()
