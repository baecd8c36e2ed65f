// Process kubelet, pure parts of its Job SIMULATION (tests/support/process_kubelet/job_controller.hpp):
// the Job controller's step (pod from the template, backoffLimit with its back-off,
// activeDeadlineSeconds, success, status counts and conditions) and the kubelet's container-exit
// rules (restartPolicy, termination message with FallbackToLogsOnError).
#include <boost/test/unit_test.hpp>

#include "tests/support/process_kubelet/job_controller.hpp"

using namespace br::test::kubelet;
using namespace std::chrono_literals;
using nlohmann::json;
using br::config::format_rfc3339;
using br::config::parse_rfc3339;
using br::config::timestamp;

namespace {

const timestamp t0 = *parse_rfc3339("2026-01-01T00:00:00Z");

json job(const std::string& restart = "Never", json extra = json::object()) {
  json j = {{"apiVersion", "batch/v1"},
            {"kind", "Job"},
            {"metadata", {{"name", "mysqlbackup-b1"}, {"namespace", "default"}, {"uid", "uid-1"}}},
            {"spec",
             {{"backoffLimit", 1},
              {"template",
               {{"metadata", {{"labels", {{"shipstream.io/mysqlbackup", "b1"}}}}},
                {"spec",
                 {{"restartPolicy", restart},
                  {"containers", json::array({{{"name", "backup"}, {"image", "bloodraven:t"}}})}}}}}}}};
  for (const auto& [k, v] : extra.items()) j["spec"][k] = v;
  return j;
}

json pod(const std::string& name, const std::string& phase, const std::string& finished = "",
         int restarts = 0, bool deleting = false) {
  json p = {{"metadata", {{"name", name}, {"ownerReferences", json::array({{{"kind", "Job"}, {"uid", "uid-1"}}})}}},
            {"status", {{"phase", phase}}}};
  json cs = {{"name", "backup"}, {"restartCount", restarts}};
  if (!finished.empty()) cs["state"] = {{"terminated", {{"exitCode", 1}, {"finishedAt", finished}}}};
  p["status"]["containerStatuses"] = json::array({cs});
  if (deleting) p["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  return p;
}

std::vector<std::string> condition_types(const json& status) {
  std::vector<std::string> out;
  for (const auto& c : status.value("conditions", json::array())) out.push_back(c.value("type", ""));
  return out;
}

std::string failed_reason(const json& status) {
  for (const auto& c : status.value("conditions", json::array()))
    if (c.value("type", "") == "Failed") return c.value("reason", "") + ": " + c.value("message", "");
  return "";
}

}  // namespace

BOOST_AUTO_TEST_SUITE(kubelet_jobs)

BOOST_AUTO_TEST_CASE(first_pod_from_the_template_with_labels_owner_and_node) {
  auto s = decide_job(job(), {}, t0, "x2b4z");
  BOOST_TEST(s.unsupported.empty());
  BOOST_TEST_REQUIRE(s.create.has_value());
  const json& p = *s.create;
  BOOST_TEST(p["metadata"]["name"] == "mysqlbackup-b1-x2b4z");
  BOOST_TEST(p["metadata"]["namespace"] == "default");
  BOOST_TEST(p["metadata"]["labels"]["shipstream.io/mysqlbackup"] == "b1");  // the template's
  BOOST_TEST(p["metadata"]["labels"]["batch.kubernetes.io/job-name"] == "mysqlbackup-b1");
  BOOST_TEST(p["metadata"]["labels"]["controller-uid"] == "uid-1");
  const json& ref = p["metadata"]["ownerReferences"][0];
  BOOST_TEST(ref["kind"] == "Job");
  BOOST_TEST(ref["uid"] == "uid-1");
  BOOST_TEST(ref["controller"] == true);
  BOOST_TEST(p["spec"]["nodeName"] == "process-kubelet");
  BOOST_TEST(p["spec"]["containers"][0]["name"] == "backup");
  BOOST_TEST(s.status["startTime"] == "2026-01-01T00:00:00Z");
  BOOST_TEST(s.status["active"] == 1);
  BOOST_TEST(!s.status.contains("failed"));
  BOOST_TEST(condition_types(s.status).empty());
}

BOOST_AUTO_TEST_CASE(one_pod_at_a_time_and_the_counts) {
  json j = job();
  j["status"] = {{"startTime", "2026-01-01T00:00:00Z"}};
  auto s = decide_job(j, {pod("p1", "Running")}, t0 + 5s, "zzzzz");
  BOOST_TEST(!s.create.has_value());
  BOOST_TEST(s.remove.empty());
  BOOST_TEST(s.status["active"] == 1);
  // A pod being deleted is not active, and no second pod is made beside a running one.
  s = decide_job(j, {pod("p1", "Running", "", 0, true)}, t0 + 5s, "zzzzz");
  BOOST_TEST(s.create.has_value());
}

BOOST_AUTO_TEST_CASE(success_completes_the_job) {
  json j = job();
  j["status"] = {{"startTime", "2026-01-01T00:00:00Z"}, {"active", 1}};
  auto s = decide_job(j, {pod("p1", "Succeeded")}, t0 + 30s, "zzzzz");
  BOOST_TEST(!s.create.has_value());
  BOOST_TEST(s.status["succeeded"] == 1);
  BOOST_TEST(!s.status.contains("active"));
  BOOST_TEST((condition_types(s.status) == std::vector<std::string>{"SuccessCriteriaMet", "Complete"}));
  BOOST_TEST(s.status["completionTime"] == "2026-01-01T00:00:30Z");
  // Finished: nothing more is done, the status stays.
  json done = j;
  done["status"] = s.status;
  auto again = decide_job(done, {pod("p1", "Succeeded")}, t0 + 60s, "zzzzz");
  BOOST_TEST(!again.create.has_value());
  BOOST_TEST(again.status == s.status);
}

BOOST_AUTO_TEST_CASE(never_counts_failed_pods_against_backoff_limit_with_the_back_off) {
  struct row {
    std::vector<json> pods;
    std::chrono::seconds at;
    bool create;
    std::string failed;  // "" = not failed
  };
  const std::string f0 = "2026-01-01T00:00:10Z";
  const std::vector<row> rows = {
      // One failure (limit 1): a new pod, but only 10 s after it failed.
      {{pod("p1", "Failed", f0)}, 15s, false, ""},
      {{pod("p1", "Failed", f0)}, 20s, true, ""},
      // Two failures > backoffLimit 1: Failed, no new pod.
      {{pod("p1", "Failed", f0), pod("p2", "Failed", "2026-01-01T00:00:30Z")}, 200s, false,
       "BackoffLimitExceeded: Job has reached the specified backoff limit"},
  };
  for (const auto& r : rows) {
    json j = job();
    j["status"] = {{"startTime", "2026-01-01T00:00:00Z"}};
    auto s = decide_job(j, r.pods, t0 + r.at, "zzzzz");
    BOOST_TEST_CONTEXT(r.pods.size() << " failed at +" << r.at.count() << " s") {
      BOOST_TEST(s.create.has_value() == r.create);
      BOOST_TEST(failed_reason(s.status) == r.failed);
      BOOST_TEST(s.status["failed"] == static_cast<int>(r.pods.size()));
      if (!r.failed.empty())
        BOOST_TEST((condition_types(s.status) == std::vector<std::string>{"FailureTarget", "Failed"}));
    }
  }
  // The back-off doubles: the third pod (backoffLimit 6) 20 s after the second failure.
  json j = job("Never", {{"backoffLimit", 6}});
  j["status"] = {{"startTime", "2026-01-01T00:00:00Z"}};
  std::vector<json> two = {pod("p1", "Failed", f0), pod("p2", "Failed", "2026-01-01T00:00:30Z")};
  BOOST_TEST(!decide_job(j, two, t0 + 45s, "z").create.has_value());
  BOOST_TEST(decide_job(j, two, t0 + 50s, "z").create.has_value());
}

BOOST_AUTO_TEST_CASE(on_failure_counts_container_restarts_and_deletes_the_pod_past_the_limit) {
  json j = job("OnFailure");
  j["status"] = {{"startTime", "2026-01-01T00:00:00Z"}};
  auto s = decide_job(j, {pod("p1", "Running", "", 1)}, t0 + 5s, "z");
  BOOST_TEST(failed_reason(s.status).empty());
  BOOST_TEST(s.remove.empty());
  s = decide_job(j, {pod("p1", "Running", "", 2)}, t0 + 5s, "z");
  BOOST_TEST(failed_reason(s.status) == "BackoffLimitExceeded: Job has reached the specified backoff limit");
  BOOST_TEST(s.remove == std::vector<std::string>{"p1"});
  BOOST_TEST(!s.status.contains("active"));
}

BOOST_AUTO_TEST_CASE(active_deadline_fails_the_job_and_deletes_its_pod) {
  json j = job("Never", {{"activeDeadlineSeconds", 60}});
  j["status"] = {{"startTime", "2026-01-01T00:00:00Z"}, {"active", 1}};
  auto s = decide_job(j, {pod("p1", "Running")}, t0 + 59s, "z");
  BOOST_TEST(failed_reason(s.status).empty());
  s = decide_job(j, {pod("p1", "Running")}, t0 + 60s, "z");
  BOOST_TEST(failed_reason(s.status) == "DeadlineExceeded: Job was active longer than specified deadline");
  BOOST_TEST(s.remove == std::vector<std::string>{"p1"});
  BOOST_TEST(!s.create.has_value());
}

BOOST_AUTO_TEST_CASE(jobs_it_does_not_simulate_are_refused_with_the_field) {
  struct row {
    json job;
    std::string part;
  };
  json always = job("Always");
  const std::vector<row> rows = {
      {job("Never", {{"parallelism", 2}}), "spec.parallelism"},
      {job("Never", {{"completions", 3}}), "spec.completions"},
      {job("Never", {{"completionMode", "Indexed"}}), "spec.completionMode"},
      {job("Never", {{"podFailurePolicy", json::object()}}), "spec.podFailurePolicy"},
      {always, "spec.template.spec.restartPolicy"},
  };
  for (const auto& r : rows) {
    auto s = decide_job(r.job, {}, t0, "z");
    BOOST_TEST_CONTEXT(r.part) {
      BOOST_TEST(s.unsupported.find(r.part) != std::string::npos, s.unsupported);
      BOOST_TEST(!s.create.has_value());
    }
  }
  BOOST_TEST(decide_job(job("Never", {{"parallelism", 1}, {"completions", 1}}), {}, t0, "z").unsupported.empty());
  // Suspended: no pod.
  BOOST_TEST(!decide_job(job("Never", {{"suspend", true}}), {}, t0, "z").create.has_value());
}

BOOST_AUTO_TEST_CASE(restart_policy_after_an_exit) {
  struct row {
    const char* policy;
    int code;
    bool restart;
  };
  for (const auto& r : std::vector<row>{{"Always", 0, true}, {"Always", 1, true}, {"OnFailure", 0, false},
                                        {"OnFailure", 2, true}, {"Never", 0, false}, {"Never", 1, false}})
    BOOST_TEST(restarts_after_exit(r.policy, r.code) == r.restart, r.policy << " " << r.code);
}

BOOST_AUTO_TEST_CASE(termination_message_file_then_log_fallback) {
  // The file wins (its last 4096 bytes).
  BOOST_TEST(termination_message("{\"location\":\"x\"}", "log", "File", 0) == "{\"location\":\"x\"}");
  BOOST_TEST(termination_message("m", "log", "FallbackToLogsOnError", 1) == "m");
  const std::string big = std::string(5000, 'a') + "END";
  BOOST_TEST(termination_message(big, "", "File", 0).size() == max_termination_message);
  BOOST_TEST(termination_message(big, "", "File", 0).ends_with("END"));
  // Empty file: the log only with FallbackToLogsOnError and a failure.
  BOOST_TEST(termination_message("", "oops\n", "File", 1) == "");
  BOOST_TEST(termination_message("", "oops\n", "FallbackToLogsOnError", 0) == "");
  BOOST_TEST(termination_message("", "oops\n", "FallbackToLogsOnError", 1) == "oops\n");
  // The last 80 lines, then the last 2048 bytes.
  std::string lines;
  for (int i = 1; i <= 100; ++i) lines += "line " + std::to_string(i) + "\n";
  auto tail = termination_message("", lines, "FallbackToLogsOnError", 1);
  BOOST_TEST(tail.starts_with("line 21\n"));
  BOOST_TEST(tail.ends_with("line 100\n"));
  auto wide = termination_message("", std::string(3000, 'x') + "\nlast\n", "FallbackToLogsOnError", 1);
  BOOST_TEST(wide.size() == max_log_message);
  BOOST_TEST(wide.ends_with("\nlast\n"));
}

BOOST_AUTO_TEST_SUITE_END()
