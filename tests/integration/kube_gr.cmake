# Group Replication in Kubernetes mode (issue 22, acceptance 5): the API simulator under the chart's
# RBAC, a simulated kubelet and three real MySQL 9.7 members (sandbox instances 201-203): GR objects
# rendered, bootstrap from empty servers, pod labels (-primary/-replicas/-readers) following the
# verdict through a kill -9 of the primary. Label gr; DISABLED in plain ctest (3 servers, about
# 2 min). Run: tools/test-layer.sh gr, or BR_SOURCE_DIR=$PWD build/tests/integration_kube_gr
br_test(integration_kube_gr
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_gr_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;mysql;gr" RUN_SERIAL TIMEOUT 600)
if(TARGET integration_kube_gr)
  set_tests_properties(integration_kube_gr PROPERTIES DISABLED TRUE)
endif()
