# The MysqlFailoverGroup CRD against the operator's validation and defaults (charts/bloodraven/crds).
br_test(unit_crd_sync
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/crd_sync_test.cpp
  LIBS br_config
  LABELS unit)
