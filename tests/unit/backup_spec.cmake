# spec.backup (issue 21): model, defaults, validation rules with their field paths, 5-field cron.
br_test(unit_backup_spec
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backup_spec_test.cpp
  LIBS br_config
  LABELS "unit;backup")
