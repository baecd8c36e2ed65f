# Deterministic simulation of the fencing/promotion protocol over the real pure decision functions.
br_test(dst_fencing
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dst_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/world.cpp
          ${PROJECT_SOURCE_DIR}/actors/sidecar/fencing/fencing_rules.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/decide/debounce.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/decide/evaluate.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/decide/promotion_gate.cpp
  LABELS dst
  TIMEOUT 300)
