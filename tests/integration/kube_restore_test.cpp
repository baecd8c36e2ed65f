// spec.initFromBackup in Kubernetes mode on the API SIMULATOR (issue 21, acceptance 2 at the
// Kubernetes-API level): the group source (its coordinator over a MOCK site_io: no MySQL runs
// here) and the restore controller run in this process under the chart's RBAC; the test plays
// the Job controller and kubelet (Job status, the pod's termination message) and the target
// Deployment's readiness, as a real cluster would. Shown: no bootstrap while the restore is
// pending (not even with the restore target writable while it loads), the restore Job rendered
// with the right arguments, status.restore's phases and Events, Succeeded -> Job deleted and the
// bootstrap seeds from the restored site; Failed -> Job kept, Warning Event, no retry, still no
// bootstrap; bad input refused with its field path and nothing created.
#include <boost/test/unit_test.hpp>

#include <caf/all.hpp>

#include <thread>

#include "actors/operator/kube/restore/restore_decide.hpp"
#include "config/rfc3339.hpp"
#include "io/metrics/metrics.hpp"
#include "tests/integration/kube_restore_fixture.hpp"
#include "tests/support/eventually.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::eventually;

using namespace br::test::restore_fixture_detail;

namespace {

json init_group(const std::string& name, json init) { return group_object(name, "initFromBackup", std::move(init)); }

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_restore, restore_fixture)

BOOST_AUTO_TEST_CASE(pending_running_succeeded_then_the_bootstrap_seeds_from_the_restored_site) {
  succeeded_backup("nightly-1", "g");
  must(cluster.create(kube::resources::mysqlfailovergroups, ns,
                      init_group("g", {{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
                                         {"pointInTime", {{"stopDatetime", "2026-01-01T00:30:00Z"}}}})));
  start({"g"});

  // 1. The target (the bootstrap's seed, a) has no Deployment yet: Pending, Warning Event.
  BOOST_TEST_REQUIRE(eventually([&] { return restore("g").value("phase", "") == "Pending"; }, 20s),
                     status("g").dump());
  BOOST_TEST(restore("g")["targetSite"] == "a");
  BOOST_TEST(restore("g").value("message", "").find("is not ready") != std::string::npos);
  BOOST_TEST(eventually([&] { return !events("g", "RestoreTargetUnavailable").empty(); }, 10s));
  BOOST_TEST(events("g", "RestoreTargetUnavailable")[0]["type"] == "Warning");

  // 2. Ready: the restore Job runs the project's binary against the target's Service.
  ready_deployment("g", "a");
  // Running is stored first, then the Job is created, then RestoreStarted is recorded (one pass).
  BOOST_TEST_REQUIRE(eventually([&] {
    return restore("g").value("phase", "") == "Running" &&
           get(res::jobs, "mysqlrestore-g").is_object() && !events("g", "RestoreStarted").empty();
  }, 20s), status("g").dump());
  auto r = restore("g");
  BOOST_TEST(r["jobName"] == "mysqlrestore-g");
  BOOST_TEST(r["targetSite"] == "a");
  BOOST_TEST(r.contains("startTime"));
  auto job = get(res::jobs, "mysqlrestore-g");
  BOOST_TEST_REQUIRE(job.is_object());
  BOOST_TEST(job["metadata"]["labels"]["shipstream.io/restore"] == "g");
  BOOST_TEST(job["metadata"]["ownerReferences"][0]["kind"] == "MysqlFailoverGroup");
  BOOST_TEST(job["spec"]["backoffLimit"] == 0);
  const auto& container = job["spec"]["template"]["spec"]["containers"][0];
  BOOST_TEST(container["image"] == "bloodraven:test");
  BOOST_TEST(container["args"] ==
             json::array({"restore", "--name", "nightly-1", "--target", "mysql-g-a.default.svc:3306",
                          "--creds-dir", "/run/bloodraven/mysql-creds", "--user", "root",
                          "--result-file", "/dev/termination-log", "--stop-datetime",
                          "2026-01-01T00:30:00Z"}));
  std::map<std::string, std::string> env;
  for (const auto& e : container["env"]) env[e["name"]] = e.value("value", "");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_PREFIX"] == "prod");
  BOOST_TEST(env["BLOODRAVEN_PITR_STORAGE_TYPE"] == "S3");
  BOOST_TEST(!events("g", "RestoreStarted").empty());

  // 3. While the Job loads, the target is writable (the restore lifts its fence) and every site
  // answers: nothing is adopted, promoted, fenced or cloned; the status says why.
  mock->set("g-a", "", true);
  mock->set("g-b", "", false);
  BOOST_TEST(eventually([&] {
    return status("g").value("bootstrap", json::object()).value("message", "").find(
               "waiting: the restore of spec.initFromBackup") != std::string::npos;
  }, 20s), status("g").dump());
  std::this_thread::sleep_for(2s);  // many polls and evaluations
  BOOST_TEST(mock->promotions() == 0u);
  BOOST_TEST(status("g").value("activeSite", "") == "");

  // 4. The Job succeeds: the restored site holds the backup's set and is fenced again.
  mock->set("g-a", gtid, false);
  // The result as `bloodraven restore` writes it, completed now (whole seconds).
  const std::string done = config::format_rfc3339(std::chrono::time_point_cast<std::chrono::seconds>(
      std::chrono::system_clock::now()));
  finish_job("g", "mysqlrestore-g", true,
             R"({"name":"nightly-1","gtidExecuted":")" + gtid +
                 R"(","sourceSizeBytes":1048576,"loadedBytes":4000000,"completionTime":")" + done + R"("})");
  BOOST_TEST_REQUIRE(eventually([&] { return restore("g").value("phase", "") == "Succeeded"; }, 20s),
                     status("g").dump());
  BOOST_TEST(restore("g")["completionTime"] == done);
  BOOST_TEST(restore("g").value("message", "").find(gtid) != std::string::npos);
  BOOST_TEST(eventually([&] { return get(res::jobs, "mysqlrestore-g").is_null(); }, 20s));
  BOOST_TEST(!events("g", "RestoreSucceeded").empty());
  // bloodraven_restore_* (this process's registry, as /metrics serves it): the duration from
  // status.restore.startTime to the result's completionTime, its completion, the stored size.
  const auto text = metrics::render_text();
  const std::string labels =
      R"({group="g",namespace="default",restore_kind="init_from_backup",target_site="a"})";
  BOOST_TEST(text.find("bloodraven_restore_last_source_size_bytes" + labels + " 1048576") != std::string::npos, text);
  const auto done_unix = std::chrono::duration_cast<std::chrono::seconds>(
                             config::parse_rfc3339(done)->time_since_epoch()).count();
  BOOST_TEST(text.find("bloodraven_restore_last_success_timestamp_seconds" + labels + " " +
                       std::to_string(done_unix)) != std::string::npos, text);
  BOOST_TEST(text.find("bloodraven_restore_duration_seconds_count" + labels + " 1") != std::string::npos, text);

  // 5. The bootstrap seeds the group from the restored site (the others are cloned from it).
  BOOST_TEST_REQUIRE(eventually([&] { return mock->promotions() > 0; }, 30s), status("g").dump());
  BOOST_TEST(mock->promoted_hosts().front() == "g-a");
  BOOST_TEST(eventually([&] { return status("g").value("activeSite", "") == "a"; }, 20s), status("g").dump());
  // One-shot: no new Job after success.
  std::this_thread::sleep_for(500ms);
  BOOST_TEST(get(res::jobs, "mysqlrestore-g").is_null());
}

BOOST_AUTO_TEST_CASE(a_failed_restore_keeps_its_job_warns_and_holds_the_bootstrap) {
  must(cluster.create(kube::resources::mysqlfailovergroups, ns,
                      init_group("h", {{"source", {{"s3", {{"bucket", "other"}, {"prefix", "team/nightly-9"},
                                                              {"credentialsSecret", "aws"}}}}}})));
  // Bad input: refused with its field path (Ready=False), nothing created for it.
  must(cluster.create(kube::resources::mysqlfailovergroups, ns,
                      init_group("bad", {{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
                                           {"pointInTime", {{"excludeGtids", gtid}}}})));
  ready_deployment("h", "a");
  ready_deployment("bad", "a");
  start({"h", "bad"});

  BOOST_TEST_REQUIRE(eventually([&] { return get(res::jobs, "mysqlrestore-h").is_object(); }, 20s),
                     status("h").dump());
  auto args = get(res::jobs, "mysqlrestore-h")["spec"]["template"]["spec"]["containers"][0]["args"];
  BOOST_TEST(args[2] == "nightly-9");
  BOOST_TEST(args.size() == 11u);  // no point in time
  finish_job("h", "mysqlrestore-h", false,
             R"({"name":"nightly-9","message":"the target mysql-h-a.default.svc:3306 is not empty (it holds tables: app.t): restore only into a fresh server"})");
  BOOST_TEST_REQUIRE(eventually([&] { return restore("h").value("phase", "") == "Failed"; }, 20s),
                     status("h").dump());
  BOOST_TEST(restore("h").value("message", "").find("is not empty") != std::string::npos);
  BOOST_TEST(restore("h").value("message", "").find("kept for its logs") != std::string::npos);
  BOOST_TEST(eventually([&] { return !events("h", "RestoreFailed").empty(); }, 10s));
  BOOST_TEST(events("h", "RestoreFailed")[0]["type"] == "Warning");
  // Kept, not retried, and the group stays held: no bootstrap over a failed restore.
  std::this_thread::sleep_for(2s);
  auto kept = get(res::jobs, "mysqlrestore-h");
  BOOST_TEST_REQUIRE(kept.is_object());
  BOOST_TEST(kept["status"].value("failed", 0) == 1);
  BOOST_TEST(restore("h").value("phase", "") == "Failed");
  BOOST_TEST(events("h", "RestoreStarted").size() == 1u);
  BOOST_TEST(mock->promotions() == 0u);
  BOOST_TEST(status("h").value("bootstrap", json::object()).value("message", "").find("waiting: the restore") !=
             std::string::npos);

  // The refused spec: Ready=False naming the field; no Job, no status.restore.
  auto ready = [&]() -> json {
    for (const auto& cnd : status("bad").value("conditions", json::array()))
      if (cnd.value("type", "") == "Ready") return cnd;
    return nullptr;
  };
  BOOST_TEST_REQUIRE(eventually([&] { return ready().is_object(); }, 20s), status("bad").dump());
  BOOST_TEST(ready()["status"] == "False");
  BOOST_TEST(ready().value("message", "").find("spec.initFromBackup.pointInTime.excludeGtids") !=
             std::string::npos, ready().dump());
  BOOST_TEST(get(res::jobs, "mysqlrestore-bad").is_null());
  BOOST_TEST(!status("bad").contains("restore"));
}

BOOST_AUTO_TEST_SUITE_END()
