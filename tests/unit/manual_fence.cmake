# Manual fence / unfence of a site (issue 20): the pure decision (decide/manual_fence) and its
# rows in step().
br_test(unit_manual_fence
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/manual_fence_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/group_step_fence_test.cpp
  LIBS br_operator_decide
  LABELS "unit;planned")
