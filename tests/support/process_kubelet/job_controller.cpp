// Process kubelet (tests): the Job controller SIMULATION's pure decisions (see job_controller.hpp).
#include "tests/support/process_kubelet/job_controller.hpp"

#include <algorithm>

namespace br::test::kubelet {
namespace {

bool condition_true(const json& status, const char* type) {
  for (const auto& c : status.value("conditions", json::array()))
    if (c.value("type", "") == type && c.value("status", "") == "True") return true;
  return false;
}

json condition(const char* type, const std::string& reason, const std::string& message,
               const std::string& now) {
  return {{"type", type},     {"status", "True"},        {"reason", reason},
          {"message", message}, {"lastProbeTime", now}, {"lastTransitionTime", now}};
}

/// The newest finishedAt among the pod's terminated containers (or its last restart's).
std::optional<config::timestamp> finished_at(const json& pod) {
  std::optional<config::timestamp> best;
  for (const auto& cs : pod.value("status", json::object()).value("containerStatuses", json::array()))
    for (const char* which : {"state", "lastState"}) {
      const json t = cs.value(which, json::object()).value("terminated", json::object());
      if (auto at = config::parse_rfc3339(t.value("finishedAt", "")); at && (!best || *at > *best))
        best = at;
    }
  return best;
}

int restarts_of(const json& pod) {
  int n = 0;
  for (const auto& cs : pod.value("status", json::object()).value("containerStatuses", json::array()))
    n += cs.value("restartCount", 0);
  return n;
}

bool pod_ready(const json& pod) {
  for (const auto& c : pod.value("status", json::object()).value("conditions", json::array()))
    if (c.value("type", "") == "Ready") return c.value("status", "") == "True";
  return false;
}

/// "" when the Job is one we run, else the field and why not.
std::string unsupported_reason(const json& spec) {
  for (const char* k : {"parallelism", "completions"})
    if (spec.contains(k) && !(spec[k].is_number_integer() && spec[k].get<int64_t>() == 1))
      return std::string("spec.") + k + ": only 1 is run by the process kubelet's Job controller";
  if (spec.value("completionMode", "NonIndexed") != "NonIndexed")
    return "spec.completionMode: only NonIndexed is run by the process kubelet's Job controller";
  for (const char* k : {"podFailurePolicy", "successPolicy"})
    if (spec.contains(k)) return std::string("spec.") + k + ": not simulated by the process kubelet";
  const std::string rp = spec.value("template", json::object()).value("spec", json::object()).value("restartPolicy", "");
  if (rp != "Never" && rp != "OnFailure")
    return "spec.template.spec.restartPolicy: \"" + rp + "\": a Job's pods must be Never or OnFailure";
  return "";
}

}  // namespace

bool owned_by(const json& pod, const std::string& uid) {
  if (uid.empty()) return false;
  for (const auto& r : pod.value("metadata", json::object()).value("ownerReferences", json::array()))
    if (r.value("uid", "") == uid) return true;
  return false;
}

json job_pod(const json& job, const std::string& pod_suffix, const std::string& node_name) {
  const json& md = job["metadata"];
  const std::string name = md.value("name", ""), uid = md.value("uid", "");
  const json tmpl = job.value("spec", json::object()).value("template", json::object());
  const json tmd = tmpl.value("metadata", json::object());
  json labels = tmd.value("labels", json::object());
  labels["batch.kubernetes.io/controller-uid"] = uid;
  labels["batch.kubernetes.io/job-name"] = name;
  labels["controller-uid"] = uid;
  labels["job-name"] = name;
  json pmd = {{"name", name + "-" + pod_suffix},
              {"namespace", md.value("namespace", "")},
              {"labels", labels},
              {"ownerReferences", json::array({{{"apiVersion", "batch/v1"},
                                                {"kind", "Job"},
                                                {"name", name},
                                                {"uid", uid},
                                                {"controller", true},
                                                {"blockOwnerDeletion", true}}})}};
  if (tmd.contains("annotations")) pmd["annotations"] = tmd["annotations"];
  json spec = tmpl.value("spec", json::object());
  spec["nodeName"] = node_name;
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", pmd}, {"spec", spec}};
}

job_step decide_job(const json& job, const std::vector<json>& pods, config::timestamp now,
                    const std::string& pod_suffix, const job_settings& s) {
  job_step out;
  const json spec = job.value("spec", json::object());
  const json old = job.value("status", json::object());
  const std::string now_text = config::format_rfc3339(now);
  if (auto why = unsupported_reason(spec); !why.empty()) {
    out.unsupported = why;
    out.status = old;
    return out;
  }
  const bool on_failure =
      spec["template"]["spec"].value("restartPolicy", "") == "OnFailure";
  int succeeded = 0, failed = 0, active = 0, ready = 0, restarts = 0;
  std::vector<std::string> active_names;
  std::optional<config::timestamp> last_failure;
  for (const auto& p : pods) {
    const std::string phase = p.value("status", json::object()).value("phase", "");
    if (phase == "Succeeded") {
      ++succeeded;
    } else if (phase == "Failed") {
      ++failed;
      if (auto at = finished_at(p); at && (!last_failure || *at > *last_failure)) last_failure = at;
    } else if (!p["metadata"].contains("deletionTimestamp")) {
      ++active;
      active_names.push_back(p["metadata"].value("name", ""));
      if (pod_ready(p)) ++ready;
      if (on_failure) restarts += restarts_of(p);
    }
  }
  json st = old;
  for (const char* k : {"active", "ready", "succeeded", "failed"}) st.erase(k);
  auto counts = [&] {
    if (active) st["active"] = active;
    st["ready"] = ready;
    if (succeeded) st["succeeded"] = succeeded;
    if (failed) st["failed"] = failed;
  };
  const bool finished = condition_true(old, "Complete") || condition_true(old, "Failed");
  if (finished) {
    out.remove = active_names;  // a finished Job keeps no pod running
    counts();
    out.status = st;
    return out;
  }
  if (spec.value("suspend", false)) {
    counts();
    out.status = st;
    return out;
  }
  if (!st.contains("startTime")) st["startTime"] = now_text;
  const auto start = config::parse_rfc3339(st.value("startTime", "")).value_or(now);
  auto finish = [&](const char* reason, const std::string& message) {
    out.remove = active_names;
    json conds = st.value("conditions", json::array());
    conds.push_back(condition("FailureTarget", reason, message, now_text));
    conds.push_back(condition("Failed", reason, message, now_text));
    st["conditions"] = conds;
    active = 0;
    ready = 0;
    counts();
    out.status = st;
    return out;
  };
  if (succeeded > 0) {
    json conds = st.value("conditions", json::array());
    const std::string msg = "Reached expected number of succeeded pods";
    conds.push_back(condition("SuccessCriteriaMet", "CompletionsReached", msg, now_text));
    conds.push_back(condition("Complete", "CompletionsReached", msg, now_text));
    st["conditions"] = conds;
    st["completionTime"] = now_text;
    out.remove = active_names;
    active = 0;
    ready = 0;
    counts();
    out.status = st;
    return out;
  }
  if (spec.contains("activeDeadlineSeconds") && spec["activeDeadlineSeconds"].is_number_integer() &&
      now - start >= std::chrono::seconds(spec["activeDeadlineSeconds"].get<int64_t>()))
    return finish("DeadlineExceeded", "Job was active longer than specified deadline");
  const int limit = spec.value("backoffLimit", default_backoff_limit);
  if (failed + restarts > limit)
    return finish("BackoffLimitExceeded", "Job has reached the specified backoff limit");
  if (active == 0) {
    bool due = failed == 0 || !last_failure;
    if (!due) {
      auto delay = s.backoff_base;
      for (int i = 1; i < failed && delay < s.backoff_cap; ++i) delay *= 2;
      delay = std::min(delay, s.backoff_cap);
      due = now >= *last_failure + delay;
    }
    if (due) {
      out.create = job_pod(job, pod_suffix, s.node_name);
      active = 1;
    }
  }
  counts();
  out.status = st;
  return out;
}

bool restarts_after_exit(const std::string& restart_policy, int exit_code) {
  if (restart_policy == "Never") return false;
  if (restart_policy == "OnFailure") return exit_code != 0;
  return true;  // Always (the default)
}

std::string termination_message(const std::string& file_content, const std::string& log,
                                 const std::string& policy, int exit_code) {
  if (!file_content.empty())
    return file_content.size() > max_termination_message
               ? file_content.substr(file_content.size() - max_termination_message)
               : file_content;
  if (policy != "FallbackToLogsOnError" || exit_code == 0) return "";
  // The last 80 lines (a trailing newline ends the last line), then the last 2048 bytes.
  size_t start = log.size();
  size_t lines = 0;
  size_t end = log.size();
  if (end > 0 && log[end - 1] == '\n') --end;
  for (size_t i = end; i > 0; --i)
    if (log[i - 1] == '\n' && ++lines == max_log_lines) {
      start = i;
      break;
    }
  if (lines < max_log_lines) start = 0;
  std::string tail = log.substr(start);
  if (tail.size() > max_log_message) tail = tail.substr(tail.size() - max_log_message);
  return tail;
}

}  // namespace br::test::kubelet
