# spec.restoreInPlace's arming and freeze (issue 21): the pure rules (decide/restore_freeze) and
# step() rows: the token recorded before the fence and used once, and one row per rule that starts
# a plan (each shown acting unfrozen) doing nothing while frozen.
br_test(unit_restore_freeze
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/restore_freeze_test.cpp
  LIBS br_operator_decide
  LABELS "unit;backup")
