# RBAC in the API simulator (tests/support/kube_sim/rbac.hpp): the authoriser's table, and the
# chart's rendered RBAC for the operator's ServiceAccount (least privilege, issue 19).
br_test(unit_kube_rbac
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_rbac_test.cpp
  LIBS br_kube_sim
  LABELS unit bootstrap)
