// Backups in Kubernetes mode, run for real on the process kubelet (issue 21, acceptance 2): the
// operator (group source and backup controller, in this process under the chart's RBAC) and a
// 2-site group from empty PVCs as in kube_kubelet_e2e_test.cpp; the process kubelet's Job
// controller SIMULATION runs the Jobs the backup controller creates as pods, with the real
// `bloodraven backup run|delete` in them against the group's MySQL 9.7 (the image's MySQL client
// is the sandbox chroot's, see process_kubelet/kubelet.hpp). In order:
//   (1) spec.backup with a PVC profile (retention count 1) and a schedule: its CronJob;
//   (2) the real `bloodraven trigger-backup` -> MysqlBackup -> Job -> pod dumps the caught-up
//       replica -> Succeeded with location, size, GTID set (holding the writes made before);
//       the artifacts are in the volume, the dump holds the application's rows;
//   (3) a backup whose name is already in storage: the Job fails (backoffLimit 0), the
//       MysqlBackup is Failed with the tool's message, the failed Job and pod are kept;
//   (4) a second backup: retention deletes the first through the real cleanup Job: its
//       artifacts are gone from the volume, the object is deleted, its Jobs and pods with it;
//   (5) the same through an S3 profile on the real S3 server (radosgw, tests/support/s3_server.*,
//       reached by the pods through a Service standing for it): the backup's objects are in the
//       bucket; a second backup and retention (count 1) delete the first's objects;
//   (6) restore (spec.initFromBackup, the restore controller of actors/operator/kube/restore/):
//       a new group seeded from a directory that holds no backup -> the restore Job fails ->
//       status.restore Failed, the Job kept; another new group from run2's directory -> the
//       real `bloodraven restore` Job runs on the kubelet -> Succeeded, the Job deleted -> the
//       group bootstraps from the restored site -> run2's rows on every site;
//   (7) spec.backup removed: the CronJob is deleted.
// Phase timings are printed, never asserted. Needs root (the kubelet); label kubelet.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/restore/restore_controller.hpp"
#include "io/codec/base64.hpp"
#include "io/storage/storage_config.hpp"
#include "tests/integration/kube_kubelet_fixture.hpp"
#include "tests/support/child_process.hpp"
#include "tests/support/s3_server.hpp"
#include "tests/support/process_kubelet/pod_config.hpp"

using namespace br;
using namespace std::chrono_literals;
using nlohmann::json;
using br::test::kubelet_e2e::eventually;
namespace res = br::backup_ctl::resources;
namespace fs = std::filesystem;

namespace {

const std::string backups_claim = "kb-backups";
const int s3_instance = 197;  // port 34197 (helper K's range this session)
const int s3_service_port = 9000;
const std::string s3_endpoint = "http://s3.default.svc.cluster.local:" + std::to_string(s3_service_port);

json group_object(const std::string& group, const std::vector<std::string>& sites, json init_from_backup = nullptr) {
  json g = br::test::kubelet_e2e::kubelet_group_object(group, sites, "192.0.2.8");
  g["spec"].update(
      {{"promotionPolicy", "Safe"},
       {"promotionGateTimeout", "90s"},
       {"backup",
        {{"backoffLimit", 0},
         {"activeDeadlineSeconds", 600},
         {"profiles",
          json::array({{{"name", "pvc"},
                        {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", backups_claim}, {"subPath", group}}}}},
                        {"retentionPolicy", {{"count", 1}}}},
                       {{"name", "s3"},
                        {"storage",
                         {{"type", "S3"},
                          {"s3", {{"bucket", "kb-backups"}, {"prefix", "backups"}, {"credentialsSecret", "kb-s3"},
                                  {"endpointURL", s3_endpoint}, {"forcePathStyle", true}}}}},
                        {"retentionPolicy", {{"count", 1}}}}})},
         {"schedules", json::array({{{"name", "nightly"}, {"profileName", "pvc"}, {"schedule", "0 3 * * *"}}})}}}});
  if (!init_from_backup.is_null()) {
    g["spec"].erase("backup");
    g["spec"]["initFromBackup"] = std::move(init_from_backup);
  }
  return g;
}

struct backup_fixture : br::test::kubelet_e2e::operator_on_kubelet {
  ticking_actor controller, restores;
  std::string kubeconfig = sim.write_kubeconfig(dir.path.string());

  std::unique_ptr<br::test::s3_server> s3;

  // The S3 server is a process on the host; the pods reach it through the Service "s3".
  backup_fixture()
      : operator_on_kubelet("kb", {"a", "b"}, {{"s3", "default", s3_service_port, 34000 + s3_instance}}) {}

  ~backup_fixture() {
    for (auto* a : {&controller, &restores})
      if (*a) {
        caf::anon_send_exit(*a, caf::exit_reason::user_shutdown);
        (*self)->wait_for(*a);
      }
    if (boost::unit_test::framework::current_test_case().p_name.get().size())
      BOOST_TEST_MESSAGE("backups at the end:\n" << describe_backups());
  }

  void start_backup_controller() {
    backup_ctl::controller_options o;
    o.client = cluster.client(br::kube_sim::test::operator_identity);
    o.interval = 1s;
    o.instance = "operator-0";
    controller = backup_ctl::spawn_backup_controller(*sys, o);
    restore_ctl::controller_options ro;
    ro.client = o.client;
    ro.interval = 1s;
    ro.instance = o.instance;
    restores = restore_ctl::spawn_restore_controller(*sys, ro);
  }

  /// As root on another group's site (its generated Secret's root password).
  std::string root_query(const std::string& g, const std::string& deployment, const std::string& sql) {
    auto sec = c->get(kube::resources::secrets, ns, g + "-operator");
    if (!sec) return "";
    return br::kube_sim::test::root_scalar(kubelet->pod_ip(deployment), secret_data(*sec)["MYSQL_ROOT_PASSWORD"], sql);
  }

  json group_status(const std::string& g) {
    auto got = c->get(kube::resources::mysqlfailovergroups, ns, g);
    return got ? (*got).value("status", json::object()) : json::object();
  }
  std::string restore_phase(const std::string& g) {
    return group_status(g).value("restore", json::object()).value("phase", "");
  }

  json get(const kube::resource_ref& r, const std::string& name) {
    auto got = c->get(r, ns, name);
    return got ? *got : json(nullptr);
  }
  json backup_status(const std::string& name) {
    auto b = get(res::mysqlbackups, name);
    return b.is_object() ? b.value("status", json::object()) : json::object();
  }
  std::string phase_of(const std::string& name) { return backup_status(name).value("phase", ""); }

  /// The pods of a Job (by its name label).
  std::vector<json> job_pods(const std::string& job) {
    kube::list_options lo;
    lo.label_selector = "batch.kubernetes.io/job-name=" + job;
    auto l = c->list(kube::resources::pods, ns, lo);
    std::vector<json> out;
    if (l)
      for (const auto& p : (*l)["items"]) out.push_back(p);
    return out;
  }

  /// The real `bloodraven trigger-backup`, as the CronJob's pod runs it.
  void trigger(const std::string& name, const std::string& profile = "pvc") {
    br::test::child_process t(br::test::binary_path("bloodraven"),
                              {"trigger-backup", "--kubeconfig", kubeconfig, "--namespace", ns, "--group", group,
                               "--profile", profile, "--triggered-by", "schedule/nightly", "--name", name});
    auto rc = t.wait_exit(60s);
    BOOST_TEST_REQUIRE(rc.has_value());
    BOOST_TEST_REQUIRE(*rc == 0, t.output());
  }

  /// The backup's directory in the volume, on the host.
  fs::path artifacts(const std::string& name) { return fs::path(kubelet->pvc_dir(backups_claim)) / group / name; }

  std::string sh(const std::string& cmd) {
    br::test::child_process p("/bin/sh", {"-c", cmd});
    p.wait_exit(60s);
    auto out = p.output();
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
    return out;
  }

  /// MysqlBackups, Jobs and their pods (with the backup containers' log tails), the kubelet's
  /// last error and the operator's log tail: for failure messages.
  std::string describe_backups() {
    std::string out;
    if (auto l = c->list(res::mysqlbackups, ns))
      for (const auto& b : (*l)["items"])
        out += "MysqlBackup " + b["metadata"].value("name", "") + ": " + b.value("status", json::object()).dump() + "\n";
    if (auto l = c->list(res::jobs, ns))
      for (const auto& j : (*l)["items"]) {
        const std::string name = j["metadata"].value("name", "");
        out += "Job " + name + ": " + j.value("status", json::object()).dump() + "\n";
        for (const auto& p : job_pods(name)) {
          const std::string pod = p["metadata"].value("name", "");
          out += "  pod " + pod + ": " + p.value("status", json::object()).dump().substr(0, 3000) + "\n";
          auto log = kubelet->job_container_log(pod, "backup");
          if (log.size() > 3000) log = log.substr(log.size() - 3000);
          out += "  ---- log ----\n" + log + "\n";
        }
      }
    return out + "kubelet: " + kubelet->error() + "\noperator log tail:\n" +
           br::test::kubelet_e2e::log_capture::tail().substr(0, 12000);
  }
  struct description {
    backup_fixture* f;
    friend std::ostream& operator<<(std::ostream& os, const description& d) { return os << d.f->describe_backups(); }
  };
  description describe() { return {this}; }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(kube_kubelet_backup, backup_fixture)

BOOST_AUTO_TEST_CASE(backup_and_cleanup_jobs_run_on_the_kubelet) {
  auto crds = cluster.install_crds();
  BOOST_TEST_REQUIRE(crds.empty(), crds);
  BOOST_TEST_REQUIRE(cluster.create(kube::resources::crds, "",
                                    br::kube_sim::test::yaml_to_json(YAML::LoadFile(br::kube_sim::test::source_path(
                                        "charts/bloodraven/crds/shipstream.io_mysqlbackups.yaml"))))
                         .empty());
  // The backup volume (the kubelet keeps its directory on the host).
  BOOST_TEST_REQUIRE(cluster.create(kube::resources::pvcs, ns,
                                    {{"apiVersion", "v1"},
                                     {"kind", "PersistentVolumeClaim"},
                                     {"metadata", {{"name", backups_claim}, {"namespace", ns}}},
                                     {"spec", {{"accessModes", json::array({"ReadWriteOnce"})},
                                               {"resources", {{"requests", {{"storage", "1Gi"}}}}}}}})
                         .empty());

  // -- bootstrap, and data to back up ------------------------------------------------------------
  auto t0 = std::chrono::steady_clock::now();
  const std::string primary = bootstrap(group_object(group, sites), 420s, [&] { return describe_backups(); });
  phase("apply to bootstrap Done (2 sites)", t0);
  start_backup_controller();
  const std::string replica = primary == "a" ? "b" : "a";
  BOOST_TEST_REQUIRE(eventually([&] { return q(primary_service(), "SELECT @@hostname") != ""; }, 60s));
  q(primary_service(), "CREATE DATABASE app");
  q(primary_service(), "CREATE TABLE app.t (id INT PRIMARY KEY, v VARCHAR(20))");
  for (int k = 1; k <= 50; ++k) q(primary_service(), "INSERT INTO app.t VALUES (" + std::to_string(k) + ", 'row')");
  const std::string written = qs(primary, "SELECT @@gtid_executed");
  BOOST_TEST_REQUIRE(!written.empty());
  BOOST_TEST_REQUIRE(eventually([&] { return qs(replica, "SELECT COUNT(*) FROM app.t") == "50"; }, 60s));

  // -- (1) the schedule's CronJob ----------------------------------------------------------------
  const std::string cj = "mysql-" + group + "-backup-nightly";
  BOOST_TEST_REQUIRE(eventually([&] { return get(res::cronjobs, cj).is_object(); }, 30s), describe());

  // -- (2) trigger-backup -> Job -> pod -> Succeeded ------------------------------------------
  auto t2 = std::chrono::steady_clock::now();
  trigger("run1");
  BOOST_TEST_REQUIRE(eventually([&] { return phase_of("run1") == "Succeeded" || phase_of("run1") == "Failed"; }, 300s),
                     describe());
  phase("trigger-backup to MysqlBackup Succeeded", t2);
  auto st = backup_status("run1");
  BOOST_TEST_REQUIRE(st.value("phase", "") == "Succeeded", describe());
  BOOST_TEST_MESSAGE("run1 status: " << st.dump());
  BOOST_TEST(st.value("sourceSite", "") == replica);  // the caught-up replica, not the primary
  BOOST_TEST(st.value("location", "").find("run1") != std::string::npos);
  BOOST_TEST(st.value("sizeBytes", 0) > 0);
  const std::string gtids = st.value("gtidExecuted", "");
  BOOST_TEST_REQUIRE(!gtids.empty());
  // Every write made before the backup is in it; it holds nothing the primary does not have.
  BOOST_TEST(qs(primary, "SELECT GTID_SUBSET('" + written + "', '" + gtids + "')") == "1", gtids);
  BOOST_TEST(qs(primary, "SELECT GTID_SUBSET('" + gtids + "', @@gtid_executed)") == "1", gtids);
  BOOST_TEST(!st.value("binlogFile", "").empty());
  // The Job as the Job controller left it, its pod's termination message (the tool's result).
  auto job = get(res::jobs, "mysqlbackup-run1");
  BOOST_TEST_REQUIRE(job.is_object());
  BOOST_TEST(job["status"].value("succeeded", 0) == 1);
  bool complete = false;
  for (const auto& cnd : job["status"].value("conditions", json::array()))
    complete = complete || (cnd.value("type", "") == "Complete" && cnd.value("status", "") == "True");
  BOOST_TEST(complete, job["status"].dump());
  auto pods = job_pods("mysqlbackup-run1");
  BOOST_TEST_REQUIRE(pods.size() == 1u);
  BOOST_TEST(pods[0]["status"].value("phase", "") == "Succeeded");
  const json term = pods[0]["status"]["containerStatuses"][0]["state"].value("terminated", json::object());
  BOOST_TEST(term.value("exitCode", -1) == 0);
  BOOST_TEST(term.value("message", "").find("\"location\"") != std::string::npos, term.dump());
  // The artifacts in the volume; the dump holds the application's rows.
  BOOST_TEST(fs::exists(artifacts("run1") / "backup.json"));
  BOOST_TEST_REQUIRE(fs::exists(artifacts("run1") / "dump.sql.gz"));
  BOOST_TEST(sh("zcat '" + (artifacts("run1") / "dump.sql.gz").string() + "' | grep -c \"(50,'row')\"") == "1");

  // -- (3) a failing Job: the name is already in storage -----------------------------------------
  auto t3 = std::chrono::steady_clock::now();
  fs::create_directories(artifacts("bad1"));
  std::ofstream(artifacts("bad1") / "backup.json") << "{\"planted\": true}";
  BOOST_TEST_REQUIRE(cluster.create(res::mysqlbackups, ns,
                                    {{"apiVersion", "shipstream.io/v1alpha1"},
                                     {"kind", "MysqlBackup"},
                                     {"metadata", {{"name", "bad1"}, {"namespace", ns}}},
                                     {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", "pvc"}}}})
                         .empty());
  BOOST_TEST_REQUIRE(eventually([&] { return phase_of("bad1") == "Failed"; }, 180s), describe());
  phase("a failing backup Job to MysqlBackup Failed", t3);
  BOOST_TEST_MESSAGE("bad1 status: " << backup_status("bad1").dump());
  BOOST_TEST(backup_status("bad1").value("message", "").find("bad1") != std::string::npos);
  auto bad_job = get(res::jobs, "mysqlbackup-bad1");
  BOOST_TEST_REQUIRE(bad_job.is_object());  // kept
  BOOST_TEST(bad_job["status"].value("failed", 0) == 1);  // backoffLimit 0: one pod
  BOOST_TEST(job_pods("mysqlbackup-bad1").size() == 1u);
  BOOST_TEST(fs::exists(artifacts("bad1") / "backup.json"));  // not its to delete

  // -- (4) retention: a second backup, the first goes through the cleanup Job ---------------------
  auto t4 = std::chrono::steady_clock::now();
  trigger("run2");
  BOOST_TEST_REQUIRE(eventually([&] { return phase_of("run2") == "Succeeded"; }, 300s), describe());
  phase("second backup Succeeded", t4);
  auto t5 = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(eventually([&] { return get(res::mysqlbackups, "run1").is_null(); }, 300s), describe());
  phase("retention: run1 deleted after its cleanup Job", t5);
  BOOST_TEST(!fs::exists(artifacts("run1") / "backup.json"));
  BOOST_TEST(!fs::exists(artifacts("run1") / "dump.sql.gz"));
  BOOST_TEST(fs::exists(artifacts("run2") / "dump.sql.gz"));
  BOOST_TEST(get(res::mysqlbackups, "run2").is_object());
  BOOST_TEST(get(res::mysqlbackups, "bad1").is_object());  // within maxFailedKeep
  // The object's Jobs went with it, and their pods with them (ownerReferences).
  BOOST_TEST(eventually([&] {
               return get(res::jobs, "mysqlbackup-run1").is_null() && get(res::jobs, "mysqlbackup-rm-run1").is_null() &&
                      job_pods("mysqlbackup-run1").empty() && job_pods("mysqlbackup-rm-run1").empty();
             }, 60s),
             describe());

  // The group's PodDisruptionBudget is about MySQL pods: the Jobs' pods are not among them.
  auto pdb = get(kube::resources::pdbs, "mysql-" + group);
  BOOST_TEST_REQUIRE(pdb.is_object());
  BOOST_TEST_REQUIRE(!job_pods("mysqlbackup-run2").empty());
  BOOST_TEST(!br::test::kubelet::selector_matches(pdb["spec"]["selector"]["matchLabels"],
                                                  job_pods("mysqlbackup-run2")[0]["metadata"]["labels"]),
             "the PDB selects the backup Job's pod: " << pdb["spec"]["selector"].dump());

  // -- (5) S3: the same through the real S3 server ---------------------------------------------
  auto t6 = std::chrono::steady_clock::now();
  s3 = std::make_unique<br::test::s3_server>(s3_instance, 60s, "10.244.0.1");
  s3->create_bucket("kb-backups");
  const auto creds_dir = (dir.path / "s3-creds").string();
  s3->write_credentials(creds_dir);
  BOOST_TEST_REQUIRE(cluster.create(kube::resources::secrets, ns,
                                    {{"apiVersion", "v1"},
                                     {"kind", "Secret"},
                                     {"metadata", {{"name", "kb-s3"}, {"namespace", ns}}},
                                     {"data", {{"AWS_ACCESS_KEY_ID", br::base64_encode(s3->access_key())},
                                               {"AWS_SECRET_ACCESS_KEY", br::base64_encode(s3->secret_key())}}}})
                         .empty());
  auto bucket = br::storage::make_store(s3->config("kb-backups", "backups", creds_dir));
  BOOST_TEST_REQUIRE(bucket != nullptr);
  auto objects = [&](const std::string& name) {
    std::set<std::string> keys;
    auto l = bucket->list(name + "/");
    if (l)
      for (const auto& o : l.value()) keys.insert(o.key);
    return keys;
  };
  trigger("s3run1", "s3");
  BOOST_TEST_REQUIRE(eventually([&] { return phase_of("s3run1") == "Succeeded" || phase_of("s3run1") == "Failed"; }, 300s),
                     describe());
  BOOST_TEST_REQUIRE(phase_of("s3run1") == "Succeeded", describe());
  phase("S3: trigger-backup to Succeeded (server start included)", t6);
  BOOST_TEST_MESSAGE("s3run1 status: " << backup_status("s3run1").dump() << "\nobjects: " << objects("s3run1").size());
  BOOST_TEST(backup_status("s3run1").value("location", "").starts_with("s3://kb-backups/backups/s3run1"));
  BOOST_TEST(objects("s3run1").size() >= 2u);  // the dump and backup.json
  auto t7 = std::chrono::steady_clock::now();
  trigger("s3run2", "s3");
  BOOST_TEST_REQUIRE(eventually([&] { return phase_of("s3run2") == "Succeeded"; }, 300s), describe());
  BOOST_TEST_REQUIRE(eventually([&] { return get(res::mysqlbackups, "s3run1").is_null(); }, 300s), describe());
  phase("S3: second backup and retention of the first", t7);
  BOOST_TEST(objects("s3run1").empty());
  BOOST_TEST(objects("s3run2").size() >= 2u);
  BOOST_TEST(get(res::mysqlbackups, "run2").is_object());  // the other profile's retention is its own

  // -- (6) restore: spec.initFromBackup on the kubelet ------------------------------------------
  auto restore_source = [&](const std::string& dir) {
    return json{{"source", {{"pvc", {{"claimName", backups_claim}, {"subPath", group + "/" + dir}}}}}};
  };
  // A directory without a backup: the restore Job fails, status.restore says so, the Job stays.
  auto t8 = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(cluster.create(kube::resources::mysqlfailovergroups, ns,
                                    group_object("kf", {"a", "b"}, restore_source("nope")))
                         .empty());
  BOOST_TEST_REQUIRE(eventually([&] { return restore_phase("kf") == "Failed"; }, 300s),
                     "kf: " << group_status("kf").dump() << "\n" << describe());
  phase("restore from a directory without a backup to Failed", t8);
  BOOST_TEST_MESSAGE("kf status.restore: " << group_status("kf")["restore"].dump());
  BOOST_TEST(get(res::jobs, "mysqlrestore-kf").is_object());  // kept for a person to read
  BOOST_TEST(group_status("kf").value("activeSite", "") == "");  // the bootstrap stays held
  BOOST_TEST_REQUIRE(c->remove(kube::resources::mysqlfailovergroups, ns, "kf").ok());
  // run2's directory: restored into the seed, then the group bootstraps from it.
  auto t9 = std::chrono::steady_clock::now();
  BOOST_TEST_REQUIRE(cluster.create(kube::resources::mysqlfailovergroups, ns,
                                    group_object("kr", {"a", "b"}, restore_source("run2")))
                         .empty());
  BOOST_TEST_REQUIRE(eventually([&] { return restore_phase("kr") == "Succeeded" || restore_phase("kr") == "Failed"; }, 420s),
                     "kr: " << group_status("kr").dump() << "\n" << describe());
  BOOST_TEST_REQUIRE(restore_phase("kr") == "Succeeded", "kr: " << group_status("kr").dump() << "\n" << describe());
  phase("restore: apply to status.restore Succeeded", t9);
  BOOST_TEST_MESSAGE("kr status.restore: " << group_status("kr")["restore"].dump());
  BOOST_TEST(eventually([&] { return get(res::jobs, "mysqlrestore-kr").is_null(); }, 60s));  // deleted
  BOOST_TEST_REQUIRE(eventually([&] {
                       return group_status("kr").value("bootstrap", json::object()).value("phase", "") == "Done";
                     }, 300s),
                     "kr: " << group_status("kr").dump());
  phase("restore: apply to bootstrap Done", t9);
  for (const auto& site : {"a", "b"})
    BOOST_TEST(eventually([&] { return root_query("kr", "mysql-kr-" + std::string{site}, "SELECT COUNT(*) FROM app.t") == "50"; },
                          120s),
               "kr site " << site);
  BOOST_TEST_REQUIRE(c->remove(kube::resources::mysqlfailovergroups, ns, "kr").ok());

  // -- (7) backups disabled: the CronJob goes ----------------------------------------------------
  auto g = get(kube::resources::mysqlfailovergroups, group);
  g["spec"].erase("backup");
  BOOST_TEST_REQUIRE(c->update(kube::resources::mysqlfailovergroups, g).ok());
  BOOST_TEST(eventually([&] { return get(res::cronjobs, cj).is_null(); }, 60s), describe());
  BOOST_TEST(get(res::mysqlbackups, "run2").is_object());  // backups outlive their schedule
}

BOOST_AUTO_TEST_SUITE_END()
