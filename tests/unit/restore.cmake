# spec.initFromBackup (issue 21): the spec's rules with their field paths, the bootstrap hold;
# the restore controller's pure decisions (source, target, phase machine) and its Job.
br_test(unit_restore_spec
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/restore_spec_test.cpp
  LIBS br_config
  LABELS "unit;backup")
br_test(unit_restore_controller
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/restore_controller_test.cpp
  LIBS br_actors_operator
  LABELS "unit;backup;kube")
