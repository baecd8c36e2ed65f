# Deterministic simulation of the fencing/promotion protocol over the real pure decision functions.
set(BR_DST_WORLD
  ${CMAKE_CURRENT_LIST_DIR}/world.cpp
  ${CMAKE_CURRENT_LIST_DIR}/world_semisync.cpp
  ${PROJECT_SOURCE_DIR}/actors/sidecar/fencing/fencing_rules.cpp
  ${PROJECT_SOURCE_DIR}/actors/operator/decide/debounce.cpp
  ${PROJECT_SOURCE_DIR}/actors/operator/decide/evaluate.cpp
  ${PROJECT_SOURCE_DIR}/actors/operator/decide/promotion_gate.cpp
  ${PROJECT_SOURCE_DIR}/actors/operator/decide/semisync_gate.cpp
  ${PROJECT_SOURCE_DIR}/actors/operator/decide/semisync_in_step.cpp
  ${PROJECT_SOURCE_DIR}/messages/gtid_set.cpp)
br_test(dst_fencing
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dst_test.cpp ${BR_DST_WORLD}
  LABELS dst
  TIMEOUT 300)
# Semi-synchronous replication and gate rule 4 (issue 25).
br_test(dst_semisync
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dst_semisync_test.cpp ${BR_DST_WORLD}
  LABELS "dst;semisync"
  TIMEOUT 300)
