# Group Replication quorum loss and guarded recovery in Kubernetes mode (issue 23, acceptance 1):
# the API simulator under the chart's RBAC, a simulated kubelet, three real MySQL 9.7 members
# (sandbox instances 221-223) and tools/kubectl-bloodraven through real kubectl: two members
# killed -> Blocked, nothing done; `group recover` -> writes on the survivor, the others rejoin;
# total outage with one member down -> refused; all back -> re-bootstrap. Label gr; DISABLED in
# plain ctest (3 servers, several minutes). Run: tools/test-layer.sh gr, or
# BR_SOURCE_DIR=$PWD build/tests/integration_kube_gr_quorum
br_test(integration_kube_gr_quorum
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_gr_quorum_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;mysql;process;gr" RUN_SERIAL TIMEOUT 900)
if(TARGET integration_kube_gr_quorum)
  set_tests_properties(integration_kube_gr_quorum PROPERTIES DISABLED TRUE)
endif()
