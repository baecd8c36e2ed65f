# Manual fence in Kubernetes mode (issue 20, acceptance 6): the API simulator with its simulated
# kubelet, three real MySQL 9.7 sites (sandbox instances 95-97 only), and the kubectl plugin's
# `fence on|off` through real kubectl: a fenced replica leaves the -replicas Service, the active
# primary is refused with the reason; then the planned-failover annotation: a bad one gets
# InvalidAnnotation and changes nothing, a good one stays on the object until the request ends.
br_test(integration_kube_manual_fence
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_manual_fence_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;mysql;process;planned" RUN_SERIAL TIMEOUT 600)
