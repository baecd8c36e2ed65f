# spec.initFromBackup in Kubernetes mode on the API simulator (issue 21): the group source (mock
# site_io, no MySQL) and the restore controller under the chart's RBAC; Jobs, pods and the target
# Deployment played by the test. About 15 s.
br_test(integration_kube_restore
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_restore_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/recording_platform.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;backup" TIMEOUT 120)
# spec.restoreInPlace in Kubernetes mode on the API simulator (issue 21): the group source (mock
# site_io), the reconciler (pod labels) with a kubelet simulation, and the restore controller under
# the chart's RBAC; the Job played by the test. The phases with an operator restart mid-way, the
# other sites restore-pending until their reclone on the restore's token succeeded, a failed Job
# kept with the group frozen, then lifted by the restore-lift annotation and restored again; a
# freeze for another site than the active one refused; Fencing that never completes ends at its
# (shortened) deadline with the freeze cancelled. About 48 s.
br_test(integration_kube_restore_in_place
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_restore_in_place_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/recording_platform.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;backup" TIMEOUT 300)
