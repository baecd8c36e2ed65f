# Group Replication members' identities in Kubernetes mode on the API simulator (no MySQL): the
# operator, under the chart's RBAC (with the escalation check), applies each site's
# ServiceAccount/Role/RoleBinding naming its live pods; the sidecar's identity under the applied
# policy patches its own Pod only; the operator's pod watch wakes the group's pollers.
br_test(integration_kube_gr_member_rbac
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_gr_member_rbac_test.cpp
  LIBS br_ts_kube_harness br_actors_operator br_actors_sidecar br_kube_sim yaml-cpp
  LABELS "integration;kube;gr" TIMEOUT 300)
