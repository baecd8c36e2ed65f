// Backups in Kubernetes mode on the API SIMULATOR (issue 21, acceptance 2 at the Kubernetes-API
// level): the backup controller (actors/operator/kube/backup/) runs in this process under the
// chart's RBAC; no MySQL, no pod runs: the test plays the Job controller and kubelet by writing
// the Jobs' status and their pods' termination messages, as a real cluster would. A schedule
// creates the CronJob; the real `bloodraven trigger-backup` binary creates a MysqlBackup; the
// Job's result lands in its status; retention deletes the oldest beyond the policy only after
// their cleanup Jobs succeeded; /pitr-cutoff's catalogue answers from Succeeded backups; a spec
// the operator refuses changes nothing; removing spec.backup deletes the CronJob.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <set>

#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/backup/pitr_catalogue.hpp"
#include "io/log/log.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::eventually;
namespace res = br::backup_ctl::resources;

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
                         {"retentionPolicy", {{"count", 2}, {"minKeep", 1}}}}})},
          {"schedules", json::array({{{"name", "nightly"}, {"profileName", "s3"},
                                      {"schedule", "0 3 * * *"}}})}};
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

struct backup_fixture {
  br::kube_sim::test::sim_cluster cluster;  // the chart's RBAC for the operator's identity
  br::kube_sim::test::temp_dir dir;
  std::string kubeconfig = cluster.sim.write_kubeconfig(dir.path.string());
  std::shared_ptr<kube::client> c = cluster.client("test");
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  ticking_actor controller;

  backup_fixture() {
    log::set_level(log::level::warn);
    must(cluster.install_crds(false));
    must(cluster.create(kube::resources::crds, "",
                        br::kube_sim::test::yaml_to_json(YAML::LoadFile(br::kube_sim::test::source_path(
                            "charts/bloodraven/crds/shipstream.io_mysqlbackups.yaml")))));
    must(cluster.create(kube::resources::mysqlfailovergroups, ns, group_object()));
    // What the operator's pollers would have written: a is the writable primary, b a replica
    // 1 s behind.
    auto st = c->merge_patch(
        kube::resources::mysqlfailovergroups, ns, group,
        {{"status",
          {{"activeSite", "a"},
           {"sites", json::array({{{"name", "a"}, {"state", "writable"}},
                                  {{"name", "b"}, {"state", "read-only"}, {"replicating", true},
                                   {"secondsBehindSource", 1}}})}}}},
        "status");
    BOOST_TEST_REQUIRE(st.ok(), why(st));
  }

  void start_controller() {
    backup_ctl::controller_options o;
    o.client = cluster.client(br::kube_sim::test::operator_identity);
    o.interval = 150ms;
    o.render.image = "bloodraven:test";
    controller = backup_ctl::spawn_backup_controller(sys, o);
  }

  ~backup_fixture() {
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
  json backup_status(const std::string& name) {
    auto b = get(res::mysqlbackups, name);
    return b.is_object() ? b.value("status", json::object()) : json::object();
  }

  /// The Job controller and kubelet, played: the Job's pod ended with `message` in its
  /// termination log, and the Job is Complete (or Failed).
  void finish_job(const std::string& backup, const std::string& job, bool ok, const std::string& message,
                  const char* component = "backup") {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", job + "-x1"},
                  {"namespace", ns},
                  {"labels", {{"shipstream.io/mysqlbackup", backup}, {"app.kubernetes.io/component", component}}}}},
                {"spec", {{"containers", json::array({{{"name", "backup"}, {"image", "bloodraven:test"}}})}}}};
    must(cluster.create(kube::resources::pods, ns, pod));
    auto p = c->merge_patch(
        kube::resources::pods, ns, job + "-x1",
        {{"status",
          {{"phase", ok ? "Succeeded" : "Failed"},
           {"containerStatuses",
            json::array({{{"name", "backup"},
                          {"state", {{"terminated", {{"exitCode", ok ? 0 : 1}, {"message", message},
                                                     {"finishedAt", "2026-01-01T00:01:00Z"}}}}}}})}}}},
        "status");
    BOOST_TEST_REQUIRE(p.ok(), why(p));
    json status = ok ? json{{"succeeded", 1},
                            {"conditions", json::array({{{"type", "Complete"}, {"status", "True"}}})}}
                     : json{{"failed", 1},
                            {"conditions", json::array({{{"type", "Failed"}, {"status", "True"},
                                                         {"reason", "BackoffLimitExceeded"}}})}};
    auto j = c->merge_patch(res::jobs, ns, job, {{"status", status}}, "status");
    BOOST_TEST_REQUIRE(j.ok(), why(j));
  }

  /// A MysqlBackup that already Succeeded (an earlier run), completed at `done` (created before
  /// the controller runs: a new object without a phase is a request to back up).
  void succeeded_backup(const std::string& name, const std::string& done) {
    must(cluster.create(res::mysqlbackups, ns,
                        {{"apiVersion", "shipstream.io/v1alpha1"},
                         {"kind", "MysqlBackup"},
                         {"metadata", {{"name", name}, {"finalizers", json::array({"shipstream.io/mysqlbackup"})}}},
                         {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", "s3"}}}}));
    auto s = c->merge_patch(res::mysqlbackups, ns, name,
                            {{"status", {{"phase", "Succeeded"}, {"jobName", "mysqlbackup-" + name},
                                         {"completionTime", done}, {"location", "s3://bk/" + name + "/"}}}},
                            "status");
    BOOST_TEST_REQUIRE(s.ok(), why(s));
  }

  std::set<std::string> backups() {
    std::set<std::string> out;
    auto l = c->list(res::mysqlbackups, ns);
    if (l)
      for (const auto& b : (*l)["items"]) out.insert(b["metadata"].value("name", ""));
    return out;
  }
};

const std::string result_json =
    R"({"location":"s3://bk/RUN/","storageType":"S3","sizeBytes":1048576,"gtidExecuted":"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-23",)"
    R"("binlogFile":"binlog.000003","binlogPos":4711,"sourceHost":"mysql-g-b.default.svc.cluster.local:3306",)"
    R"("startTime":"2026-01-01T00:00:00Z","completionTime":"2026-01-01T00:01:00Z","method":"mysqldump"})";

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_backup, backup_fixture)

BOOST_AUTO_TEST_CASE(schedule_trigger_job_result_retention_and_disable) {
  // Two earlier backups; retention (count 2) keeps both until a third succeeds.
  succeeded_backup("old1", "2025-12-01T00:00:00Z");
  succeeded_backup("old2", "2025-12-02T00:00:00Z");
  start_controller();
  // 1. The schedule's CronJob, running trigger-backup as the trigger ServiceAccount.
  const std::string cj = "mysql-g-backup-nightly";
  BOOST_TEST_REQUIRE(eventually([&] { return get(res::cronjobs, cj).is_object(); }, 20s));
  auto cron = get(res::cronjobs, cj);
  BOOST_TEST(cron["spec"]["schedule"] == "0 3 * * *");
  const json& pod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  BOOST_TEST(pod["serviceAccountName"] == "bloodraven-backup-trigger");
  BOOST_TEST(pod["containers"][0]["args"][0] == "trigger-backup");
  BOOST_TEST(cron["metadata"]["ownerReferences"][0]["kind"] == "MysqlFailoverGroup");

  // 2. What the CronJob's pod runs: the real binary, against the simulator.
  test::child_process trigger(test::binary_path("bloodraven"),
                              {"trigger-backup", "--kubeconfig", kubeconfig, "--namespace", ns,
                               "--group", group, "--profile", "s3", "--triggered-by",
                               "schedule/nightly", "--name", "run1"});
  auto rc = trigger.wait_exit(30s);
  BOOST_TEST_REQUIRE(rc.has_value());
  BOOST_TEST(*rc == 0, trigger.output());
  auto created = get(res::mysqlbackups, "run1");
  BOOST_TEST_REQUIRE(created.is_object());
  BOOST_TEST(created["spec"]["triggeredBy"] == "schedule/nightly");

  // 3. Pending -> Running: the backup Job from the caught-up replica b; then its result.
  BOOST_TEST_REQUIRE(eventually([&] { return backup_status("run1").value("phase", "") == "Running"; }, 20s));
  auto st = backup_status("run1");
  BOOST_TEST(st["sourceSite"] == "b");
  BOOST_TEST(st["activeSiteAtStart"] == "a");
  BOOST_TEST(st["jobName"] == "mysqlbackup-run1");
  auto job = get(res::jobs, "mysqlbackup-run1");
  BOOST_TEST_REQUIRE(job.is_object());
  const json& args = job["spec"]["template"]["spec"]["containers"][0]["args"];
  BOOST_TEST(args[0] == "backup");
  BOOST_TEST(args[5] == "mysql-g-b.default.svc.cluster.local:3306");
  finish_job("run1", "mysqlbackup-run1", true, result_json);
  BOOST_TEST_REQUIRE(eventually([&] { return backup_status("run1").value("phase", "") == "Succeeded"; }, 20s),
                     backup_status("run1").dump());
  st = backup_status("run1");
  BOOST_TEST(st["location"] == "s3://bk/RUN/");
  BOOST_TEST(st["sizeBytes"] == 1048576);
  BOOST_TEST(st["gtidExecuted"] == "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-23");
  BOOST_TEST(st["binlogFile"] == "binlog.000003");
  BOOST_TEST(st["binlogPos"] == 4711);
  BOOST_TEST(st["completionTime"] == "2026-01-01T00:01:00Z");

  // A failed Job: Failed with the result's message.
  must(cluster.create(res::mysqlbackups, ns,
                      {{"apiVersion", "shipstream.io/v1alpha1"},
                       {"kind", "MysqlBackup"},
                       {"metadata", {{"name", "bad1"}}},
                       {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", "s3"}}}}));
  BOOST_TEST_REQUIRE(eventually([&] { return get(res::jobs, "mysqlbackup-bad1").is_object(); }, 20s));
  finish_job("bad1", "mysqlbackup-bad1", false, R"({"message":"mysqldump: Got error: 1045"})");
  BOOST_TEST_REQUIRE(eventually([&] { return backup_status("bad1").value("phase", "") == "Failed"; }, 20s));
  BOOST_TEST(backup_status("bad1")["message"] == "mysqldump: Got error: 1045");

  // 4. Retention (count 2): run1 succeeded, so old1 goes, only after its cleanup Job succeeded;
  // then run2 succeeds and old2 goes. The Failed one is within maxFailedKeep (10).
  auto pitr = backup_ctl::make_pitr_source(cluster.client(br::kube_sim::test::operator_identity));
  auto retire = [&](const std::string& old) {
    std::string rm = "mysqlbackup-rm-" + old;
    BOOST_TEST_REQUIRE(eventually([&] { return get(res::jobs, rm).is_object(); }, 20s), old);
    auto cleanup = get(res::jobs, rm);
    BOOST_TEST(cleanup["spec"]["template"]["spec"]["containers"][0]["args"] ==
               json::array({"backup", "delete", "--name", old}));
    // Held by the finalizer until the cleanup succeeds; no longer counted by /pitr-cutoff.
    BOOST_TEST(get(res::mysqlbackups, old)["metadata"].contains("deletionTimestamp"));
    auto a = pitr(ns, group, "s3");
    BOOST_TEST(a.ok);
    BOOST_TEST(a.has_cutoff);
    BOOST_TEST(config::format_rfc3339(config::timestamp{std::chrono::milliseconds{a.cutoff_ms}}) !=
               get(res::mysqlbackups, old)["status"].value("completionTime", ""));
    finish_job(old, rm, true, "{}", "backup-cleanup");
    BOOST_TEST_REQUIRE(eventually([&] { return get(res::mysqlbackups, old).is_null(); }, 20s), old);
  };
  retire("old1");
  BOOST_TEST(get(res::mysqlbackups, "old2").is_object());
  must(cluster.create(res::mysqlbackups, ns,
                      {{"apiVersion", "shipstream.io/v1alpha1"},
                       {"kind", "MysqlBackup"},
                       {"metadata", {{"name", "run2"}}},
                       {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", "s3"}}}}));
  BOOST_TEST_REQUIRE(eventually([&] { return get(res::jobs, "mysqlbackup-run2").is_object(); }, 20s));
  std::string run2_result = result_json;
  run2_result.replace(run2_result.find("2026-01-01T00:01:00Z"), 20, "2026-01-02T00:01:00Z");
  finish_job("run2", "mysqlbackup-run2", true, run2_result);
  retire("old2");
  BOOST_TEST_REQUIRE(eventually([&] { return backups() == std::set<std::string>{"run1", "run2", "bad1"}; }, 20s));
  // /pitr-cutoff's catalogue: the oldest Succeeded backup left.
  auto cut = pitr(ns, group, "s3");
  BOOST_TEST(cut.ok);
  BOOST_TEST_REQUIRE(cut.has_cutoff);
  BOOST_TEST(config::format_rfc3339(config::timestamp{std::chrono::milliseconds{cut.cutoff_ms}}) ==
             "2026-01-01T00:01:00Z");  // run1's completionTime

  // 6. A spec the operator refuses (bad cron) changes nothing: the CronJob stays as it was.
  auto g = get(kube::resources::mysqlfailovergroups, group);
  g["spec"]["backup"]["schedules"][0]["schedule"] = "0 24 * * *";
  BOOST_TEST_REQUIRE(c->update(kube::resources::mysqlfailovergroups, g).ok());
  std::this_thread::sleep_for(1s);  // several controller passes
  BOOST_TEST(get(res::cronjobs, cj)["spec"]["schedule"] == "0 3 * * *");
  // A valid change updates it.
  g = get(kube::resources::mysqlfailovergroups, group);
  g["spec"]["backup"]["schedules"][0]["schedule"] = "30 2 * * *";
  BOOST_TEST_REQUIRE(c->update(kube::resources::mysqlfailovergroups, g).ok());
  BOOST_TEST(eventually([&] { return get(res::cronjobs, cj)["spec"]["schedule"] == "30 2 * * *"; }, 20s));

  // 7. Backups disabled: the CronJob goes; the MysqlBackups stay (they outlive the schedule).
  g = get(kube::resources::mysqlfailovergroups, group);
  g["spec"].erase("backup");
  BOOST_TEST_REQUIRE(c->update(kube::resources::mysqlfailovergroups, g).ok());
  BOOST_TEST(eventually([&] { return get(res::cronjobs, cj).is_null(); }, 20s));
  BOOST_TEST((backups() == std::set<std::string>{"run1", "run2", "bad1"}));
}

BOOST_AUTO_TEST_SUITE_END()
