// Process kubelet (tests): runs the pods of rendered Deployments and Jobs for real on this machine.
//
// SIMULATED here: the Deployment controller (one pod per Deployment, Recreate on a new
// generation), the Job controller (job_controller.hpp: one pod at a time from the Job's template,
// backoffLimit, activeDeadlineSeconds, status and conditions as the real one writes them), the
// kubelet's bookkeeping (pod status written to the API simulator), the CNI plugin
// and kube-proxy (tests/support/process_kubelet/pod_network.hpp) and cluster DNS (a hosts file).
// REAL: everything inside a pod. Each pod has its own network namespace and IP and its own private
// mount namespace (held by a "pause" process) where its volumes are bind-mounted at the rendered
// mountPaths: PVCs are host directories that outlive pods, ConfigMap/Secret volumes are files
// (Secret values decoded) re-materialised at every container start and, while the pod runs,
// rewritten in place when their source changes (checked every tick, each changed file replaced
// by rename: the kubelet's periodic volume sync, here faster than its ~1 min; files whose key
// disappeared are not removed, and no ..data symlink swap: each file changes on its own), emptyDirs
// live as long as the pod. The mysql container (image mysql:*) is mysqld 9.7 from the sandbox chroot
// (tools/mysql-sandbox) started through mysql-entrypoint.sh (the official image's documented first
// start); the sidecar container (image containing "sidecar") is the built bloodraven-sidecar.
// Containers are restarted when they exit (restartPolicy Always, backoff 0.5 s doubling to 8 s);
// readiness is the container's tcpSocket/httpGet readinessProbe, probed from the host.
// initContainers run one after the other to completion before the containers (a failed one is
// restarted with backoff, the pod stays Pending, Initialized False). A mysql-image container's
// `command` replaces the image's entrypoint and runs inside the chroot as given.
// Not implemented (refused or ignored, as said): liveness probes and preStop hooks (ignored),
// `command` of the sidecar image (refused: CreateContainerError), images other than the three
// here (refused), resource limits (mysqld gets the sandbox's memory settings instead),
// readOnlyRootFilesystem/seccomp/capabilities (ignored; runAsUser/runAsGroup/fsGroup are applied).
// The operator's image (a name containing "bloodraven", not "sidecar": backup/cleanup/restore
// Jobs) is the built `bloodraven` binary run on the host's root in the pod's namespaces;
// `command` may only be `bloodraven` (the image's PATH). The image's MySQL 9.7 client (mysqldump,
// mysql, mysqlbinlog) is SIMULATED by the sandbox chroot: the container gets
// BLOODRAVEN_TOOLS_CHROOT=<chroot> (unless its env sets it) and, to enter it under its runAsUser,
// the ambient capability CAP_SYS_CHROOT; inside the chroot the pod's hosts file is /etc/hosts and
// a pod-private directory is /tmp.
// Pods of restartPolicy Never/OnFailure (Jobs) end: a container is not restarted after an exit
// (OnFailure: after exit 0), its termination message is the file bind-mounted at
// terminationMessagePath (default /dev/termination-log; FallbackToLogsOnError: the log tail when
// the file is empty and the exit non-zero), and once every container has terminated the pod is
// Succeeded or Failed, its processes and network are gone and its API object stays.
// Every command has a timeout; stop() and the destructor remove every process, mount namespace,
// network namespace, veth, iptables chain and host mount point this kubelet made; cleanup() does
// the same for what a crashed previous run left behind (state dir /tmp/brk-kubelet by default).
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/types.h>

#include "io/kube/client.hpp"
#include "tests/support/process_kubelet/job_controller.hpp"
#include "tests/support/process_kubelet/pod_config.hpp"

namespace br::test::kubelet {

struct options {
  std::string ns = "default";
  std::string state_dir = "/tmp/brk-kubelet";  ///< PVCs, pod dirs, logs, hosts file
  /// Where start() copies the sidecar and bloodraven binaries (cleanup() removes it): not under
  /// /tmp, which a Job container's /tmp emptyDir hides inside its pod.
  std::string binaries_dir = "/var/tmp/brk-kubelet-bin";
  std::string chroot;              ///< the sandbox chroot (<source>/.sandbox/root)
  std::string sidecar_binary;      ///< <build>/actors/bloodraven-sidecar (both copied by start())
  std::string bloodraven_binary;   ///< <build>/actors/bloodraven (the operator image's binary)
  std::string entrypoint_script;   ///< <source>/tests/support/process_kubelet/mysql-entrypoint.sh
  /// Appended to every mysqld invocation (BRK_MYSQLD_EXTRA_ARGS): memory, as the sandbox does.
  std::string mysqld_extra_args = "--innodb-buffer-pool-size=64M --innodb-redo-log-capacity=16M";
  /// Services that stand for processes on the host (e.g. the operator "bloodraven" port 8082):
  /// a ClusterIP and DNS name whose port is DNATed to gateway_ip:host_port.
  struct host_service {
    std::string name, ns;
    int port = 0, host_port = 0;
  };
  std::vector<host_service> host_services;
  std::chrono::milliseconds tick{200};
  std::chrono::seconds max_grace{20};  ///< bound on terminationGracePeriodSeconds
  /// The Job controller's settings (its pod-failure backoff: 10 s doubling, as the real one).
  job_settings jobs;
  /// From BR_SOURCE_DIR / BR_BINARY_DIR (the test environment).
  static options from_test_env();
};

struct container_view {
  pid_t pid = -1;
  int restarts = 0;
  bool ready = false;
  std::string waiting_reason, waiting_message;
};

class process_kubelet {
 public:
  process_kubelet(std::shared_ptr<kube::client> c, options o);
  ~process_kubelet();  ///< stop()
  process_kubelet(const process_kubelet&) = delete;
  process_kubelet& operator=(const process_kubelet&) = delete;

  /// cleanup() of leftovers, then the host network, the hosts file and the watch thread.
  /// False (and `error()`) when the host network cannot be set up.
  bool start();
  /// Stops every pod (SIGTERM, SIGKILL after the bounded grace period), removes the networks and
  /// the state directory (PVCs included). Idempotent.
  void stop();
  /// Crash-safe removal of what a previous run under `state_dir` left behind.
  static void cleanup(const std::string& state_dir);
  std::string error() const;

  std::string hosts_file() const { return opts_.state_dir + "/hosts"; }
  /// Host directory of a PersistentVolumeClaim (created on first use, kept across pods).
  std::string pvc_dir(const std::string& claim) const;
  /// Empties a PVC's directory (a lost volume); the running pod keeps its mount of it.
  void wipe_pvc(const std::string& claim);
  /// A lost node with its local volume: every pod mounting the claim is killed at once (SIGKILL,
  /// no grace: nothing written on shutdown) and deleted through the API, then the claim's
  /// directory is emptied, all before the next tick, so the Deployment's next pod starts on an
  /// empty volume (its init containers included).
  void lose_pvc(const std::string& claim);

  /// A node that cannot restart the container for a while (a slow node, an image pull, a
  /// CrashLoopBackOff): its next start after an exit waits until `until_from_now` has passed
  /// (release with 0s). Applies to the Deployment's current pod.
  void hold_restart(const std::string& deployment, const std::string& container,
                    std::chrono::milliseconds until_from_now);
  /// A partition of MySQL traffic: inside the Deployment's pod network namespace, TCP to and
  /// from port 3306 of the pod is dropped for packets from/to `peer_ips` (both directions, so no
  /// data of an open replication connection gets through). Other ports (the sidecar) and the
  /// host (the operator, the Services from the host) are untouched. `cut=false` removes it.
  /// False + error() on failure.
  bool cut_mysql(const std::string& deployment, const std::vector<std::string>& peer_ips, bool cut);

  /// Of the Deployment's current pod; nullopt / "" when it has none.
  std::string pod_name(const std::string& deployment) const;
  std::string pod_ip(const std::string& deployment) const;
  std::optional<container_view> container(const std::string& deployment,
                                          const std::string& container) const;
  std::string container_log(const std::string& deployment, const std::string& container) const;
  /// The log of a container of a Job's pod (the pod named, running or ended); "" when unknown.
  std::string job_container_log(const std::string& pod, const std::string& container) const;
  /// "" when the Service has no ClusterIP (yet).
  std::string service_ip(const std::string& service, const std::string& ns = {}) const;
  /// Files rewritten in running pods because their ConfigMap/Secret changed (see
  /// refresh_projected_volumes).
  int volume_updates() const { return volume_updates_; }

 private:
  struct pod_state;
  void loop();
  void tick();
  void stop_pod(pod_state& p, bool delete_object);
  void run_pod(pod_state& p, const nlohmann::json& api_pod);
  bool create_sandbox(pod_state& p, std::string& err);
  bool materialise_volumes(pod_state& p, std::string& err);
  /// The files of one configMap/secret/projected volume `v` written under the pod's volume
  /// directory (with `changed_only`, only those whose content differs, counted in
  /// volume_updates_); false with `err` when its source is missing.
  bool project_files(pod_state& p, const nlohmann::json& v, const pod_refs& refs, bool changed_only,
                     std::string& err);
  /// Every tick of a running pod: its configMap/secret/projected volumes brought up to date.
  void refresh_projected_volumes(pod_state& p);
  void start_container(pod_state& p, bool init, size_t i);
  void probe(pod_state& p);
  bool write_pod_status(pod_state& p, const nlohmann::json& api_pod);  ///< true: the API has it
  void sync_services(const nlohmann::json& services);
  void run_jobs(const nlohmann::json& jobs, std::map<std::string, nlohmann::json>& api_pods);
  void adopt_job_pod(const nlohmann::json& api_pod);
  int allocate_index();

  std::shared_ptr<kube::client> c_;
  options opts_;
  std::atomic<bool> stop_{false};
  std::atomic<int> volume_updates_{0};
  bool started_ = false;
  std::thread thread_;
  mutable std::mutex mx_;
  std::string error_;
  std::map<std::string, std::unique_ptr<pod_state>> pods_;  // by deployment name, "job/<pod>"
  std::mt19937 random_{std::random_device{}()};
  std::map<std::string, int64_t> pod_seq_;
  std::map<std::string, std::string> deployment_status_written_;
  std::map<std::string, std::string> cluster_ips_;  // "ns/name" -> IP
  std::string rules_, hosts_;
  nlohmann::json secrets_, configmaps_, pvcs_;  // this tick's lists
};

/// Makes the calling thread, and the threads it creates afterwards, resolve names through
/// `hosts_file` (bind-mounted over /etc/hosts in a private mount namespace of this thread): how the
/// operator in a test process sees the cluster DNS names. False + errno text on failure.
bool use_cluster_dns(const std::string& hosts_file, std::string& err);

}  // namespace br::test::kubelet
