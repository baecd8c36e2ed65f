// Process kubelet (tests): a SIMULATION of the batch/v1 Job controller, as pure decisions
// (table-tested in kube_kubelet_job_unit_test.cpp; kubelet.cpp applies them through the API).
// For one Job and the pods that name it in their ownerReferences: whether to create a pod from
// the Job's template, which active pods to delete, and the Job's status, following the real
// controller (Kubernetes 1.31+):
//   - one pod at a time (parallelism and completions 1; anything else is not run, said why);
//   - restartPolicy Never: every Failed pod counts; a new pod after the controller's back-off
//     (10 s doubling, capped at 6 min, from the last failure); OnFailure: the kubelet restarts the
//     container in place and its restarts count as failures;
//   - more failures than spec.backoffLimit (default 6): FailureTarget + Failed, reason
//     BackoffLimitExceeded, active pods deleted; spec.activeDeadlineSeconds passed since
//     status.startTime: the same with reason DeadlineExceeded;
//   - a Succeeded pod: SuccessCriteriaMet + Complete, completionTime;
//   - status.active/ready/succeeded/failed counted from the pods (zero counts omitted).
// Not simulated: suspend (a suspended Job gets no pod), podFailurePolicy, successPolicy, Indexed
// completion, ttlSecondsAfterFinished, pod-tracking finalizers. Deleting a Job deletes its pods
// through their ownerReferences (the API simulator's garbage collector).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/rfc3339.hpp"

namespace br::test::kubelet {

using json = nlohmann::json;

struct job_settings {
  std::chrono::milliseconds backoff_base{std::chrono::seconds(10)};
  std::chrono::milliseconds backoff_cap{std::chrono::minutes(6)};
  std::string node_name = "process-kubelet";
};

struct job_step {
  std::optional<json> create;       ///< a pod to create (from the template)
  std::vector<std::string> remove;  ///< active pods to delete
  json status = json::object();     ///< the Job's .status now
  std::string unsupported;          ///< non-empty: not run, with the field and why
};

/// Default backoffLimit of a Job.
inline constexpr int default_backoff_limit = 6;

/// `pods`: the pods whose ownerReferences name this Job's uid. `pod_suffix`: the random part of
/// a new pod's name (`<job>-<suffix>`, as generateName gives).
job_step decide_job(const json& job, const std::vector<json>& pods, config::timestamp now,
                    const std::string& pod_suffix, const job_settings& s = {});

/// The pod the controller creates for `job`: the template's metadata and spec, the Job's labels
/// (batch.kubernetes.io/job-name, batch.kubernetes.io/controller-uid and the legacy job-name,
/// controller-uid), an ownerReference (controller, blockOwnerDeletion) and spec.nodeName.
json job_pod(const json& job, const std::string& pod_suffix, const std::string& node_name);

/// True when the pod is owned (ownerReferences uid) by the object with `uid`.
bool owned_by(const json& pod, const std::string& uid);

// ---- container exits, as the kubelet handles them ------------------------------------------

/// Whether a container that exited with `exit_code` is started again under `restart_policy`
/// (Always: yes; OnFailure: when non-zero; Never: no).
bool restarts_after_exit(const std::string& restart_policy, int exit_code);

inline constexpr std::size_t max_termination_message = 4096;  ///< bytes of the file kept
inline constexpr std::size_t max_log_message = 2048;          ///< bytes of the log tail kept
inline constexpr std::size_t max_log_lines = 80;              ///< lines of the log tail kept

/// The termination message a container leaves: the file at terminationMessagePath (its last
/// 4096 bytes); with policy FallbackToLogsOnError, when the file is empty and the container
/// failed (exit != 0), the last 80 lines of its log, at most 2048 bytes.
std::string termination_message(const std::string& file_content, const std::string& log,
                                 const std::string& policy, int exit_code);

}  // namespace br::test::kubelet
