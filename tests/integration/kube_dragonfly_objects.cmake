# Dragonfly's Kubernetes objects on the API simulator under the chart's RBAC (issue 24,
# acceptance 5; no MySQL, no cache server): the reconciler creates them for an enabled group
# and deletes the group's own (only) when spec.dragonfly is disabled or removed.
br_test(integration_kube_dragonfly_objects
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_dragonfly_objects_test.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;dragonfly;unit" TIMEOUT 120)
