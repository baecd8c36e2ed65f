// Kubernetes mode wiring: leader election gating the group source; on lease loss stop groups, then fail.
#pragma once

#include <caf/actor_system.hpp>

#include <chrono>
#include <memory>
#include <vector>

#include "actors/common/supervisor.hpp"
#include "actors/operator/kube/backup/backup_controller.hpp"
#include "actors/operator/kube/core/group_tls.hpp"
#include "actors/operator/kube/group_source.hpp"
#include "actors/operator/kube/restore/restore_controller.hpp"
#include "actors/operator/kube/core/lease_lock.hpp"

namespace br {

struct kube_mode_options {
  bool leader_elect = true;
  op::election_config election;  ///< ns, name, identity (POD_NAME) and the lease timings
  /// The group source's options; the guard and the leadership generation are filled in here,
  /// and site_io too unless one is given (tests).
  group_source_options source;
  /// Bound on stopping every group after the lease was lost (they write nothing meanwhile: the
  /// guard is cleared before the loss is reported).
  std::chrono::milliseconds lost_stop_timeout{std::chrono::seconds(5)};
  /// The backup controller (kube/backup/), started beside the group source while leading; its
  /// client, namespaces, lease guard and instance are the group source's (filled in there).
  bool backups = true;
  backup_ctl::controller_options backup;
  /// The restore controller (kube/restore/, spec.initFromBackup), started beside it; its client,
  /// namespaces, guard, instance and Job rendering are the backup controller's.
  bool restores = true;
  /// The group TLS controller (kube/core/group_tls.hpp, spec.tls: cert-manager Certificates and
  /// their Secrets copied, or the generated CA), started beside it; its client, namespaces,
  /// operator namespace, guard and instance are the group source's (filled in there).
  bool tls = true;
  group_tls::controller_options tls_options;
};

/// The root supervisor's children in Kubernetes mode: one "leadership" actor that runs the
/// leader elector (detached), starts the group source ("root/group_source") once leading and,
/// when the lease is lost, stops every group first and then fails with "leader lease lost" (the
/// root supervisor must then stop, so run the root with max_restarts = 0 and the process exits
/// non-zero, S8). On a clean stop: groups first, then the lease is released.
std::vector<child_spec> kube_mode_children(kube_mode_options o);

}  // namespace br
