# Dragonfly in Kubernetes mode (issue 24, acceptance 5): the API simulator under the chart's RBAC
# with its simulated kubelet (StatefulSet pods as objects), two real MySQL 9.7 sites (sandbox
# instances 256-257 only) and two real Valkey 9 servers standing in for the cache pods'
# Dragonfly: the manager labels the master's pod, follows a cache kill -9 (never two pods
# selected), status.dragonfly follows; enabled flipping off deletes the objects. Needs root
# (sandbox chroot).
br_test(integration_kube_dragonfly
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_dragonfly_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/valkey_server.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim br_io_redis yaml-cpp
  LABELS "integration;kube;dragonfly;valkey;mysql;process" RUN_SERIAL TIMEOUT 600)
