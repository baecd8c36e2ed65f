# Kubernetes mode end to end: the API simulator (with a simulated kubelet) and real MySQL 9.7 sites
# (sandbox instances 41-42 only): apply, failover steering, no-op edits, OrderedUpdate with a handoff.
br_test(integration_kube_e2e
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_e2e_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;mysql" RUN_SERIAL TIMEOUT 600)
