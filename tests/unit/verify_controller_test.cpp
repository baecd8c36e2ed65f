// The verification controller's pure decisions (actors/operator/kube/verify/verify_decide.hpp):
// which backup, the phase machine from the Job and its result, keepOnFailure, retention, the
// CronJob plan, the Job's arguments and volumes, trigger-verification's object, and the CRD
// (charts/bloodraven/crds/shipstream.io_mysqlbackupverifications.yaml) holding every status
// member and phase the controller writes. Table tests, one row per rule.
#include <boost/test/unit_test.hpp>

#include <set>

#include "actors/operator/kube/verify/trigger_verification.hpp"
#include "actors/operator/kube/verify/verify_decide.hpp"
#include "actors/operator/kube/verify/verify_render.hpp"
#include "config/failover_group.hpp"
#include "config/group_validate.hpp"
#include "config/yaml_json.hpp"
#include "tests/unit/config_spec_test_util.hpp"

using namespace br;
using namespace br::verify_ctl;
using json = nlohmann::json;

namespace {

const std::string now = "2026-11-26T12:00:00Z";

json group_doc(json verification = nullptr) {
  auto site = [](const std::string& n) {
    return json{{"name", n}, {"zone", "z"}, {"lbIP", "10.0.0.1"},
                {"taintNodeSelector", {{"shipstream.io/site.g", n}}}, {"storage", {{"size", "1Gi"}}}};
  };
  json profile = {{"name", "s3"},
                  {"storage",
                   {{"type", "S3"},
                    {"s3", {{"bucket", "bk"}, {"credentialsSecret", "aws"}, {"endpointURL", "http://s3:9000"}}}}}};
  if (!verification.is_null()) profile["verification"] = verification;
  json pitr_profile = {{"name", "arch"}, {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "archive"}}}}}};
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", "g"}, {"namespace", "db"}, {"uid", "u-g"}}},
          {"spec",
           {{"credentials", {{"operatorSecret", "g-operator"}}},
            {"dns", {{"hostname", "g.example.com"}}},
            {"sites", json::array({site("a"), site("b")})},
            {"backup",
             {{"profiles", json::array({profile, pitr_profile})},
              {"pitr", {{"enabled", true}, {"profileName", "arch"}}}}}}}};
}

group_view group(json verification = nullptr) {
  auto res = config::parse_group(group_doc(verification));
  BOOST_TEST_REQUIRE(res.errors.empty(), config::to_string(res.errors));
  auto errs = config::validate(res.group, config::run_mode::kubernetes);
  BOOST_TEST_REQUIRE(errs.empty(), config::to_string(errs));
  group_view v;
  v.found = true;
  v.valid = true;
  v.group = res.group;
  return v;
}

json verification(json spec_extra = json::object(), const std::string& phase = "", json status_extra = json::object()) {
  json spec = {{"failoverGroupRef", {{"name", "g"}}}, {"profileName", "s3"}};
  if (spec_extra.is_object()) spec.update(spec_extra);
  json v = {{"apiVersion", "shipstream.io/v1alpha1"},
            {"kind", "MysqlBackupVerification"},
            {"metadata", {{"name", "v1"}, {"namespace", "db"}, {"uid", "u-v"}}},
            {"spec", spec}};
  if (!phase.empty()) {
    v["status"] = {{"phase", phase}, {"startTime", "2026-11-26T11:58:00Z"}, {"jobName", "mysqlverify-v1"},
                   {"backupRef", {{"name", "b2"}}}};
    if (status_extra.is_object()) v["status"].update(status_extra);
  }
  return v;
}

backup_entry backup(const std::string& name, const std::string& phase, const std::string& done,
                    const std::string& profile = "s3", const std::string& g = "g") {
  return {name, "u-" + name, g, profile, phase, done, "s3://bk/" + name + "/", "S3"};
}

std::vector<backup_entry> backups() {
  return {backup("b1", "Succeeded", "2026-11-25T01:00:00Z"), backup("b2", "Succeeded", "2026-11-26T01:00:00Z"),
          backup("b3", "Failed", "2026-11-26T02:00:00Z"), backup("other", "Succeeded", "2026-11-26T03:00:00Z", "arch")};
}

job_renderer renderer() {
  backup_ctl::render_settings r;
  return [r](const json& v, const config::failover_group& g, const config::backup_profile_spec& p,
             const config::verification_run_spec& run, const backup_entry& b) {
    return render_verify_job(v, g, p, run, b, r);
  };
}

std::string kinds(const std::vector<action>& as) {
  std::string out;
  for (const auto& a : as) {
    static const char* names[] = {"status", "create_job", "delete_job", "event"};
    out += (out.empty() ? "" : " ") + std::string{names[static_cast<int>(a.kind)]};
    if (a.kind == action_kind::status) out += ":" + a.body.value("phase", "");
    if (a.kind == action_kind::event) out += ":" + a.reason;
  }
  return out;
}

const action* find(const std::vector<action>& as, action_kind k) {
  for (const auto& a : as)
    if (a.kind == k) return &a;
  return nullptr;
}

std::string condition(const json& status, const std::string& type) {
  for (const auto& c : status.value("conditions", json::array()))
    if (c.value("type", "") == type) return c.value("status", "") + "/" + c.value("reason", "");
  return "";
}

job_view finished(bool ok, const std::string& result) {
  job_view j;
  j.exists = true;
  j.succeeded = ok;
  j.failed = !ok;
  j.message = ok ? "" : "BackoffLimitExceeded";
  j.result = result;
  return j;
}

const std::string complete =
    R"(BLOODRAVEN_VERIFY_COMPLETE {"name":"b2","step":"cleanup","gtidExecuted":"3e11fa47-71ca-11e1-9e33-c80aa9429562:1-30",)"
    R"("tables":12,"binlogsReplayed":["s1/binlog.000002"],"replayLagSeconds":40,"sanity":{"rows":3,"durationMs":4}})";
const std::string failed_result =
    R"({"name":"b2","step":"restore","message":"b2/dump.sql.gz: SHA-256 ab differs from backup.json's cd"})";

}  // namespace

BOOST_AUTO_TEST_SUITE(verify_controller)

BOOST_AUTO_TEST_CASE(backup_choice_table) {
  struct row {
    std::string what, ref;
    std::vector<backup_entry> items;
    std::string want, wait_part, failed_part;
  };
  std::vector<row> rows = {
      {"newest Succeeded of the profile", "", backups(), "b2", "", ""},
      {"named and Succeeded", "b1", backups(), "b1", "", ""},
      {"named and Failed", "b3", backups(), "", "", "is Failed"},
      {"named, another profile", "other", backups(), "", "", "belongs to group g profile arch"},
      {"named and missing", "zz", backups(), "", "", "not found"},
      {"named and still Running", "r", {backup("r", "Running", "")}, "", "waiting for MysqlBackup r (Running)", ""},
      {"named and new (no phase)", "r", {backup("r", "", "")}, "", "(Pending)", ""},
      {"none Succeeded", "", {backup("b3", "Failed", "x")}, "", "", "no Succeeded MysqlBackup of group g profile s3"},
      {"another group's newer backup is not taken", "",
       {backup("b1", "Succeeded", "2026-11-25T01:00:00Z"), backup("h", "Succeeded", "2026-11-27T01:00:00Z", "s3", "h")},
       "b1", "", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      auto c = choose_backup(r.items, "g", "s3", r.ref);
      BOOST_TEST((c.backup ? c.backup->name : "") == r.want);
      if (r.wait_part.empty()) BOOST_TEST(c.wait == "");
      else BOOST_TEST(c.wait.find(r.wait_part) != std::string::npos, c.wait);
      if (r.failed_part.empty()) BOOST_TEST(c.failed == "");
      else BOOST_TEST(c.failed.find(r.failed_part) != std::string::npos, c.failed);
    }
  }
}

BOOST_AUTO_TEST_CASE(new_verification_creates_the_job) {
  verify_input in;
  in.verification = verification();
  in.group = group({{"sanityCheck", {{"query", "SELECT * FROM appdb.t"}, {"expect", {{"minRows", 5}}}}},
                    {"pointInTime", {{"mode", "latest"}}},
                    {"storage", {{"size", "20Gi"}}}});
  in.backups = backups();
  in.now = now;
  auto as = decide_verification(in, renderer());
  BOOST_TEST(kinds(as) == "create_job status:Provisioning event:VerificationStarted");
  const auto* st = find(as, action_kind::status);
  BOOST_TEST(st->body["backupRef"]["name"] == "b2");
  BOOST_TEST(st->body["backupRef"]["location"] == "s3://bk/b2/");
  BOOST_TEST(st->body["jobName"] == "mysqlverify-v1");
  const auto& job = find(as, action_kind::create_job)->body;
  BOOST_TEST(job["metadata"]["name"] == "mysqlverify-v1");
  BOOST_TEST(job["metadata"]["ownerReferences"][0]["kind"] == "MysqlBackupVerification");
  BOOST_TEST(job["spec"]["backoffLimit"] == 0);
  const auto& pod = job["spec"]["template"]["spec"];
  const auto& c = pod["containers"][0];
  BOOST_TEST(c["args"] == json::array({"backup", "verify", "--name", "b2", "--work-dir", "/verify", "--result-file",
                                       "/dev/termination-log", "--pitr", "latest", "--sanity-query",
                                       "SELECT * FROM appdb.t", "--expect-min-rows", "5", "--keep-on-failure"}));
  std::set<std::string> env;
  for (const auto& e : c["env"]) env.insert(e["name"].get<std::string>());
  BOOST_TEST(env.contains("BLOODRAVEN_BACKUP_STORAGE_TYPE"));
  BOOST_TEST(env.contains("BLOODRAVEN_PITR_STORAGE_TYPE"));  // the archive of spec.backup.pitr
  bool scratch = false;
  for (const auto& v : pod["volumes"])
    if (v["name"] == "scratch") scratch = v["emptyDir"]["sizeLimit"] == "20Gi";
  BOOST_TEST(scratch);
  // Without replay no archive is mounted, and keepOnFailure false drops the flag.
  in.group = group({{"keepOnFailure", false}});
  auto plain = find(decide_verification(in, renderer()), action_kind::create_job)->body;
  const auto& pc = plain["spec"]["template"]["spec"]["containers"][0];
  BOOST_TEST(pc["args"] == json::array({"backup", "verify", "--name", "b2", "--work-dir", "/verify", "--result-file",
                                        "/dev/termination-log"}));
  for (const auto& e : pc["env"]) BOOST_TEST(e["name"].get<std::string>().rfind("BLOODRAVEN_PITR", 0) != 0u);
}

BOOST_AUTO_TEST_CASE(object_members_override_the_profile) {
  verify_input in;
  in.verification = verification({{"backupRef", {{"name", "b1"}}},
                                  {"pointInTime", {{"mode", "timestamp"}, {"timestamp", "2026-11-26T01:30:00Z"}}},
                                  {"keepOnFailure", false}});
  in.group = group({{"pointInTime", {{"mode", "latest"}}}});
  in.backups = backups();
  in.now = now;
  auto as = decide_verification(in, renderer());
  const auto& args = find(as, action_kind::create_job)->body["spec"]["template"]["spec"]["containers"][0]["args"];
  BOOST_TEST(args == json::array({"backup", "verify", "--name", "b1", "--work-dir", "/verify", "--result-file",
                                  "/dev/termination-log", "--stop-datetime", "2026-11-26T01:30:00Z"}));
  BOOST_TEST(find(as, action_kind::status)->body["keepOnFailure"] == false);
}

BOOST_AUTO_TEST_CASE(pending_and_refusals_table) {
  struct row {
    std::string what;
    json spec_extra;
    bool group_found;
    std::vector<backup_entry> items;
    std::string kinds, message_part;
  };
  std::vector<row> rows = {
      {"group not found", json::object(), false, backups(), "status:Pending", "group g not found"},
      {"backupRef still running", {{"backupRef", {{"name", "r"}}}}, true, {backup("r", "Running", "")},
       "status:Pending", "waiting for MysqlBackup r"},
      {"unknown profile", {{"profileName", "nope"}}, true, backups(), "status:Failed event:VerificationBuildFailed",
       "spec.profileName: profile nope"},
      {"no backup to verify", json::object(), true, {}, "status:Failed event:VerificationFailed",
       "no Succeeded MysqlBackup"},
      {"object member not implemented", {{"resources", {{"limits", {{"cpu", "1"}}}}}}, true, backups(),
       "status:Failed event:VerificationBuildFailed", "spec.resources: not implemented yet"},
      {"object storage class refused", {{"storage", {{"storageClassName", "fast"}}}}, true, backups(),
       "status:Failed event:VerificationBuildFailed", "spec.storage.storageClassName"},
      {"object timestamp without time", {{"pointInTime", {{"mode", "timestamp"}}}}, true, backups(),
       "status:Failed event:VerificationBuildFailed", "spec.pointInTime.timestamp"},
      {"unknown spec member", {{"sanitycheck", json::object()}}, true, backups(),
       "status:Failed event:VerificationBuildFailed", "spec.sanitycheck"},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      verify_input in;
      in.verification = verification(r.spec_extra);
      if (r.group_found) in.group = group();
      in.backups = r.items;
      in.now = now;
      auto as = decide_verification(in, renderer());
      BOOST_TEST(kinds(as) == r.kinds);
      const auto* st = find(as, action_kind::status);
      BOOST_TEST_REQUIRE(st != nullptr);
      BOOST_TEST(st->body.value("message", "").find(r.message_part) != std::string::npos, st->body.dump());
      if (st->body.value("phase", "") == "Failed") BOOST_TEST(condition(st->body, "Verified") != "");
    }
  }
  // A name whose Job would not fit 63 characters.
  verify_input in;
  in.verification = verification();
  in.verification["metadata"]["name"] = std::string(52, 'v');
  in.group = group();
  in.backups = backups();
  in.now = now;
  auto as = decide_verification(in, renderer());
  BOOST_TEST(kinds(as) == "status:Failed event:VerificationBuildFailed");
  // Pending is not rewritten when nothing changed.
  verify_input same;
  same.verification = verification({}, "Pending", {{"message", "group g not found"}});
  same.now = now;
  BOOST_TEST(decide_verification(same, renderer()).empty());
}

BOOST_AUTO_TEST_CASE(job_progress_and_result_table) {
  struct row {
    std::string what, phase;
    json status_extra;
    job_view job;
    bool pod_running, deleting;
    std::string kinds, verified, cleaned;
  };
  job_view running;
  running.exists = true;
  job_view gone;
  std::vector<row> rows = {
      {"pod not running yet", "Provisioning", json::object(), running, false, false, "", "", ""},
      {"pod running: Restoring", "Provisioning", json::object(), running, true, false, "status:Restoring", "", ""},
      {"still restoring", "Restoring", json::object(), running, true, false, "", "", ""},
      {"succeeded: Cleaning, Job deleted", "Restoring", json::object(), finished(true, complete), false, false,
       "status:Cleaning event:VerificationSucceeded delete_job", "True/Verified", ""},
      {"failed, kept on failure", "Restoring", json::object(), finished(false, failed_result), false, false,
       "status:Failed event:VerificationFailed", "False/VerificationFailed", "False/KeptOnFailure"},
      {"failed, not kept", "Restoring", {{"keepOnFailure", false}}, finished(false, failed_result), false, false,
       "status:Cleaning event:VerificationFailed delete_job", "False/VerificationFailed", ""},
      {"Job succeeded without a result", "Restoring", json::object(), finished(true, ""), false, false,
       "status:Failed event:VerificationFailed", "False/VerificationFailed", "False/KeptOnFailure"},
      {"Job disappeared", "Provisioning", json::object(), gone, false, false, "status:Failed event:VerificationFailed",
       "False/VerificationFailed", ""},
      {"Cleaning waits for the Job", "Cleaning", {{"conditions", json::array({{{"type", "Verified"}, {"status", "True"}}})}},
       running, false, true, "", "", ""},
      {"Cleaning deletes a Job still there", "Cleaning", json::object(), running, false, false, "delete_job", "", ""},
      {"Cleaning done: Succeeded", "Cleaning", {{"conditions", json::array({{{"type", "Verified"}, {"status", "True"}}})}},
       gone, false, false, "status:Succeeded", "", "True/JobDeleted"},
      {"Cleaning done after a failure: Failed", "Cleaning",
       {{"conditions", json::array({{{"type", "Verified"}, {"status", "False"}}})}}, gone, false, false, "status:Failed",
       "", "True/JobDeleted"},
      {"terminal stays", "Succeeded", json::object(), gone, false, false, "", "", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.what) {
      verify_input in;
      in.verification = verification({}, r.phase, r.status_extra);
      in.group = group();
      in.backups = backups();
      in.job = r.job;
      in.pod_running = r.pod_running;
      in.job_deleting = r.deleting;
      in.now = now;
      auto as = decide_verification(in, renderer());
      BOOST_TEST(kinds(as) == r.kinds);
      const auto* st = find(as, action_kind::status);
      if (!r.verified.empty()) BOOST_TEST_REQUIRE(st != nullptr);
      if (st && !r.verified.empty()) BOOST_TEST(condition(st->body, "Verified") == r.verified);
      if (st && !r.cleaned.empty()) BOOST_TEST(condition(st->body, "ResourcesCleanedUp") == r.cleaned);
    }
  }
  // The result's members land in status; the failure message says the step.
  verify_input ok;
  ok.verification = verification({}, "Restoring");
  ok.group = group();
  ok.job = finished(true, complete);
  ok.now = now;
  auto s = find(decide_verification(ok, renderer()), action_kind::status)->body;
  BOOST_TEST(s["tables"] == 12);
  BOOST_TEST(s["sanityRows"] == 3);
  BOOST_TEST(s["binlogsReplayed"] == 1);
  BOOST_TEST(s["replayLagSeconds"] == 40);
  BOOST_TEST(s["durationSeconds"] == 120);
  BOOST_TEST(s["completionTime"] == now);
  verify_input bad = ok;
  bad.job = finished(false, failed_result);
  auto f = find(decide_verification(bad, renderer()), action_kind::status)->body;
  BOOST_TEST(f["message"] == "step restore: b2/dump.sql.gz: SHA-256 ab differs from backup.json's cd");
}

BOOST_AUTO_TEST_CASE(retention_table) {
  using backup_ctl::retained_backup;
  std::vector<retained_backup> items = {{"s1", "Succeeded", 1000}, {"s2", "Succeeded", 2000}, {"s3", "Succeeded", 3000},
                                        {"f1", "Failed", 1500},    {"f2", "Failed", 2500},    {"p", "Provisioning", 10}};
  config::verification_retention_spec keep;
  keep.keep_successful = 2;
  keep.keep_failures = 1;
  BOOST_TEST(verifications_beyond_retention(items, keep, 5000) == (std::vector<std::string>{"s1", "f1"}),
             boost::test_tools::per_element());
  keep.keep_failures = 0;
  BOOST_TEST(verifications_beyond_retention(items, keep, 5000) == (std::vector<std::string>{"s1", "f1", "f2"}),
             boost::test_tools::per_element());
  keep.keep_successful = 30;
  keep.keep_failures = 10;
  BOOST_TEST(verifications_beyond_retention(items, keep, 5000).empty());
}

BOOST_AUTO_TEST_CASE(cronjob_plan) {
  backup_ctl::render_settings r;
  auto render = [&](const config::failover_group& g) {
    return [&r, &g](const config::backup_profile_spec& p, const config::verification_spec& v) {
      return render_verify_cronjob(g, p, v, r);
    };
  };
  auto enabled = group({{"enabled", true}, {"schedule", "0 5 * * *"}, {"concurrencyPolicy", "Replace"}}).group;
  auto plan = plan_verify_cronjobs(enabled, {}, render(enabled));
  BOOST_TEST_REQUIRE(plan.create.size() == 1u);
  const auto& cj = plan.create[0];
  BOOST_TEST(cj["metadata"]["name"] == "mysql-g-verify-s3");
  BOOST_TEST(cj["metadata"]["labels"]["app.kubernetes.io/component"] == "verify-schedule");
  BOOST_TEST(cj["spec"]["schedule"] == "0 5 * * *");
  BOOST_TEST(cj["spec"]["concurrencyPolicy"] == "Replace");
  const auto& c = cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0];
  BOOST_TEST(c["args"] == json::array({"trigger-verification", "--namespace", "db", "--group", "g", "--profile", "s3",
                                       "--triggered-by", "schedule/verify-s3"}));
  BOOST_TEST(cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]["serviceAccountName"] == r.trigger_service_account);
  // Unchanged: nothing to do; schedule changed: an update; disabled: removed.
  BOOST_TEST(plan_verify_cronjobs(enabled, {cj}, render(enabled)).create.empty());
  BOOST_TEST(plan_verify_cronjobs(enabled, {cj}, render(enabled)).update.empty());
  auto moved = group({{"enabled", true}, {"schedule", "0 6 * * *"}}).group;
  BOOST_TEST(plan_verify_cronjobs(moved, {cj}, render(moved)).update.size() == 1u);
  auto off = group({{"enabled", false}, {"schedule", "0 5 * * *"}}).group;
  BOOST_TEST(plan_verify_cronjobs(off, {cj}, render(off)).remove == std::vector<std::string>{"mysql-g-verify-s3"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(trigger_verification_object) {
  std::map<std::string, std::string> v = {{"namespace", "db"}, {"group", "g"}, {"profile", "s3"},
                                          {"triggered-by", "schedule/verify-s3"}, {"name", ""}, {"backup", ""}};
  auto o = verification_object(v, 1795701780);  // 2026-11-26T14:03:00Z
  BOOST_TEST(o["kind"] == "MysqlBackupVerification");
  BOOST_TEST(o["metadata"]["name"] == "g-s3-20261126140300");
  BOOST_TEST(o["spec"]["failoverGroupRef"]["name"] == "g");
  BOOST_TEST(o["spec"]["triggeredBy"] == "schedule/verify-s3");
  BOOST_TEST(!o["spec"].contains("backupRef"));
  v["backup"] = "b1";
  v["name"] = "mine";
  auto named = verification_object(v, 0);
  BOOST_TEST(named["metadata"]["name"] == "mine");
  BOOST_TEST(named["spec"]["backupRef"]["name"] == "b1");
  // The generated name always leaves room for the Job's prefix.
  v["name"] = "";
  v["group"] = std::string(63, 'g');
  BOOST_TEST(verify_job_name(verification_object(v, 0)["metadata"]["name"].get<std::string>()).size() <= 63u);
}

BOOST_AUTO_TEST_CASE(crd_holds_what_the_controller_writes) {
  config::field_errors errs;
  auto crd = config::yaml_to_json(
      config_spec_test::read_source_file("charts/bloodraven/crds/shipstream.io_mysqlbackupverifications.yaml"), errs);
  BOOST_TEST_REQUIRE(errs.empty(), config::to_string(errs));
  BOOST_TEST(crd["spec"]["names"]["kind"] == "MysqlBackupVerification");
  BOOST_TEST(crd["spec"]["names"]["shortNames"] == json::array({"mbv"}));
  const auto& schema = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"];
  const auto& status = schema["status"]["properties"];
  std::set<std::string> phases;
  for (const auto& p : status["phase"]["enum"]) phases.insert(p.get<std::string>());
  // Every status member and phase the decisions write, over a run of every path.
  std::vector<json> written;
  auto collect = [&](const verify_input& in) {
    for (const auto& a : decide_verification(in, renderer()))
      if (a.kind == action_kind::status) written.push_back(a.body);
  };
  verify_input in;
  in.group = group();
  in.backups = backups();
  in.now = now;
  in.verification = verification();
  collect(in);
  in.verification = verification({}, "Provisioning");
  in.job.exists = true;
  in.pod_running = true;
  in.pod_name = "mysqlverify-v1-x1";
  collect(in);
  in.verification = verification({}, "Restoring");
  in.job = finished(true, complete);
  collect(in);
  in.job = finished(false, failed_result);
  collect(in);
  in.verification = verification({}, "Cleaning");
  in.job = job_view{};
  collect(in);
  in.verification = verification({{"profileName", "nope"}});
  collect(in);
  BOOST_TEST(written.size() >= 6u);
  for (const auto& body : written)
    for (const auto& [k, val] : body.items()) {
      BOOST_TEST(status.contains(k), "status." << k << " is not in the CRD");
      if (k == "phase") BOOST_TEST(phases.contains(val.get<std::string>()), val);
      if (k == "backupRef")
        for (const auto& [m, x] : val.items()) BOOST_TEST(status["backupRef"]["properties"].contains(m), m);
    }
  // The spec members the parser reads are in the schema.
  for (const char* k : {"failoverGroupRef", "profileName", "backupRef", "triggeredBy", "storage", "keepOnFailure",
                        "ttlSecondsAfterFinished", "resources", "sanityCheck", "pointInTime"})
    BOOST_TEST(schema["spec"]["properties"].contains(k), k);
}

BOOST_AUTO_TEST_SUITE_END()
