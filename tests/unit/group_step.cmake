# step(): the group engine's rules as table tests (actors/operator/decide/group_step.hpp); the
# bootstrap / auto-clone / reclone rows of issue 19 in group_step_bootstrap_test.cpp.
br_test(unit_group_step
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/group_step_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/group_step_bootstrap_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/group_step_semisync_test.cpp
  LIBS br_operator_decide
  LABELS unit)
