# The ordered update of a Group Replication group under write load (issue 23, acceptance 4): the API
# simulator under the chart's RBAC, a simulated kubelet whose pod replacement restarts the member's
# real MySQL 9.7 server (sandbox instances 244-246), a writer recording every acknowledged write and
# a 100 ms quorum sampler on every member. Label gr; DISABLED in plain ctest (3 servers, a few
# minutes). Run: tools/test-layer.sh gr, or BR_SOURCE_DIR=$PWD build/tests/integration_kube_gr_rollout
br_test(integration_kube_gr_rollout
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_gr_rollout_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;mysql;gr" RUN_SERIAL TIMEOUT 1200)
if(TARGET integration_kube_gr_rollout)
  set_tests_properties(integration_kube_gr_rollout PROPERTIES DISABLED TRUE)
endif()
