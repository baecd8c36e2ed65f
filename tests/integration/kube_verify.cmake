# Backup verification in Kubernetes mode on the API simulator (issue 21, verification): the
# verification controller under the chart's RBAC, the real `bloodraven trigger-verification`,
# Jobs and pods played by the test. No MySQL; a few seconds.
br_test(integration_kube_verify
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_verify_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  DEPENDS bloodraven
  LABELS "integration;kube;backup" TIMEOUT 300)
