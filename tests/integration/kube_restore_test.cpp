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

#include <atomic>
#include <mutex>
#include <set>
#include <thread>

#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/restore/restore_controller.hpp"
#include "actors/operator/kube/restore/restore_decide.hpp"
#include "config/rfc3339.hpp"
#include "io/log/log.hpp"
#include "io/metrics/metrics.hpp"
#include "tests/support/eventually.hpp"
#include "tests/support/kube_sim/harness/cluster.hpp"
#include "tests/support/kube_sim/test_support.hpp"
#include "tests/support/recording_platform.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::eventually;
namespace res = br::backup_ctl::resources;

namespace {

const std::string ns = "default";
const std::string gtid = "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-23";

json site(const std::string& group, const std::string& name) {
  return {{"name", name},
          {"zone", "z-" + name},
          {"lbIP", "192.0.2.1"},
          {"taintNodeSelector", {{"shipstream.io/site." + group, name}}},
          {"storage", {{"size", "1Gi"}}}};
}

json group_object(const std::string& name, json init) {
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"credentials", {{"operatorSecret", name + "-operator"}}},
            {"dns", {{"hostname", name + ".example.com"}}},
            {"sites", json::array({site(name, "a"), site(name, "b")})},
            {"backup",
             {{"profiles",
               json::array({{{"name", "s3"},
                             {"storage",
                              {{"type", "S3"},
                               {"s3", {{"bucket", "bk"}, {"prefix", "prod"}, {"credentialsSecret", "aws"},
                                       {"endpointURL", "http://s3.test:9000"}, {"forcePathStyle", true}}}}}}})},
              {"pitr", {{"enabled", true}, {"profileName", "s3"}}}}},
            {"initFromBackup", std::move(init)}}}};
}

/// MySQL as the coordinator sees it, per "<group>-<site>" host: fenced and empty until the test
/// says otherwise; a promotion makes the site writable and is counted.
struct mock_mysql {
  std::mutex m;
  std::map<std::string, std::string> gtid;  // host -> gtid_executed
  std::set<std::string> writable;
  std::vector<std::string> promoted;  // hosts, in order
  std::vector<std::string> clones;    // recipient hosts

  mysql_outcome handle(const mysql_command& cmd) {
    std::lock_guard l{m};
    const auto& h = cmd.target.host;
    if (cmd.op == mysql_op::probe)
      return writable.count(h) ? test::writable_probe(gtid[h]) : test::read_only_probe(gtid[h], false);
    mysql_outcome ok;
    ok.ok = true;
    switch (cmd.op) {
      case mysql_op::promote:
      case mysql_op::promote_switch:
        writable.insert(h);
        promoted.push_back(h);
        ok.value = "armed";
        break;
      case mysql_op::ensure_switch: ok.value = "armed"; break;
      case mysql_op::fence: writable.erase(h); break;
      case mysql_op::read_gtid: ok.value = gtid[h]; break;
      case mysql_op::show_grants: ok.value = "GRANT ALL PRIVILEGES ON *.* TO `op`@`%`"; break;
      case mysql_op::wait_executed: ok.value = "reached"; break;
      case mysql_op::heartbeat: ok.value = "refreshed"; break;
      case mysql_op::clone: clones.push_back(h); break;
      default: break;
    }
    return ok;
  }
  size_t promotions() {
    std::lock_guard l{m};
    return promoted.size();
  }
  std::vector<std::string> promoted_hosts() {
    std::lock_guard l{m};
    return promoted;
  }
  void set(const std::string& host, const std::string& g, bool w) {
    std::lock_guard l{m};
    gtid[host] = g;
    if (w) writable.insert(host);
    else writable.erase(host);
  }
};

template <class R>
std::string why(const R& r) {
  return r.ok() ? std::string{} : r.error().describe();
}

struct restore_fixture {
  br::kube_sim::test::sim_cluster cluster;  // the chart's RBAC for the operator's identity
  std::shared_ptr<kube::client> c = cluster.client("test");
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor self{sys};
  br::kube_sim::test::operator_actors op;
  std::shared_ptr<mock_mysql> mock = std::make_shared<mock_mysql>();
  ticking_actor controller;

  restore_fixture() {
    log::set_level(log::level::warn);
    must(cluster.install_crds());  // with the DNSEndpoint CRD: the bootstrap steers DNS
    must(cluster.create(kube::resources::crds, "",
                        br::kube_sim::test::yaml_to_json(YAML::LoadFile(br::kube_sim::test::source_path(
                            "charts/bloodraven/crds/shipstream.io_mysqlbackups.yaml")))));
  }

  void start(const std::vector<std::string>& groups) {
    for (const auto& g : groups) must(cluster.create_operator_secret(ns, g + "-operator", "op", "pw"));
    op.spawn(sys, false);
    auto m = mock;
    op.io = caf::actor_cast<site_io_actor>(sys.spawn([m](caf::event_based_actor* s) {
      s->set_default_handler(caf::print_and_drop);
      return caf::behavior{[m](const mysql_command& cmd) -> mysql_outcome { return m->handle(cmd); }};
    }));
    auto o = br::kube_sim::test::fast_group_source(cluster.client(br::kube_sim::test::operator_identity), op.io);
    o.reconcile = false;  // the test plays the target's Deployment
    o.site_address = [](const std::string&, const std::string& g, const std::string& s) {
      return config::address_spec{g + "-" + s, 3306};
    };
    o.sidecar_address = {};
    op.start(sys, o);
    restore_ctl::controller_options ro;
    ro.client = cluster.client(br::kube_sim::test::operator_identity);
    ro.interval = 150ms;
    ro.render.image = "bloodraven:test";
    ro.render.site_address = [](const std::string& n, const std::string& g, const std::string& s) {
      return "mysql-" + g + "-" + s + "." + n + ".svc:3306";
    };
    controller = restore_ctl::spawn_restore_controller(sys, ro);
  }

  ~restore_fixture() {
    if (controller) {
      caf::anon_send_exit(controller, caf::exit_reason::user_shutdown);
      self->wait_for(controller);
    }
    op.stop(self);
    auto denied = cluster.denials();
    BOOST_TEST(denied.empty(), "operator requests refused by the chart's RBAC:\n" << denied);
  }

  void must(const std::string& error) { BOOST_TEST_REQUIRE(error.empty(), error); }

  json get(const kube::resource_ref& r, const std::string& name) {
    auto got = c->get(r, ns, name);
    return got ? *got : json(nullptr);
  }
  json status(const std::string& group) {
    auto g = get(kube::resources::mysqlfailovergroups, group);
    return g.is_object() ? g.value("status", json::object()) : json::object();
  }
  json restore(const std::string& group) { return status(group).value("restore", json::object()); }

  std::vector<json> events(const std::string& name, const std::string& reason) {
    std::vector<json> out;
    auto r = c->list(kube::resources::events, ns);
    if (!r) return out;
    for (const auto& e : (*r)["items"])
      if (e["involvedObject"].value("name", "") == name && e.value("reason", "") == reason)
        out.push_back(e);
    return out;
  }

  void succeeded_backup(const std::string& name, const std::string& group) {
    must(cluster.create(res::mysqlbackups, ns,
                        {{"apiVersion", "shipstream.io/v1alpha1"},
                         {"kind", "MysqlBackup"},
                         {"metadata", {{"name", name}}},
                         {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", "s3"}}}}));
    auto s = c->merge_patch(res::mysqlbackups, ns, name,
                            {{"status", {{"phase", "Succeeded"}, {"startTime", "2026-01-01T00:00:00Z"},
                                         {"completionTime", "2026-01-01T00:01:00Z"}, {"sizeBytes", 1048576},
                                         {"location", "s3://bk/prod/" + name + "/"}}}},
                            "status");
    BOOST_TEST_REQUIRE(s.ok(), why(s));
  }

  /// The target's Deployment, rolled out and ready (what kubelet and the Deployment controller
  /// would report).
  void ready_deployment(const std::string& group, const std::string& s) {
    const std::string name = "mysql-" + group + "-" + s;
    must(cluster.create(kube::resources::deployments, ns,
                        {{"apiVersion", "apps/v1"},
                         {"kind", "Deployment"},
                         {"metadata", {{"name", name}, {"namespace", ns}}},
                         {"spec",
                          {{"selector", {{"matchLabels", {{"app", name}}}}},
                           {"template",
                            {{"metadata", {{"labels", {{"app", name}}}}},
                             {"spec", {{"containers", json::array({{{"name", "mysql"}, {"image", "mysql:9.7"}}})}}}}}}}}));
    auto p = c->merge_patch(kube::resources::deployments, ns, name,
                            {{"status", {{"readyReplicas", 1}, {"replicas", 1}, {"observedGeneration", 1}}}},
                            "status");
    BOOST_TEST_REQUIRE(p.ok(), why(p));
  }

  /// The Job controller and kubelet, played: the Job's pod ended with `message` in its
  /// termination log, and the Job is Complete (or Failed).
  void finish_job(const std::string& group, const std::string& job, bool ok, const std::string& message) {
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata",
                 {{"name", job + "-x1"},
                  {"namespace", ns},
                  {"labels", {{"shipstream.io/restore", group}, {"app.kubernetes.io/component", "restore"}}}}},
                {"spec", {{"containers", json::array({{{"name", "restore"}, {"image", "bloodraven:test"}}})}}}};
    must(cluster.create(kube::resources::pods, ns, pod));
    auto p = c->merge_patch(
        kube::resources::pods, ns, job + "-x1",
        {{"status",
          {{"phase", ok ? "Succeeded" : "Failed"},
           {"containerStatuses",
            json::array({{{"name", "restore"},
                          {"state", {{"terminated", {{"exitCode", ok ? 0 : 1}, {"message", message},
                                                     {"finishedAt", "2026-01-01T00:11:00Z"}}}}}}})}}}},
        "status");
    BOOST_TEST_REQUIRE(p.ok(), why(p));
    json st = ok ? json{{"succeeded", 1}, {"conditions", json::array({{{"type", "Complete"}, {"status", "True"}}})}}
                 : json{{"failed", 1},
                        {"conditions", json::array({{{"type", "Failed"}, {"status", "True"},
                                                     {"reason", "BackoffLimitExceeded"}}})}};
    auto j = c->merge_patch(res::jobs, ns, job, {{"status", st}}, "status");
    BOOST_TEST_REQUIRE(j.ok(), why(j));
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_restore, restore_fixture)

BOOST_AUTO_TEST_CASE(pending_running_succeeded_then_the_bootstrap_seeds_from_the_restored_site) {
  succeeded_backup("nightly-1", "g");
  must(cluster.create(kube::resources::mysqlfailovergroups, ns,
                      group_object("g", {{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
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
                      group_object("h", {{"source", {{"s3", {{"bucket", "other"}, {"prefix", "team/nightly-9"},
                                                              {"credentialsSecret", "aws"}}}}}})));
  // Bad input: refused with its field path (Ready=False), nothing created for it.
  must(cluster.create(kube::resources::mysqlfailovergroups, ns,
                      group_object("bad", {{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
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
