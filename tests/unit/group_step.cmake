# step(): the group engine's rules as table tests (actors/operator/decide/group_step.hpp).
br_test(unit_group_step
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/group_step_test.cpp
  LIBS br_operator_decide
  LABELS unit)
