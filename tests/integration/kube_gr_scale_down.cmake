# The scale-down of a Group Replication group (issue 23): the API simulator under the chart's RBAC,
# a simulated kubelet and four real MySQL 9.7 members (sandbox instances 275-278): a removed site's
# member is stopped (STOP GROUP_REPLICATION) and out of every view before its Deployment is deleted,
# a leave that would break the majority waits, the primary is handed over before it leaves; no
# acknowledged write lost. Label gr; DISABLED in plain ctest (4 servers, about 3 minutes).
# Run: tools/test-layer.sh gr, or BR_SOURCE_DIR=$PWD build/tests/integration_kube_gr_scale_down
br_test(integration_kube_gr_scale_down
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_gr_scale_down_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;mysql;gr" RUN_SERIAL TIMEOUT 1200)
if(TARGET integration_kube_gr_scale_down)
  set_tests_properties(integration_kube_gr_scale_down PROPERTIES DISABLED TRUE)
endif()
