# Group Replication members' identities (issue 22): the pod annotation tracker, the reconciler's
# member Role plan and the simulator's RBAC escalation check (pure).
br_test(unit_gr_member_rbac
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_member_rbac_test.cpp
  LIBS br_actors_operator br_kube_sim
  LABELS "unit;gr;kube")
