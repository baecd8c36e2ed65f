# Backup engine (issue 21): the PITR replay plan and stop-bound checks, the mysqldump header
# parser, backup.json and result lines, the option file text (pure, table tests) and the tool
# pipeline runner (real short-lived processes: deadline kills the group, bounded stderr);
# verification's checks and its child_group (SIGTERM, then SIGKILL of the whole group); the
# refusals and dropped schemas of `restore --replace`.
br_test(unit_backup
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backup_pitr_plan_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/backup_parts_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/backup_pipeline_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/backup_verify_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/backup_replace_test.cpp
  LIBS br_io_backup LABELS "unit;backup")
