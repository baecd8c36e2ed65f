# Kubernetes mode under policy Safe with real sidecars (sandbox instances 46-47 only): the keys
# Secret the operator generates, its signed view pushes, and a kill -9 promoted through gate rule 2.
br_test(integration_kube_gate
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_gate_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;mysql;process" RUN_SERIAL DEPENDS bloodraven-sidecar TIMEOUT 600)
