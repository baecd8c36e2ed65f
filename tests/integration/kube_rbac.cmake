# The API simulator enforcing the chart's RBAC for the operator's ServiceAccount (403 as a real
# API server), and the generated operator Secret copied to the operator's namespace (issue 19).
br_test(integration_kube_rbac
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_rbac_test.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;bootstrap" TIMEOUT 300)
