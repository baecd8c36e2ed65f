#!/usr/bin/env bash
# tools/kubelet-tests.sh -- the process-kubelet suites (label `kubelet`, DISABLED in plain ctest
# because they need root, the bridge brk0 and 3-4 minutes to half an hour):
#   integration_kube_kubelet      rendered pods run for real (about 1.5 min)
#   integration_kube_kubelet_e2e  3 sites from empty PVCs: bootstrap, failover through the real
#                                 sidecars, auto-clone of a lost PVC, reclone through
#                                 `kubectl bloodraven reclone` (about 8 min)
#   integration_kube_kubelet_backup  2 sites; the backup and cleanup Jobs run on the kubelet's Job
#                                 controller SIMULATION (real `bloodraven backup run|delete`),
#                                 PVC and S3 (radosgw) profiles, retention, a failing Job, and
#                                 the initFromBackup restore Job (about 2.5-3 min)
#   integration_kube_kubelet_tls  spec.tls: a renewed TLS Secret reaches the running pod's files and
#                                 mysqld reloads on the sidecar's word, no restart (about 40 s)
#   integration_kube_kubelet_tls_e2e  spec.tls: the operator bootstraps 2 sites with every MySQL
#                                 session and the replication channel verified (about 30 s)
#   integration_kube_kubelet_api_tls  the operator/sidecar APIs over mutual TLS: 2 sites bootstrap,
#                                 forged identities refused, a renewed site Secret served without
#                                 a restart (about 55 s)
# Usage: tools/kubelet-tests.sh [--build-dir DIR] [--no-build] [--repeat N] [TEST...]
#   TEST: any name above (default: all). --repeat runs each N times and stops at the first
#   failure. Phase timings of the e2e are printed (log level message).
set -euo pipefail
ROOT=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd -P)
BUILD=${BR_BUILD_DIR:-$ROOT/build}
BUILD_IT=1
REPEAT=1
TESTS=()
while (( $# )); do
  case $1 in
    --build-dir) BUILD=$(realpath -m -- "$2"); shift 2 ;;
    --no-build) BUILD_IT=0; shift ;;
    --repeat) REPEAT=$2; shift 2 ;;
    -h | --help) sed -n '2,21p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "kubelet-tests.sh: unknown option $1" >&2; exit 2 ;;
    *) TESTS+=("$1"); shift ;;
  esac
done
(( ${#TESTS[@]} )) || TESTS=(integration_kube_kubelet integration_kube_kubelet_e2e integration_kube_kubelet_backup
                          integration_kube_kubelet_tls integration_kube_kubelet_tls_e2e
                          integration_kube_kubelet_api_tls)
[[ $EUID -eq 0 ]] || { echo "kubelet-tests.sh: must run as root" >&2; exit 2; }
if (( BUILD_IT )); then
  [[ -f $BUILD/build.ninja ]] || { echo "kubelet-tests.sh: $BUILD is not a configured Ninja build dir" >&2; exit 2; }
  ninja -C "$BUILD" -j2 "${TESTS[@]}" bloodraven-sidecar bloodraven
fi
SANDBOX=${BR_SANDBOX_DIR:-$ROOT/.sandbox}
if [[ ! -x $SANDBOX/root/usr/sbin/mysqld ]]; then
  # The first `up` debootstraps the chroot the kubelet runs mysqld from; no instance is kept.
  "$ROOT/tools/mysql-sandbox" up-ids 90 && "$ROOT/tools/mysql-sandbox" stop 90
fi
export BR_SOURCE_DIR=$ROOT BR_BINARY_DIR=$BUILD
export UBSAN_OPTIONS="suppressions=$ROOT/tests/support/ubsan.supp:print_stacktrace=1:halt_on_error=1"
for t in "${TESTS[@]}"; do
  for (( i = 1; i <= REPEAT; i++ )); do
    start=$(date +%s)
    if timeout 1800 "$BUILD/tests/$t" --log_level=message; then
      echo "kubelet-tests.sh: $t run $i/$REPEAT PASS in $(( $(date +%s) - start )) s"
    else
      echo "kubelet-tests.sh: $t run $i/$REPEAT FAIL after $(( $(date +%s) - start )) s"
      exit 1
    fi
  done
done
