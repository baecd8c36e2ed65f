// The backup controller's pure decisions (actors/operator/kube/backup/backup_decide.hpp): source
// choice, retention, a MysqlBackup's phase machine and cleanup, CronJob plans, the renders, and
// /pitr-cutoff's catalogue. Table tests, one row per rule.
#include <boost/test/unit_test.hpp>

#include "actors/operator/kube/backup/backup_decide.hpp"
#include "actors/operator/kube/backup/backup_render.hpp"
#include "actors/operator/kube/backup/pitr_catalogue.hpp"
#include "actors/operator/kube/backup/trigger_backup.hpp"
#include "config/failover_group.hpp"
#include "config/group_validate.hpp"

using namespace br;
using namespace br::backup_ctl;
using json = nlohmann::json;

namespace {

json group_doc() {
  auto site = [](const std::string& n, const std::string& role) {
    return json{{"name", n}, {"role", role}, {"zone", "z"}, {"lbIP", "10.0.0.1"},
                {"taintNodeSelector", {{"shipstream.io/site.g", n}}}, {"storage", {{"size", "1Gi"}}}};
  };
  return {{"apiVersion", "shipstream.io/v1alpha1"},
          {"kind", "MysqlFailoverGroup"},
          {"metadata", {{"name", "g"}, {"namespace", "db"}, {"uid", "u-g"}}},
          {"spec",
           {{"credentials", {{"operatorSecret", "g-operator"}}},
            {"dns", {{"hostname", "g.example.com"}}},
            {"sites", json::array({site("a", "primary-candidate"), site("b", "primary-candidate"),
                                   site("r", "read-only")})},
            {"backup",
             {{"profiles",
               json::array({{{"name", "s3"},
                             {"storage",
                              {{"type", "S3"},
                               {"s3", {{"bucket", "bk"}, {"prefix", "p"}, {"credentialsSecret", "aws"},
                                       {"endpointURL", "http://s3:9000"}, {"forcePathStyle", true}}}}}},
                            {{"name", "vol"},
                             {"storage", {{"type", "PVC"}, {"pvc", {{"claimName", "backups"}, {"subPath", "g"}}}}}}})},
              {"schedules", json::array({{{"name", "nightly"}, {"profileName", "s3"},
                                          {"schedule", "0 3 * * *"}}})}}}}}};
}

config::failover_group group() {
  auto res = config::parse_group(group_doc());
  BOOST_TEST_REQUIRE(res.errors.empty(), config::to_string(res.errors));
  auto errs = config::validate(res.group, config::run_mode::kubernetes);
  BOOST_TEST_REQUIRE(errs.empty(), config::to_string(errs));
  return res.group;
}

json status_ab(const std::string& b_state, bool b_repl, std::optional<int> b_lag) {
  json b = {{"name", "b"}, {"state", b_state}, {"replicating", b_repl}};
  if (b_lag) b["secondsBehindSource"] = *b_lag;
  return {{"activeSite", "a"},
          {"sites", json::array({{{"name", "a"}, {"state", "writable"}}, b,
                                 {{"name", "r"}, {"state", "read-only"}, {"replicating", true},
                                  {"secondsBehindSource", 0}}})}};
}

json backup(const std::string& phase = "", bool fin = true, bool deleting = false) {
  json b = {{"apiVersion", "shipstream.io/v1alpha1"},
            {"kind", "MysqlBackup"},
            {"metadata", {{"name", "bk1"}, {"namespace", "db"}, {"uid", "u-b"}, {"resourceVersion", "7"}}},
            {"spec", {{"failoverGroupRef", {{"name", "g"}}}, {"profileName", "s3"}}}};
  if (fin) b["metadata"]["finalizers"] = json::array({"shipstream.io/mysqlbackup"});
  if (deleting) b["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  if (!phase.empty())
    b["status"] = {{"phase", phase}, {"jobName", phase == "Pending" ? "" : "mysqlbackup-bk1"},
                   {"sourceSite", "b"}, {"activeSiteAtStart", "a"}};
  return b;
}

job_renderers renders() {
  render_settings r;
  return {[r](const json& b, const config::failover_group& g, const config::backup_profile_spec& p,
              const std::string& s, const std::string& a) { return render_backup_job(b, g, p, s, a, r); },
          [r](const json& b, const config::failover_group& g, const config::backup_profile_spec& p) {
            return render_cleanup_job(b, g, p, r);
          }};
}

std::string kinds(const std::vector<action>& as) {
  std::string out;
  for (const auto& a : as) {
    static const char* names[] = {"add_finalizer", "remove_finalizer", "status", "create_job",
                                  "delete_job", "event", "delete_backup"};
    out += (out.empty() ? "" : " ") + std::string{names[static_cast<int>(a.kind)]};
    if (a.kind == action_kind::status) out += ":" + a.body.value("phase", "");
    if (a.kind == action_kind::event) out += ":" + a.reason;
    if (a.kind == action_kind::create_job || a.kind == action_kind::delete_job) out += ":" + a.name;
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(backup_controller_decide)

BOOST_AUTO_TEST_CASE(source_choice) {
  struct row {
    const char* rule;
    json status;
    std::int64_t max_lag;
    std::string override_site;
    std::string want;
  };
  const row rows[] = {
      {"caught-up replica", status_ab("read-only", true, 5), 300, "", "b"},
      {"replica at the limit", status_ab("read-only", true, 300), 300, "", "b"},
      {"replica beyond the limit: primary", status_ab("read-only", true, 301), 300, "", "a"},
      {"replica not replicating: primary", status_ab("read-only", false, 0), 300, "", "a"},
      {"replica lag unknown: primary", status_ab("read-only", true, std::nullopt), 300, "", "a"},
      {"replica unreachable: primary", status_ab("unreachable", false, std::nullopt), 300, "", "a"},
      {"read-only role site never chosen", status_ab("unreachable", false, std::nullopt), 300, "", "a"},
      {"override a reachable site", status_ab("read-only", true, 999), 300, "b", "b"},
      {"override a reader refused", status_ab("read-only", true, 0), 300, "r", ""},
      {"override unknown refused", status_ab("read-only", true, 0), 300, "x", ""},
  };
  auto g = group();
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      auto c = choose_source(sites_of(g.spec, r.status), r.status.value("activeSite", ""),
                             r.max_lag, r.override_site);
      BOOST_TEST(c.site == r.want, c.reason);
      BOOST_TEST(!c.reason.empty());
    }
  }
  // No writable primary and no replica: none, with the reason.
  json down = {{"activeSite", "a"}, {"sites", json::array({{{"name", "a"}, {"state", "unreachable"}}})}};
  auto none = choose_source(sites_of(g.spec, down), "a", 300);
  BOOST_TEST(none.site.empty());
  BOOST_TEST(none.reason.find("not writable") != std::string::npos);
}

// Group Replication mode (issue 23): the source comes from status.groupReplication's agreed view
// (decide/gr_backup_source.hpp; its own table is unit_gr_backup_source): an ONLINE SECONDARY with
// the most transactions, never a RECOVERING member, the PRIMARY only without a secondary.
BOOST_AUTO_TEST_CASE(gr_source_choice) {
  config::group_spec spec;
  for (const char* n : {"a", "b", "c"}) {
    config::site_spec s;
    s.name = n;
    spec.sites.push_back(s);
  }
  const std::string G = "5f3e1c2a-6b7d-4e8f-9a0b-1c2d3e4f5a6b";
  auto status = [&](std::vector<std::array<std::string, 3>> members, bool known, bool quorum) {
    json m = json::array(), sites = json::array();
    for (const auto& [name, state, role] : members) {
      m.push_back({{"name", name}, {"state", state}, {"role", role}, {"reachable", state != "UNREACHABLE"}});
      sites.push_back({{"name", name}, {"gtidExecuted", G + ":1-" + (name == "c" ? "90" : "80")}});
    }
    return json{{"activeSite", "a"},
                {"sites", sites},
                {"groupReplication", {{"viewKnown", known}, {"hasQuorum", quorum}, {"members", m}}}};
  };
  struct row {
    const char* rule;
    json status;
    std::string override_site, want;
  };
  const row rows[] = {
      {"the secondary with the most transactions (c: 90 > b: 80)",
       status({{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}, {"c", "ONLINE", "SECONDARY"}}, true, true),
       "", "c"},
      {"a RECOVERING secondary is skipped",
       status({{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}, {"c", "RECOVERING", "SECONDARY"}}, true, true),
       "", "b"},
      {"no ONLINE secondary: the primary",
       status({{"a", "ONLINE", "PRIMARY"}, {"b", "ERROR", ""}, {"c", "OFFLINE", ""}}, true, true), "", "a"},
      {"no agreed view: none",
       status({{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}, {"c", "ONLINE", "SECONDARY"}}, false, false),
       "", ""},
      {"the primary by request",
       status({{"a", "ONLINE", "PRIMARY"}, {"b", "ONLINE", "SECONDARY"}, {"c", "ONLINE", "SECONDARY"}}, true, true),
       "a", "a"},
      {"no groupReplication status yet: none", json{{"activeSite", "a"}}, "", ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      auto c = choose_gr_source(spec, r.status, r.override_site);
      BOOST_TEST(c.site == r.want, c.reason);
      BOOST_TEST(!c.reason.empty());
    }
  }
  // The async rule would have taken the writable active site for this group (no site is
  // "replicating" in GR mode): the GR rule is what decide_backup uses for a GR group (below).
  auto async = choose_source(sites_of(spec, rows[0].status), "a", 300);
  BOOST_TEST(async.site != "c");
}

BOOST_AUTO_TEST_CASE(retention) {
  const std::int64_t day = 86400000, now = 100 * day;
  auto s = [&](const char* n, std::int64_t age_days) {
    return retained_backup{n, "Succeeded", now - age_days * day};
  };
  auto f = [&](const char* n, std::int64_t age_days) {
    return retained_backup{n, "Failed", now - age_days * day};
  };
  auto policy = [](std::int64_t count, std::int64_t age, std::int64_t min_keep, std::int64_t failed) {
    config::retention_policy_spec p;
    p.count = count;
    p.max_age_days = age;
    p.min_keep = min_keep;
    p.max_failed_keep = failed;
    return p;
  };
  struct row {
    const char* rule;
    std::vector<retained_backup> backups;
    config::retention_policy_spec policy;
    std::vector<std::string> want;
  };
  const row rows[] = {
      {"count keeps the newest", {s("b1", 4), s("b2", 3), s("b3", 2), s("b4", 1)}, policy(2, 0, 1, 10),
       {"b1", "b2"}},
      {"order of the input does not matter", {s("b3", 2), s("b1", 4), s("b4", 1), s("b2", 3)},
       policy(2, 0, 1, 10), {"b1", "b2"}},
      {"maxAgeDays", {s("b1", 10), s("b2", 8), s("b3", 2)}, policy(0, 7, 1, 10), {"b1", "b2"}},
      {"any rule keeps: age keeps beyond count", {s("b1", 3), s("b2", 2), s("b3", 1)},
       policy(1, 7, 1, 10), {}},
      {"any rule keeps: count keeps beyond age", {s("b1", 30), s("b2", 20), s("b3", 10)},
       policy(2, 7, 1, 10), {"b1"}},
      {"minKeep floor over age", {s("b1", 30), s("b2", 20), s("b3", 10)}, policy(0, 7, 2, 10), {"b1"}},
      {"no limit keeps every success", {s("b1", 300), s("b2", 200)}, policy(0, 0, 1, 10), {}},
      {"maxFailedKeep", {f("f1", 3), f("f2", 2), f("f3", 1), s("b1", 1)}, policy(5, 0, 1, 1),
       {"f1", "f2"}},
      {"failed do not count as successes", {f("f1", 1), s("b1", 5), s("b2", 4)}, policy(2, 0, 1, 10), {}},
      {"running and pending never deleted",
       {{"p", "Pending", now - 50 * day}, {"r", "Running", now - 50 * day}, s("b1", 1)},
       policy(1, 0, 1, 0), {}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      auto got = beyond_retention(r.backups, r.policy, now);
      BOOST_TEST(got == r.want, boost::test_tools::per_element());
    }
  }
}

BOOST_AUTO_TEST_CASE(backup_phases) {
  auto g = group();
  group_view gv{true, true, g, status_ab("read-only", true, 1)};
  job_view none;
  job_view running;
  running.exists = true;
  running.source_site = "b";
  running.active_site = "a";
  job_view done = running;
  done.succeeded = true;
  done.result =
      R"({"location":"s3://bk/p/bk1/","storageType":"S3","sizeBytes":2048,"gtidExecuted":"u:1-5",)"
      R"("binlogFile":"binlog.000002","binlogPos":157,"sourceHost":"b:3306",)"
      R"("startTime":"2026-01-01T00:00:00Z","completionTime":"2026-01-01T00:01:00Z","method":"mysqldump"})";
  job_view failed = running;
  failed.failed = true;
  failed.message = "BackoffLimitExceeded";
  failed.result = R"({"message":"mysqldump: access denied"})";
  job_view cleanup_done;
  cleanup_done.exists = cleanup_done.succeeded = true;
  job_view cleanup_failed;
  cleanup_failed.exists = cleanup_failed.failed = true;
  group_view missing;
  group_view invalid = gv;
  invalid.valid = false;
  group_view failover = gv;
  failover.status["activeSite"] = "b";
  auto no_profile = backup("");
  no_profile["spec"]["profileName"] = "tape";

  struct row {
    const char* rule;
    json b;
    group_view g;
    job_view job, cleanup;
    std::string want;
  };
  const row rows[] = {
      {"finalizer first", backup("", false), gv, none, none, "add_finalizer"},
      {"new: Job from the caught-up replica", backup(""), gv, none, none,
       "create_job:mysqlbackup-bk1 status:Running event:BackupStarted"},
      {"group missing: Pending", backup(""), missing, none, none, "status:Pending"},
      {"already Pending with that message: nothing", [] {
         auto b = backup("Pending");
         b["status"]["message"] = "group g not found";
         return b;
       }(), missing, none, none, ""},
      {"invalid group: Pending, nothing created", backup(""), invalid, none, none, "status:Pending"},
      {"unknown profile: Failed", no_profile, gv, none, none, "status:Failed event:BackupFailed"},
      {"name too long for its Jobs: Failed", [] {
         auto b = backup("");
         b["metadata"]["name"] = std::string(49, 'n');
         return b;
       }(), gv, none, none, "status:Failed event:BackupFailed"},
      {"Job exists (status write lost): Running without a second Job", backup("Pending"), gv, running,
       none, "status:Running event:BackupStarted"},
      {"running Job: nothing", backup("Running"), gv, running, none, ""},
      {"Job succeeded: Succeeded", backup("Running"), gv, done, none,
       "status:Succeeded event:BackupSucceeded"},
      {"failover during the backup: InFlightFailover", backup("Running"), failover, done, none,
       "status:Succeeded event:BackupSucceeded event:InFlightFailover"},
      {"Job failed: Failed with the result's message", backup("Running"), gv, failed, none,
       "status:Failed event:BackupFailed"},
      {"Job gone while running: Failed", backup("Running"), gv, none, none,
       "status:Failed event:BackupFailed"},
      {"terminal: nothing", backup("Succeeded"), gv, done, none, ""},
      {"deleting a running backup: its Job first", backup("Running", true, true), gv, running, none,
       "delete_job:mysqlbackup-bk1"},
      {"deleting: cleanup Job", backup("Succeeded", true, true), gv, done, none,
       "create_job:mysqlbackup-rm-bk1 event:ArtifactCleanupStarted"},
      {"deleting: cleanup running", backup("Succeeded", true, true), gv, done, running, ""},
      {"deleting: cleanup done, finalizer removed", backup("Succeeded", true, true), gv, done,
       cleanup_done, "event:ArtifactCleanupSucceeded remove_finalizer"},
      {"deleting: cleanup failed, object kept", backup("Succeeded", true, true), gv, done,
       cleanup_failed, "event:ArtifactCleanupFailed"},
      {"deleting a Pending backup: nothing to clean", backup("Pending", true, true), gv, none, none,
       "remove_finalizer"},
      {"deleting without its group: skipped, released", backup("Succeeded", true, true), missing,
       done, none, "event:ArtifactCleanupSkipped remove_finalizer"},
      {"deleting, not ours", backup("Succeeded", false, true), gv, done, none, ""},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.rule) {
      backup_input in{r.b, r.g, r.job, r.cleanup, "2026-01-01T00:02:00Z"};
      auto got = decide_backup(in, renders());
      BOOST_TEST(kinds(got) == r.want);
    }
  }
  // What the status says.
  backup_input in{backup("Running"), gv, done, none, "2026-01-01T00:02:00Z"};
  auto got = decide_backup(in, renders());
  const json& st = got.at(0).body;
  BOOST_TEST(st["location"] == "s3://bk/p/bk1/");
  BOOST_TEST(st["storageType"] == "S3");
  BOOST_TEST(st["sizeBytes"] == 2048);
  BOOST_TEST(st["size"] == "2.0KiB");
  BOOST_TEST(st["gtidExecuted"] == "u:1-5");
  BOOST_TEST(!st.contains("groupReplication"));  // not a GR source
  BOOST_TEST(st["binlogFile"] == "binlog.000002");
  BOOST_TEST(st["binlogPos"] == 157);
  BOOST_TEST(st["completionTime"] == "2026-01-01T00:01:00Z");
  backup_input fin{backup("Running"), gv, failed, none, "2026-01-01T00:02:00Z"};
  BOOST_TEST(decide_backup(fin, renders()).at(0).body["message"] == "mysqldump: access denied");
  // A Group Replication source (issue 23): the Job's result names its group and role; the status
  // keeps them (unknown members of the object are dropped).
  job_view gr_done = done;
  gr_done.result.pop_back();
  gr_done.result += R"(,"groupReplication":{"groupName":"g-uuid","memberId":"m-uuid","memberRole":"SECONDARY",)"
                    R"("memberState":"ONLINE","extra":1}})";
  auto gr_status = decide_backup(backup_input{backup("Running"), gv, gr_done, none, "2026-01-01T00:02:00Z"},
                                 renders()).at(0).body;
  BOOST_TEST(gr_status["groupReplication"] ==
             (json{{"groupName", "g-uuid"}, {"memberId", "m-uuid"}, {"memberRole", "SECONDARY"},
                   {"memberState", "ONLINE"}}));
  // The new Job's source and its recorded start.
  backup_input fresh{backup(""), gv, none, none, "2026-01-01T00:02:00Z"};
  auto start = decide_backup(fresh, renders());
  BOOST_TEST(start.at(1).body["sourceSite"] == "b");
  BOOST_TEST(start.at(1).body["activeSiteAtStart"] == "a");
  BOOST_TEST(start.at(1).body["jobName"] == "mysqlbackup-bk1");
  // A Group Replication group (issue 23): the source is the ONLINE SECONDARY of the agreed view
  // (b), although the async rule finds no replicating replica and would take the primary a; with
  // no agreed view the backup stays Pending, naming why.
  group_view grv = gv;
  grv.group.spec.replication.mode = config::replication_mode::group_replication;
  grv.status = {{"activeSite", "a"},
                {"groupReplication",
                 {{"viewKnown", true}, {"hasQuorum", true},
                  {"members", json::array({{{"name", "a"}, {"state", "ONLINE"}, {"role", "PRIMARY"}, {"reachable", true}},
                                           {{"name", "b"}, {"state", "ONLINE"}, {"role", "SECONDARY"}, {"reachable", true}},
                                           {{"name", "r"}, {"state", "RECOVERING"}, {"role", "SECONDARY"}, {"reachable", true}}})}}}};
  auto gr_start = decide_backup(backup_input{backup(""), grv, none, none, "2026-01-01T00:02:00Z"}, renders());
  BOOST_TEST(kinds(gr_start) == "create_job:mysqlbackup-bk1 status:Running event:BackupStarted");
  BOOST_TEST(gr_start.at(1).body["sourceSite"] == "b");
  grv.status["groupReplication"]["viewKnown"] = false;
  auto gr_wait = decide_backup(backup_input{backup(""), grv, none, none, "2026-01-01T00:02:00Z"}, renders());
  BOOST_TEST(kinds(gr_wait) == "status:Pending");
  BOOST_TEST(gr_wait.at(0).body["message"].get<std::string>().find("no agreed view") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(job_renders) {
  auto g = group();
  const auto& s3 = g.spec.backup->profiles[0];
  const auto& vol = g.spec.backup->profiles[1];
  render_settings r;
  auto j = render_backup_job(backup(""), g, s3, "b", "a", r);
  const json& c = j["spec"]["template"]["spec"]["containers"][0];
  BOOST_TEST(j["metadata"]["name"] == "mysqlbackup-bk1");
  BOOST_TEST(j["metadata"]["ownerReferences"][0]["kind"] == "MysqlBackup");
  BOOST_TEST(j["spec"]["backoffLimit"] == 2);
  BOOST_TEST(j["spec"]["activeDeadlineSeconds"] == 7200);
  BOOST_TEST(c["args"] == json::array({"backup", "run", "--name", "bk1", "--source",
                                       "mysql-g-b.db.svc.cluster.local:3306", "--creds-dir",
                                       "/run/bloodraven/mysql-creds", "--result-file",
                                       "/dev/termination-log"}));
  std::map<std::string, std::string> env;
  for (const auto& e : c["env"]) env[e["name"]] = e["value"];
  BOOST_TEST(env["BLOODRAVEN_BACKUP_STORAGE_TYPE"] == "S3");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_BUCKET"] == "bk");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_PREFIX"] == "p");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_REGION"] == "us-east-1");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_ENDPOINT"] == "http://s3:9000");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_FORCE_PATH_STYLE"] == "true");
  BOOST_TEST(env["BLOODRAVEN_BACKUP_S3_CREDENTIALS_DIR"] == "/run/bloodraven/aws-creds");
  for (const auto& e : c["env"]) BOOST_TEST(!e.contains("valueFrom"));  // never secret values
  std::set<std::string> secrets;
  for (const auto& v : j["spec"]["template"]["spec"]["volumes"])
    if (v.contains("secret")) secrets.insert(v["secret"]["secretName"]);
  BOOST_TEST((secrets == std::set<std::string>{"aws", "g-operator"}));
  // The backup account's keys (the operator account cannot read user schemas), optional.
  for (const auto& v : j["spec"]["template"]["spec"]["volumes"])
    if (v["name"] == "mysql-creds") {
      BOOST_TEST(v["secret"]["items"] == json::array({{{"key", "MYSQL_BACKUP_USER"}, {"path", "username"}},
                                                      {{"key", "MYSQL_BACKUP_PASSWORD"}, {"path", "password"}}}));
      BOOST_TEST(v["secret"]["optional"] == true);
    }
  // Not a MySQL pod: the group's PDB and Services select app.kubernetes.io/name=mysql.
  for (const json* l : {&j["metadata"]["labels"], &j["spec"]["template"]["metadata"]["labels"]}) {
    BOOST_TEST((*l)["app.kubernetes.io/name"] == "bloodraven");
    BOOST_TEST((*l)["shipstream.io/mysqlbackup"] == "bk1");
  }
  auto p = render_cleanup_job(backup(""), g, vol, r);
  const json& pc = p["spec"]["template"]["spec"]["containers"][0];
  BOOST_TEST(p["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"] == "bloodraven");
  BOOST_TEST(p["metadata"]["name"] == "mysqlbackup-rm-bk1");
  BOOST_TEST(pc["args"] == json::array({"backup", "delete", "--name", "bk1"}));
  bool mounted = false;
  for (const auto& m : pc["volumeMounts"])
    if (m["mountPath"] == "/backups" && m["subPath"] == "g") mounted = true;
  BOOST_TEST(mounted);
  for (const auto& v : p["spec"]["template"]["spec"]["volumes"]) BOOST_TEST(!v.contains("secret"));
}

BOOST_AUTO_TEST_CASE(cronjob_plan) {
  auto g = group();
  render_settings r;
  auto render = [&](const config::backup_schedule_spec& s) { return render_cronjob(g, s, r); };
  auto cj = render_cronjob(g, g.spec.backup->schedules[0], r);
  BOOST_TEST(cj["metadata"]["name"] == "mysql-g-backup-nightly");
  BOOST_TEST(cj["spec"]["schedule"] == "0 3 * * *");
  BOOST_TEST(cj["spec"]["timeZone"] == "Etc/UTC");
  BOOST_TEST(cj["spec"]["concurrencyPolicy"] == "Forbid");
  const json& pod = cj["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  BOOST_TEST(cj["spec"]["jobTemplate"]["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/name"] ==
             "bloodraven");  // not selected by the group's PDB
  BOOST_TEST(pod["serviceAccountName"] == "bloodraven-backup-trigger");
  BOOST_TEST(pod["containers"][0]["args"] ==
             json::array({"trigger-backup", "--namespace", "db", "--group", "g", "--profile", "s3",
                          "--triggered-by", "schedule/nightly"}));
  // none -> create; same -> nothing; schedule changed -> update; removed -> delete.
  auto p = plan_cronjobs(g, {}, render);
  BOOST_TEST(p.create.size() == 1u);
  auto existing = cj;
  existing["metadata"]["resourceVersion"] = "5";
  p = plan_cronjobs(g, {existing}, render);
  BOOST_TEST((p.create.empty() && p.update.empty() && p.remove.empty()));
  auto changed = g;
  changed.spec.backup->schedules[0].schedule = "0 4 * * *";
  p = plan_cronjobs(changed, {existing}, [&](const config::backup_schedule_spec& s) {
    return render_cronjob(changed, s, r);
  });
  BOOST_TEST_REQUIRE(p.update.size() == 1u);
  BOOST_TEST(p.update[0]["metadata"]["resourceVersion"] == "5");
  auto no_schedules = g;
  no_schedules.spec.backup->schedules.clear();
  p = plan_cronjobs(no_schedules, {existing}, render);
  BOOST_TEST(p.remove == std::vector<std::string>{"mysql-g-backup-nightly"}, boost::test_tools::per_element());
  auto disabled = g;
  disabled.spec.backup.reset();
  p = plan_cronjobs(disabled, {existing}, render);
  BOOST_TEST(p.remove.size() == 1u);
}

BOOST_AUTO_TEST_CASE(pitr_cutoff_from_succeeded_backups) {
  auto b = [](const char* name, const char* group, const char* profile, const char* phase,
              const char* done, bool deleting = false) {
    json o = {{"metadata", {{"name", name}}},
              {"spec", {{"failoverGroupRef", {{"name", group}}}, {"profileName", profile}}},
              {"status", {{"phase", phase}, {"completionTime", done}}}};
    if (deleting) o["metadata"]["deletionTimestamp"] = "2026-01-09T00:00:00Z";
    return o;
  };
  json items = json::array({b("x1", "g", "s3", "Succeeded", "2026-01-03T00:00:00Z"),
                            b("x2", "g", "s3", "Succeeded", "2026-01-02T00:00:00Z"),
                            b("x3", "g", "s3", "Failed", "2026-01-01T00:00:00Z"),
                            b("x4", "g", "s3", "Succeeded", "2026-01-01T12:00:00Z", true),
                            b("x5", "other", "s3", "Succeeded", "2025-01-01T00:00:00Z"),
                            b("x6", "g", "vol", "Succeeded", "2025-06-01T00:00:00Z")});
  auto a = pitr_cutoff_of(items, "g", "s3");
  BOOST_TEST(a.ok);
  BOOST_TEST_REQUIRE(a.has_cutoff);
  BOOST_TEST(a.cutoff_ms == 1767312000000);  // 2026-01-02T00:00:00Z: the oldest live success
  BOOST_TEST(!pitr_cutoff_of(items, "g", "none").has_cutoff);
}

BOOST_AUTO_TEST_CASE(trigger_backup_object) {
  trigger_request r{"db", "g", "s3", "schedule/nightly", "", ""};
  auto o = trigger_object(r, 1767312000);
  BOOST_TEST(o["metadata"]["name"] == "g-s3-20260102000000");
  BOOST_TEST(o["metadata"]["finalizers"][0] == "shipstream.io/mysqlbackup");
  BOOST_TEST(o["spec"]["triggeredBy"] == "schedule/nightly");
  BOOST_TEST(o["spec"]["failoverGroupRef"]["name"] == "g");
  BOOST_TEST(!o["spec"].contains("sourceSiteOverride"));
  // Long prefixes are cut so that mysqlbackup-rm-<name> fits 63 characters.
  auto name = generated_backup_name(std::string(60, 'a'), 0);
  BOOST_TEST(name.size() == 47u);
  BOOST_TEST(cleanup_job_name(name).size() <= 63u);
}

BOOST_AUTO_TEST_SUITE_END()
