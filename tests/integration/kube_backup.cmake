# Backups in Kubernetes mode on the API simulator (issue 21, acceptance 2 at the API level): the
# backup controller under the chart's RBAC, the real `bloodraven trigger-backup`, Jobs and pods
# played by the test. No MySQL; a few seconds.
br_test(integration_kube_backup
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_backup_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  DEPENDS bloodraven
  LABELS "integration;kube;backup" TIMEOUT 300)
