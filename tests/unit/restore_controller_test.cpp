// The restore controller's pure decisions and its Job (issue 21, spec.initFromBackup): where the
// backup is, whether the target is ready, the phase machine (one row per transition: Pending ->
// Running -> Succeeded | Failed, the Job created / deleted on success / kept on failure, Events,
// a group with a primary never restored into, one-shot), and the rendered Job's command line;
// spec.restoreInPlace's preflight (armed by a newer token, the active site, the source) and its
// `--replace` Job.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/restore/restore_decide.hpp"
#include "actors/operator/kube/restore/restore_in_place.hpp"
#include "actors/operator/kube/restore/restore_in_place_pass.hpp"
#include "actors/operator/kube/restore/restore_render.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br;
using namespace br::restore_ctl;
using json = nlohmann::json;

namespace {

/// Group "orders" (sites iad, pdx, sea; seed iad), spec.backup with an S3 profile and PITR on
/// PVC, initFromBackup naming MysqlBackup nightly-1.
config::failover_group group(json init = {}, json in_place = {}) {
  config::field_errors errs;
  auto j = config::yaml_to_json(config_spec_test::kube_base_yaml, errs);
  j["spec"].erase("secretName");
  j["spec"]["credentials"] = {{"operatorSecret", "orders-operator"}};
  j["spec"]["backup"] = {
      {"profiles",
       json::array({{{"name", "s3"},
                     {"storage",
                      {{"type", "S3"},
                       {"s3", {{"bucket", "bk"}, {"prefix", "prod"}, {"credentialsSecret", "aws"}}}}}},
                    {{"name", "arch"},
                     {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "binlogs"}}}}}}})},
      {"pitr", {{"enabled", true}, {"profileName", "arch"}}}};
  j["spec"]["initFromBackup"] =
      init.is_null() ? json{{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}}} : init;
  if (!in_place.is_null()) j["spec"]["restoreInPlace"] = in_place;
  auto res = config::parse_group(j);
  BOOST_TEST_REQUIRE(res.errors.empty(), config::to_string(res.errors));
  return res.group;
}

json mysql_backup(const std::string& phase, const std::string& group = "orders") {
  return {{"metadata", {{"name", "nightly-1"}, {"namespace", "db"}}},
          {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", "s3"}}},
          {"status",
           {{"phase", phase}, {"startTime", "2026-11-26T03:00:00Z"}, {"sizeBytes", 4096}, {"message", "boom"}}}};
}

json ready_deployment() {
  return {{"metadata", {{"name", "mysql-orders-iad"}, {"generation", 1}}},
          {"status", {{"readyReplicas", 1}}}};
}

json rendered(const config::failover_group&, const restore_source& s, const std::string& target) {
  return {{"source", s.backup_name}, {"target", target}, {"store", std::string{to_string(s.storage.type)}}};
}

std::string kinds(const std::vector<action>& acts) {
  std::string out;
  for (const auto& a : acts) {
    std::string k;
    switch (a.kind) {
      case action_kind::status: k = "status:" + a.body.value("phase", ""); break;
      case action_kind::create_job: k = "create"; break;
      case action_kind::delete_job: k = "delete:" + a.name; break;
      case action_kind::event: k = a.reason; break;
    }
    out += (out.empty() ? "" : ",") + k;
  }
  return out;
}

const action* find(const std::vector<action>& acts, action_kind k) {
  for (const auto& a : acts)
    if (a.kind == k) return &a;
  return nullptr;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(restore_controller)

BOOST_AUTO_TEST_CASE(job_name) {
  BOOST_TEST(restore_job_name("orders") == "mysqlrestore-orders");
  auto long_name = restore_job_name(std::string(50, 'a') + "-" + std::string(12, 'b'));
  BOOST_TEST(long_name.size() <= 63u);
  BOOST_TEST(long_name.back() != '-');
}

BOOST_AUTO_TEST_CASE(resolve_source_rows) {
  struct row {
    const char* name;
    json init;    // null: mysqlBackupRef nightly-1
    json backup;  // the MysqlBackup (null: not found)
    std::string failed, wait;  // fragments ("" = none)
    std::string backup_name, describe;
  };
  const json pit = {{"stopDatetime", "2026-11-26T02:59:59Z"}};
  std::vector<row> rows = {
      {"a Succeeded MysqlBackup of this group: its profile's store", {}, mysql_backup("Succeeded"),
       "", "", "nightly-1", "MysqlBackup nightly-1"},
      {"not found: wait", {}, json(), "", "spec.initFromBackup.source.mysqlBackupRef.name: MysqlBackup \"nightly-1\" not found", "", ""},
      {"still running: wait", {}, mysql_backup("Running"), "", "is Running: waiting", "", ""},
      {"failed: the restore fails", {}, mysql_backup("Failed"), "failed (boom)", "", "", ""},
      {"another group's backup", {}, mysql_backup("Succeeded", "billing"),
       "belongs to group \"billing\", not \"orders\"", "", "", ""},
      {"a stop before the backup was taken (acceptance 4)",
       {{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}}, {"pointInTime", pit}},
       mysql_backup("Succeeded"), "spec.initFromBackup.pointInTime.stopDatetime: 2026-11-26T02:59:59Z is before", "", "", ""},
      {"an S3 prefix: store prefix and name",
       {{"source", {{"s3", {{"bucket", "other"}, {"prefix", "team/x/nightly-9"}, {"credentialsSecret", "aws"}}}}}},
       json(), "", "", "nightly-9", "s3://other/team/x/nightly-9"},
      {"a claim's subPath", {{"source", {{"pvc", {{"claimName", "bk"}, {"subPath", "nightly-3"}}}}}},
       json(), "", "", "nightly-3", "claim bk, nightly-3"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto s = resolve_source(group(r.init), r.backup);
      BOOST_TEST((r.failed.empty() ? s.failed.empty() : s.failed.find(r.failed) != std::string::npos), s.failed);
      BOOST_TEST((r.wait.empty() ? s.wait.empty() : s.wait.find(r.wait) != std::string::npos), s.wait);
      if (!r.backup_name.empty()) {
        BOOST_TEST(s.backup_name == r.backup_name);
        BOOST_TEST(s.describe == r.describe);
      }
    }
  }
  // The MysqlBackup's store: its profile's S3 block; an S3 source keeps the parent as prefix.
  auto s = resolve_source(group(), mysql_backup("Succeeded"));
  BOOST_TEST(s.storage.s3->prefix == "prod");
  BOOST_TEST(s.size_bytes.value_or(0) == 4096);
  auto s3 = resolve_source(
      group({{"source", {{"s3", {{"bucket", "o"}, {"prefix", "team/x/n"}, {"credentialsSecret", "aws"}}}}}}), json());
  BOOST_TEST(s3.storage.s3->prefix == "team/x");
  auto pvc = resolve_source(group({{"source", {{"pvc", {{"claimName", "bk"}, {"subPath", "a/b/n"}}}}}}), json());
  BOOST_TEST(pvc.storage.pvc->sub_path == "a/b");
  BOOST_TEST(pvc.storage.pvc->claim_name == "bk");
}

BOOST_AUTO_TEST_CASE(target_ready_rows) {
  std::string why;
  BOOST_TEST(!target_ready(nullptr, why));
  BOOST_TEST(why.find("does not exist") != std::string::npos);
  json d = ready_deployment();
  BOOST_TEST(target_ready(&d, why));
  d["status"]["readyReplicas"] = 0;
  BOOST_TEST(!target_ready(&d, why));
  json rolling = {{"metadata", {{"generation", 3}}},
                  {"status", {{"readyReplicas", 1}, {"observedGeneration", 2}, {"updatedReplicas", 1}}}};
  BOOST_TEST(!target_ready(&rolling, why));
  BOOST_TEST(why.find("rolling out") != std::string::npos);
  rolling["status"]["observedGeneration"] = 3;
  BOOST_TEST(target_ready(&rolling, why));
}

// One row per transition of status.restore (reference §3.14).
BOOST_AUTO_TEST_CASE(phase_machine_rows) {
  const std::string ok_result =
      R"({"name":"nightly-1","gtidExecuted":"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-9","sourceSizeBytes":4096,"completionTime":"2026-11-26T10:02:00Z"})";
  const std::string bad_result =
      R"j({"name":"nightly-1","message":"the target 10.0.0.1:3306 is not empty (it holds tables: app.t)"})j";
  const json running = {{"restore", {{"phase", "Running"}, {"targetSite", "iad"}, {"startTime", "2026-11-26T10:00:00Z"}}}};
  auto job = [](bool exists, bool ok, bool failed, std::string result) {
    job_view j;
    j.exists = exists;
    j.succeeded = ok;
    j.failed = failed;
    j.result = std::move(result);
    return j;
  };
  struct row {
    const char* name;
    json status;
    json backup;
    job_view job;
    json deployment;
    std::string want;  // kinds()
    std::string message;  // fragment of the status message ("" = not checked)
  };
  std::vector<row> rows = {
      {"new: target ready -> Job created, Running, RestoreStarted", json::object(),
       mysql_backup("Succeeded"), job(false, false, false, ""), ready_deployment(),
       "status:Running,create,RestoreStarted", "restoring MysqlBackup nightly-1 into site iad"},
      {"new: target not ready -> Pending + RestoreTargetUnavailable", json::object(),
       mysql_backup("Succeeded"), job(false, false, false, ""), json(),
       "status:Pending,RestoreTargetUnavailable", "site iad (the bootstrap's seed), is not ready"},
      {"Pending with the same message: nothing written again",
       {{"restore", {{"phase", "Pending"}, {"targetSite", "iad"},
                     {"message", "the restore target, site iad (the bootstrap's seed), is not ready: its Deployment does not exist yet"}}}},
       mysql_backup("Succeeded"), job(false, false, false, ""), json(), "", ""},
      {"backup still running -> Pending, no Job", json::object(), mysql_backup("Running"),
       job(false, false, false, ""), ready_deployment(), "status:Pending", "waiting for it to succeed"},
      {"backup failed -> Failed + RestoreFailed, no Job", json::object(), mysql_backup("Failed"),
       job(false, false, false, ""), ready_deployment(), "status:Failed,RestoreFailed", "only a Succeeded backup"},
      {"the group has a primary -> Failed, never restored into", {{"activeSite", "pdx"}, {"epoch", 4}},
       mysql_backup("Succeeded"), job(false, false, false, ""), ready_deployment(),
       "status:Failed,RestoreFailed", "never overwrites one that holds data"},
      {"Running, Job still running: nothing", running, json(), job(true, false, false, ""), json(), "", ""},
      {"Running, Job succeeded -> Succeeded, Event, Job deleted", running, json(),
       job(true, true, false, ok_result), json(),
       "status:Succeeded,RestoreSucceeded,delete:mysqlrestore-orders", "the bootstrap seeds the group from it"},
      {"Running, Job failed -> Failed, Warning, Job kept", running, json(),
       job(true, false, true, bad_result), json(), "status:Failed,RestoreFailed", "is not empty"},
      {"Running, Job succeeded without a result -> Failed", running, json(),
       job(true, true, false, "garbage"), json(), "status:Failed,RestoreFailed", "no readable result"},
      {"Running, Job gone -> Failed", running, json(), job(false, false, false, ""), json(),
       "status:Failed,RestoreFailed", "disappeared"},
      {"Pending but the Job exists (status write lost) -> Running", json::object(), json(),
       job(true, false, false, ""), json(), "status:Running", ""},
      {"Succeeded: one-shot, nothing", {{"restore", {{"phase", "Succeeded"}}}}, mysql_backup("Succeeded"),
       job(false, false, false, ""), ready_deployment(), "", ""},
      {"Succeeded, a Job left over: deleted", {{"restore", {{"phase", "Succeeded"}}}}, json(),
       job(true, true, false, ok_result), json(), "delete:mysqlrestore-orders", ""},
      {"Failed: terminal, the Job kept, no retry", {{"restore", {{"phase", "Failed"}}}},
       mysql_backup("Succeeded"), job(true, false, true, bad_result), ready_deployment(), "", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      restore_input in;
      in.group = group();
      in.status = r.status;
      in.backup = r.backup;
      in.job = r.job;
      in.deployment = r.deployment;
      in.now = "2026-11-26T10:05:00Z";
      auto acts = decide_restore(in, rendered);
      BOOST_TEST(kinds(acts) == r.want);
      if (!r.message.empty()) {
        const auto* st = find(acts, action_kind::status);
        BOOST_TEST_REQUIRE(st != nullptr);
        BOOST_TEST(st->body.value("message", "").find(r.message) != std::string::npos,
                   st->body.value("message", ""));
      }
      if (const auto* c = find(acts, action_kind::create_job)) {
        BOOST_TEST(c->body["source"] == "nightly-1");
        BOOST_TEST(c->body["target"] == "iad");
        const auto* st = find(acts, action_kind::status);
        BOOST_TEST(st->body["jobName"] == "mysqlrestore-orders");
        BOOST_TEST(st->body["startTime"] == in.now);
      }
    }
  }
  // initFromBackup removed: a Running restore is seen to its end; nothing new is started.
  {
    restore_input in;
    in.group = group();
    in.group.spec.init_from_backup.reset();
    in.now = "2026-11-26T10:05:00Z";
    in.status = running;
    in.job = job(true, true, false, ok_result);
    BOOST_TEST(kinds(decide_restore(in, rendered)) ==
               "status:Succeeded,RestoreSucceeded,delete:mysqlrestore-orders");
    in.status = json::object();
    in.job = job(false, false, false, "");
    in.deployment = ready_deployment();
    BOOST_TEST(kinds(decide_restore(in, rendered)) == "");
  }
  // Success carries the metrics' values: duration from startTime to the result's completion.
  restore_input in;
  in.group = group();
  in.status = running;
  in.job = job(true, true, false, ok_result);
  in.now = "2026-11-26T10:05:00Z";
  auto acts = decide_restore(in, rendered);
  const auto* st = find(acts, action_kind::status);
  BOOST_TEST_REQUIRE(st != nullptr);
  BOOST_TEST(st->duration_seconds == 120.0);
  BOOST_TEST(st->source_size_bytes.value_or(0) == 4096);
  BOOST_TEST(st->body["completionTime"] == "2026-11-26T10:02:00Z");
  BOOST_TEST(st->body["targetSite"] == "iad");
}

BOOST_AUTO_TEST_CASE(the_restore_job) {
  backup_ctl::render_settings rs;
  rs.image = "bloodraven:test";
  // MysqlBackup source, to a point in time: the backup's S3 store and the PITR archive (PVC).
  auto g = group({{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
                  {"pointInTime", {{"stopDatetime", "2026-11-26 14:03:00"}}}});
  auto src = resolve_source(g, mysql_backup("Succeeded"));
  auto job = render_restore_job(g, src, "iad", rs);
  BOOST_TEST(job["metadata"]["name"] == "mysqlrestore-orders");
  BOOST_TEST(job["metadata"]["labels"]["shipstream.io/restore"] == "orders");
  BOOST_TEST(job["metadata"]["labels"]["app.kubernetes.io/component"] == "restore");
  BOOST_TEST(job["metadata"]["ownerReferences"][0]["kind"] == "MysqlFailoverGroup");
  BOOST_TEST(job["spec"]["backoffLimit"] == 0);
  BOOST_TEST(job["spec"]["activeDeadlineSeconds"] == 7200);
  const auto& pod = job["spec"]["template"]["spec"];
  BOOST_TEST(pod["automountServiceAccountToken"] == false);
  const auto& c = pod["containers"][0];
  BOOST_TEST(c["image"] == "bloodraven:test");
  BOOST_TEST(c["command"] == json::array({"bloodraven"}));
  BOOST_TEST(c["args"] ==
             json::array({"restore", "--name", "nightly-1", "--target",
                          "mysql-orders-iad.db.svc.cluster.local:3306", "--creds-dir",
                          "/run/bloodraven/mysql-creds", "--user", "root", "--result-file",
                          "/dev/termination-log", "--stop-datetime", "2026-11-26 14:03:00"}));
  std::map<std::string, std::string> env;
  for (const auto& e : c["env"]) env[e["name"]] = e.value("value", "");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_STORAGE_TYPE"] == "S3");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_BUCKET"] == "bk");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_PREFIX"] == "prod");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR"] == "/run/bloodraven/aws-creds");
  BOOST_TEST(env["BLOODRAVEN_PITR_STORAGE_TYPE"] == "PVC");
  BOOST_TEST(env["BLOODRAVEN_PITR_PVC_MOUNT_PATH"] == "/pitr-archive");
  std::map<std::string, json> volumes, mounts;
  for (const auto& v : pod["volumes"]) volumes[v["name"]] = v;
  for (const auto& m : c["volumeMounts"]) mounts[m["name"]] = m;
  BOOST_TEST(volumes["backup-storage"]["secret"]["secretName"] == "aws");
  BOOST_TEST(mounts["backup-storage"]["mountPath"] == "/run/bloodraven/aws-creds");
  BOOST_TEST(volumes["pitr-archive"]["persistentVolumeClaim"]["claimName"] == "binlogs");
  BOOST_TEST(mounts["pitr-archive"]["mountPath"] == "/pitr-archive");
  // Root: the group's credentials Secret's MYSQL_ROOT_PASSWORD as the password file.
  BOOST_TEST(volumes["mysql-creds"]["secret"]["secretName"] == "orders-operator");
  BOOST_TEST(volumes["mysql-creds"]["secret"]["items"] ==
             json::array({{{"key", "MYSQL_ROOT_PASSWORD"}, {"path", "password"}}}));
  BOOST_TEST(mounts["mysql-creds"]["mountPath"] == "/run/bloodraven/mysql-creds");

  // A claim source without a point in time: no archive, the claim at /backups with the parent.
  auto g2 = group({{"source", {{"pvc", {{"claimName", "bk"}, {"subPath", "team/nightly-3"}}}}}});
  auto job2 = render_restore_job(g2, resolve_source(g2, json()), "iad", rs);
  const auto& c2 = job2["spec"]["template"]["spec"]["containers"][0];
  BOOST_TEST(c2["args"].size() == 11u);
  BOOST_TEST(c2["args"][2] == "nightly-3");
  bool pitr = false;
  for (const auto& e : c2["env"]) pitr = pitr || e["name"].get<std::string>().starts_with("BLOODRAVEN_PITR");
  BOOST_TEST(!pitr);
  for (const auto& m : c2["volumeMounts"])
    if (m["name"] == "backup-storage") {
      BOOST_TEST(m["mountPath"] == "/backups");
      BOOST_TEST(m["subPath"] == "team");
    }
  // A GTID bound.
  auto g3 = group({{"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
                   {"pointInTime", {{"stopGtid", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-50"}}}});
  auto job3 = render_restore_job(g3, resolve_source(g3, mysql_backup("Succeeded")), "iad", rs);
  const auto& a3 = job3["spec"]["template"]["spec"]["containers"][0]["args"];
  BOOST_TEST(a3[a3.size() - 2] == "--stop-gtid");
}

BOOST_AUTO_TEST_CASE(restore_in_place_preflight_rows) {
  const json rip = {{"confirm", "2026-11-26T15:00:00Z"},
                    {"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
                    {"pointInTime", {{"stopDatetime", "2026-11-26T14:03:00Z"}}}};
  auto with_token = [&](const char* t) {
    json r = rip;
    r["confirm"] = t;
    return r;
  };
  struct row {
    const char* name;
    json in_place;
    json status;
    json backup;
    bool armed;
    std::string failed, wait;  ///< pieces ("" = none)
  };
  const json active = {{"activeSite", "pdx"}};
  auto used = [&](const char* token, const char* phase) {
    json s = active;
    s["restoreInPlace"] = {{"confirmTokenUsed", token}, {"phase", phase}};
    return s;
  };
  const std::vector<row> rows = {
      {"first token, a Succeeded backup of this group", rip, active, mysql_backup("Succeeded"), true, "", ""},
      {"the token already used: Succeeded stays", rip, used("2026-11-26T15:00:00Z", "Succeeded"),
       mysql_backup("Succeeded"), false, "", ""},
      {"the token already used: Failed stays", rip, used("2026-11-26T15:00:00Z", "Failed"),
       mysql_backup("Succeeded"), false, "", ""},
      {"an older token", with_token("2026-11-26T14:00:00Z"), used("2026-11-26T15:00:00Z", "Failed"),
       mysql_backup("Succeeded"), false, "", ""},
      {"a newer token after a terminal phase", with_token("2026-11-26T16:00:00Z"),
       used("2026-11-26T15:00:00Z", "Failed"), mysql_backup("Succeeded"), true, "", ""},
      {"a newer token while one runs: waits", with_token("2026-11-26T16:00:00Z"),
       used("2026-11-26T15:00:00Z", "Restoring"), mysql_backup("Succeeded"), true, "", "is Restoring"},
      {"no active primary", rip, json::object(), mysql_backup("Succeeded"), true, "status.activeSite", ""},
      {"the backup still running", rip, active, mysql_backup("Running"), true, "", "waiting for it to succeed"},
      {"the backup of another group", rip, active, mysql_backup("Succeeded", "billing"), true,
       "spec.restoreInPlace.source.mysqlBackupRef.name: MysqlBackup \"nightly-1\" belongs to group", ""},
      {"a stop time before the backup", [&] {
         json r = rip;
         r["pointInTime"]["stopDatetime"] = "2026-11-26T02:00:00Z";
         return r;
       }(),
       active, mysql_backup("Succeeded"), true, "spec.restoreInPlace.pointInTime.stopDatetime", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      auto p = preflight_in_place(group({}, r.in_place), r.status, r.backup);
      BOOST_TEST(p.armed == r.armed);
      if (!r.armed) continue;
      BOOST_TEST(p.token == r.in_place["confirm"].get<std::string>());
      if (r.failed.empty()) BOOST_TEST(p.failed == "");
      else BOOST_TEST(p.failed.find(r.failed) != std::string::npos, p.failed);
      if (r.wait.empty()) BOOST_TEST(p.wait == "");
      else BOOST_TEST(p.wait.find(r.wait) != std::string::npos, p.wait);
      if (p.failed.empty() && p.wait.empty()) {
        BOOST_TEST(p.target == "pdx");
        BOOST_TEST(p.source.backup_name == "nightly-1");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(the_replace_job) {
  backup_ctl::render_settings rs;
  rs.image = "bloodraven:test";
  auto g = group({}, {{"confirm", "2026-11-26T15:00:00Z"},
                      {"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}},
                      {"pointInTime", {{"stopDatetime", "2026-11-26T14:03:00Z"}}}});
  auto p = preflight_in_place(g, {{"activeSite", "pdx"}}, mysql_backup("Succeeded"));
  BOOST_TEST_REQUIRE(p.failed.empty());
  auto job = render_replace_job(g, p.source, p.target, rs);
  BOOST_TEST(job["metadata"]["name"] == replace_job_name("orders", "2026-11-26T15:00:00Z"));
  BOOST_TEST(job["metadata"]["labels"]["app.kubernetes.io/component"] == "restore-in-place");
  BOOST_TEST(job["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] == "restore-in-place");
  BOOST_TEST(job["spec"]["backoffLimit"] == 0);  // never retried: the destructive step runs once
  const auto& c = job["spec"]["template"]["spec"]["containers"][0];
  BOOST_TEST(c["args"] ==
             json::array({"restore", "--name", "nightly-1", "--target",
                          "mysql-orders-pdx.db.svc.cluster.local:3306", "--creds-dir",
                          "/run/bloodraven/mysql-creds", "--user", "root", "--result-file",
                          "/dev/termination-log", "--replace", "--stop-datetime", "2026-11-26T14:03:00Z"}));
  BOOST_TEST(replace_job_name(std::string(60, 'a'), "2026-11-26T15:00:00Z").size() <= 63u);
  // One Job per confirm token (M8: a Failed restore's Job is kept while a newer one runs).
  BOOST_TEST(replace_job_name("orders", "2026-11-26T15:00:00Z") != replace_job_name("orders", "2026-11-26T16:00:00Z"));
  BOOST_TEST(replace_job_name("orders", "2026-11-26T15:00:00Z").rfind("mysqlrestore-inplace-orders-", 0) == 0u);
}

// spec.restoreInPlace's phase machine: one row per transition (Preflight -> Fencing -> Restoring
// -> Resuming -> Succeeded | Failed), as the kinds of the actions in order.
BOOST_AUTO_TEST_CASE(restore_in_place_phase_rows) {
  const std::string T1 = "2026-11-26T15:00:00Z", T2 = "2026-11-26T16:00:00Z";
  const json rip = {{"confirm", T1}, {"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}}};
  auto spec_with = [&](const std::string& t) {
    json r = rip;
    r["confirm"] = t;
    return r;
  };
  auto in_phase = [&](const char* phase) {
    return json{{"activeSite", "pdx"},
                {"restoreInPlace", {{"phase", phase}, {"confirmTokenUsed", T1}, {"targetSite", "pdx"}, {"scope", "full"}}}};
  };
  const std::string J1 = replace_job_name("orders", T1);
  const restore_freeze_record frozen{T1, true, "pdx", {}, {}}, lifted{T1, false, "pdx", {}, {"iad", "sea"}};
  const restore_freeze_record elsewhere{T1, true, "iad", {}, {}};  // H2: frozen for another site
  auto pending_shown = [&](std::vector<std::string> sites) {
    json st = in_phase("Succeeded");
    st["restoreInPlace"]["pendingSites"] = sites;
    return st;
  };
  auto fencing_since = [&](const char* t) {
    json st = in_phase("Fencing");
    st["restoreInPlace"]["fencingStartTime"] = t;
    return st;
  };
  auto job = [](bool exists, bool succeeded, bool failed, std::string result = "") {
    job_view j;
    j.exists = exists;
    j.succeeded = succeeded;
    j.failed = failed;
    j.message = "BackoffLimitExceeded";
    j.result = std::move(result);
    return j;
  };
  const std::string ok_result = R"({"name":"nightly-1","gtidExecuted":"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"})";
  const std::string bad_result = R"({"name":"nightly-1","message":"the target is writable"})";
  struct row {
    const char* name;
    json in_place;  // null: spec.restoreInPlace removed
    json status;
    json backup;
    job_view job;
    restore_freeze_record freeze;
    std::string refused;
    bool fenced;
    std::string expect;
  };
  const json active = {{"activeSite", "pdx"}};
  const auto ok = mysql_backup("Succeeded");
  const std::vector<row> rows = {
      {"a new confirm: Preflight stored, then the freeze of the target asked", rip, active, ok, {}, {}, "", false,
       "status:Preflight,freeze:" + T1 + ":pdx"},
      {"the backup still running: Preflight waits, no freeze", rip, active, mysql_backup("Running"), {}, {}, "", false,
       "status:Preflight"},
      {"no active site: Failed, nothing touched", rip, json::object(), ok, {}, {}, "", false,
       "status:Failed,RestoreInPlaceFailed"},
      {"Preflight, the coordinator refused: Failed", rip, in_phase("Preflight"), ok, {}, {}, "a plan is running", false,
       "status:Failed,RestoreInPlaceFailed"},
      {"Preflight, not frozen yet: asked again", rip, in_phase("Preflight"), ok, {}, {}, "", false,
       "freeze:" + T1 + ":pdx"},
      {"Preflight, frozen by this token: Fencing (the router drops the label)", rip, in_phase("Preflight"), ok, {},
       frozen, "", false, "status:Fencing"},
      {"Preflight, frozen for another site (H2): Failed, the freeze cancelled", rip, in_phase("Preflight"), ok, {},
       elsewhere, "", false, "status:Failed,RestoreInPlaceFailed,cancel:" + T1},
      {"Fencing, not confirmed yet: the freeze asked again (fence, STOP REPLICA again)", rip,
       fencing_since("2026-11-26T15:00:30Z"), ok, {}, frozen, "", false, "freeze:" + T1 + ":pdx"},
      {"Fencing, not confirmed within 5 minutes (H3): Failed, the freeze cancelled", rip,
       fencing_since("2026-11-26T14:55:59Z"), ok, {}, frozen, "", false, "status:Failed,RestoreInPlaceFailed,cancel:" + T1},
      {"Fencing, confirmed at the deadline: the Job", rip, fencing_since("2026-11-26T14:55:59Z"), ok, {}, frozen, "",
       true, "create_job:" + J1 + ",status:Restoring,RestoreInPlaceStarted"},
      {"Fencing, frozen for another site (H2): Failed, cancelled, no Job", rip, in_phase("Fencing"), ok, {}, elsewhere,
       "", true, "status:Failed,RestoreInPlaceFailed,cancel:" + T1},
      {"Fencing, fenced: the Job created before Restoring is stored (H4)", rip, in_phase("Fencing"), ok, {}, frozen, "",
       true, "create_job:" + J1 + ",status:Restoring,RestoreInPlaceStarted"},
      {"Fencing, the Job already there (the pass ended before storing Restoring, H4): Restoring", rip,
       in_phase("Fencing"), ok, job(true, false, false), frozen, "", false, "status:Restoring,RestoreInPlaceStarted"},
      {"Fencing, the freeze gone: Failed, no Job", rip, in_phase("Fencing"), ok, {}, lifted, "", true,
       "status:Failed,RestoreInPlaceFailed"},
      {"Fencing, the spec removed: Failed, the freeze cancelled (nothing loaded)", nullptr, in_phase("Fencing"), ok, {},
       frozen, "", true, "status:Failed,RestoreInPlaceFailed,cancel:" + T1},
      {"Restoring, the Job runs", rip, in_phase("Restoring"), ok, job(true, false, false), frozen, "", true, ""},
      {"Restoring, the Job failed: Failed, frozen, Job kept", rip, in_phase("Restoring"), ok,
       job(true, false, true, bad_result), frozen, "", true, "status:Failed,RestoreInPlaceFailed"},
      {"Restoring, the Job gone: Failed", rip, in_phase("Restoring"), ok, job(false, false, false), frozen, "", true,
       "status:Failed,RestoreInPlaceFailed"},
      {"Restoring, the Job succeeded: Resuming, lift, Job deleted", rip, in_phase("Restoring"), ok,
       job(true, true, false, ok_result), frozen, "", true,
       "status:Resuming,lift:" + T1 + ",delete_job:" + J1},
      {"the spec removed while Restoring: seen to its end", nullptr, in_phase("Restoring"), ok,
       job(true, true, false, ok_result), frozen, "", true,
       "status:Resuming,lift:" + T1 + ",delete_job:" + J1},
      {"Resuming, still frozen: lift asked again", rip, in_phase("Resuming"), ok, {}, frozen, "", true, "lift:" + T1},
      {"Resuming, lifted: Succeeded, the pending sites recloned", rip, in_phase("Resuming"), ok, {}, lifted, "", false,
       "status:Succeeded,RestoreInPlaceSucceeded,reclone:iad=iad:restore=" + T1 + ",reclone:sea=sea:restore=" + T1},
      {"Succeeded, pending not shown yet: shown, both asked", rip, in_phase("Succeeded"), ok, {}, lifted, "", false,
       "status:Succeeded,reclone:iad=iad:restore=" + T1 + ",reclone:sea=sea:restore=" + T1},
      {"Succeeded, iad's reclone running: sea asked", rip, pending_shown({"iad", "sea"}), ok, {},
       restore_freeze_record{T1, false, "pdx", {"iad"}, {"iad", "sea"}}, "", false, "reclone:sea=sea:restore=" + T1},
      {"Succeeded, iad's reclone failed (off `recloned`, M7): asked again", rip, pending_shown({"iad"}), ok, {},
       restore_freeze_record{T1, false, "pdx", {"sea"}, {"iad"}}, "", false, "reclone:iad=iad:restore=" + T1},
      {"Succeeded, iad released by its reclone: shown", rip, pending_shown({"iad", "sea"}), ok, {},
       restore_freeze_record{T1, false, "pdx", {"iad", "sea"}, {"sea"}}, "", false, "status:Succeeded"},
      {"Succeeded, every site released: nothing", rip, pending_shown({}), ok, {},
       restore_freeze_record{T1, false, "pdx", {"iad", "sea"}, {}}, "", false, ""},
      {"Succeeded, the spec removed: the reclones still go on", nullptr, pending_shown({"sea"}), ok, {},
       restore_freeze_record{T1, false, "pdx", {"iad"}, {"sea"}}, "", false, "reclone:sea=sea:restore=" + T1},
      {"Succeeded, the coordinator's record holds another token: nothing", rip, in_phase("Succeeded"), ok, {},
       restore_freeze_record{T2, false, "pdx", {}, {"iad"}}, "", false, ""},
      {"Failed, the same confirm: nothing (never retried)", rip, in_phase("Failed"), ok, {}, frozen, "", true, ""},
      {"Failed, a newer confirm: a new Preflight", spec_with(T2), in_phase("Failed"), ok, {}, frozen, "", true,
       "status:Preflight,freeze:" + T2 + ":pdx"},
  };
  auto kinds_of = [](const std::vector<in_place_action>& acts) {
    std::string out;
    for (const auto& a : acts) {
      std::string k;
      switch (a.kind) {
        case in_place_step::status: k = "status:" + a.body.value("phase", ""); break;
        case in_place_step::freeze: k = "freeze:" + a.arg; break;
        case in_place_step::lift: k = "lift:" + a.arg; break;
        case in_place_step::cancel: k = "cancel:" + a.arg; break;
        case in_place_step::abandon: k = "abandon:" + a.arg; break;
        case in_place_step::create_job: k = "create_job:" + a.arg; break;
        case in_place_step::delete_job: k = "delete_job:" + a.arg; break;
        case in_place_step::reclone: k = "reclone:" + a.arg + "=" + a.body.get<std::string>(); break;
        case in_place_step::event: k = a.reason; break;
      }
      out += (out.empty() ? "" : ",") + k;
    }
    return out;
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      in_place_input in;
      in.group = r.in_place.is_null() ? group() : group({}, r.in_place);
      in.status = r.status;
      in.backup = r.backup;
      in.job = r.job;
      in.freeze = r.freeze;
      in.refused = r.refused;
      in.target_fenced = r.fenced;
      in.now = "2026-11-26T15:01:00Z";
      auto acts = decide_restore_in_place(in, rendered);
      BOOST_TEST(kinds_of(acts) == r.expect);
      // The token is recorded with the first status; a failure after the freeze says so.
      for (const auto& a : acts)
        if (a.kind == in_place_step::status) {
          BOOST_TEST(a.body.value("confirmTokenUsed", "") ==
                     (r.in_place.is_object() ? r.in_place["confirm"].get<std::string>() : T1));
          BOOST_TEST(a.body.value("targetSite", "") == (r.status.contains("activeSite") ? "pdx" : ""));
        }
    }
  }
}

// Succeeded: the metric values (the restore's start to its load's completion, the backup's
// size from the Job's result); no reclone asked while a clone runs; which answers end a reclone.
BOOST_AUTO_TEST_CASE(restore_in_place_succeeded_metrics_and_reclone_answers) {
  const std::string T1 = "2026-11-26T15:00:00Z";
  in_place_input in;
  in.group = group({}, {{"confirm", T1}, {"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}}});
  in.status = {{"activeSite", "pdx"},
               {"restoreInPlace",
                {{"phase", "Restoring"}, {"confirmTokenUsed", T1}, {"targetSite", "pdx"},
                 {"startTime", "2026-11-26T15:00:10Z"}}}};
  in.backup = mysql_backup("Succeeded");
  in.freeze = {T1, true, "pdx", {}, {}};
  in.target_fenced = true;
  in.job.exists = in.job.succeeded = true;
  in.job.result = R"({"name":"nightly-1","gtidExecuted":"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5",)"
                  R"("sourceSizeBytes":2048,"completionTime":"2026-11-26T15:02:10Z"})";
  in.now = "2026-11-26T15:02:12Z";
  auto acts = decide_restore_in_place(in, rendered);
  BOOST_TEST_REQUIRE(!acts.empty());
  BOOST_TEST(acts[0].body["phase"] == "Resuming");
  BOOST_TEST(acts[0].body["restoredAt"] == "2026-11-26T15:02:10Z");
  BOOST_TEST(acts[0].body["sourceSizeBytes"] == 2048);
  in.status["restoreInPlace"] = acts[0].body;
  in.freeze.frozen = false;  // lifted: the others restore-pending
  in.freeze.pending = {"iad", "sea"};
  in.job = {};
  in.now = "2026-11-26T15:02:20Z";
  acts = decide_restore_in_place(in, rendered);
  BOOST_TEST_REQUIRE(!acts.empty());
  BOOST_TEST(acts[0].body["phase"] == "Succeeded");
  BOOST_TEST(acts[0].duration_seconds == 120.0);
  BOOST_TEST(acts[0].completed_unix == 1795705330.0);
  BOOST_TEST(acts[0].source_size_bytes.value_or(-1) == 2048);
  in.status["restoreInPlace"] = acts[0].body;
  in.plan_running = true;  // a clone or reclone under way: asked later
  BOOST_TEST(decide_restore_in_place(in, rendered).empty());
  in.plan_running = false;
  BOOST_TEST(decide_restore_in_place(in, rendered).size() == 2u);

  BOOST_TEST(reclone_answer_final("accepted: reclone of iad (restore_token)"));
  BOOST_TEST(reclone_answer_final("rejected: iad was already recloned for the in-place restore of token " + T1));
  BOOST_TEST(reclone_answer_final("already taken: accepted: reclone of iad (restore_token)"));
  BOOST_TEST(!reclone_answer_final("busy: the group's durable state is not loaded or being written; try again"));
  BOOST_TEST(!reclone_answer_final("rejected: another plan (reclone) is running; request the reclone again when it has finished"));
}

// Fencing ends when the target reports read-only, no other site replicates (from it) and none
// of its pods is labelled primary.
BOOST_AUTO_TEST_CASE(target_fenced_rows) {
  const std::string since = "2026-11-26T15:00:00Z", fresh = "2026-11-26T15:00:02Z", stale = "2026-11-26T14:59:58Z";
  auto status = [&](const char* a_state, bool b_replicating, std::string a_seen = "", std::string b_seen = "",
                    const char* b_state = "read-only") {
    return json{{"sites", {{{"name", "a"}, {"state", a_state}, {"lastSeen", a_seen.empty() ? fresh : a_seen}},
                           {{"name", "b"}, {"state", b_state}, {"replicating", b_replicating},
                            {"lastSeen", b_seen.empty() ? fresh : b_seen}}}}};
  };
  auto pod = [](const char* site, const char* role) {
    return json{{"metadata", {{"labels", {{"shipstream.io/site", site}, {"shipstream.io/role", role}}}}}};
  };
  const std::vector<json> unlabelled = {pod("a", "replica"), pod("b", "replica")};
  std::string waits;
  BOOST_TEST(target_fenced(status("read-only", false), "a", unlabelled, since, &waits));
  BOOST_TEST(waits.empty());
  BOOST_TEST(!target_fenced(status("writable", false), "a", unlabelled, since));
  BOOST_TEST(!target_fenced(status("read-only", true), "a", unlabelled, since, &waits));  // still serves b
  BOOST_TEST(waits == "b not seen stopped");
  BOOST_TEST(!target_fenced(status("read-only", false), "a", {pod("a", "primary")}, since));
  BOOST_TEST(!target_fenced(status("unreachable", false), "a", unlabelled, since));
  BOOST_TEST(!target_fenced(json::object(), "a", unlabelled, since));
  // H3: only probes after Fencing began count (the status keeps the last good probe's values).
  BOOST_TEST(!target_fenced(status("read-only", false, stale), "a", unlabelled, since, &waits));
  BOOST_TEST(waits == "a not seen read-only");
  BOOST_TEST(!target_fenced(status("read-only", false, "", stale), "a", unlabelled, since, &waits));
  BOOST_TEST(waits == "b not seen stopped");
  BOOST_TEST(!target_fenced(status("read-only", false, "", since), "a", unlabelled, since));  // the same second
  // A site down now is not waited for (restore-pending afterwards; the Job refuses a served replica).
  BOOST_TEST(target_fenced(status("read-only", true, "", stale, "unreachable"), "a", unlabelled, since));
}

// M8: a Failed restore, still frozen, lifted by `kubectl bloodraven restore lift` (the annotation
// holds the restore's token): abandon asked, the message says so; another token does nothing.
BOOST_AUTO_TEST_CASE(restore_in_place_failed_lifted_by_request) {
  const std::string T1 = "2026-11-26T15:00:00Z";
  in_place_input in;
  in.group = group({}, {{"confirm", T1}, {"source", {{"mysqlBackupRef", {{"name", "nightly-1"}}}}}});
  in.status = {{"activeSite", "pdx"},
               {"restoreInPlace",
                {{"phase", "Failed"}, {"confirmTokenUsed", T1}, {"targetSite", "pdx"}, {"message", "the Job failed"}}}};
  in.backup = mysql_backup("Succeeded");
  in.freeze = {T1, true, "pdx", {}, {}};
  in.now = "2026-11-26T15:30:00Z";
  BOOST_TEST(decide_restore_in_place(in, rendered).empty());  // no request
  in.lift_request = "2026-11-26T14:00:00Z";
  BOOST_TEST(decide_restore_in_place(in, rendered).empty());  // another token
  in.lift_request = T1;
  auto acts = decide_restore_in_place(in, rendered);
  BOOST_TEST_REQUIRE(acts.size() == 2u);
  BOOST_TEST(acts[0].body["phase"] == "Failed");
  BOOST_TEST(acts[0].body["message"].get<std::string>().find("lifted by request") != std::string::npos);
  BOOST_TEST((acts[1].kind == in_place_step::abandon));
  BOOST_TEST(acts[1].arg == T1);
  in.freeze.frozen = false;  // lifted: nothing more
  BOOST_TEST(decide_restore_in_place(in, rendered).empty());
}

BOOST_AUTO_TEST_SUITE_END()
