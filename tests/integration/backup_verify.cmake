# `bloodraven backup verify` on real MySQL 9.7 (issue 21, verification): the real process starts
# its own throwaway mysqld 9.7 in the sandbox chroot, restores through the restore path, replays
# the archive, checks; after every case no mysqld of its scratch directory runs and the directory
# is gone. Sandbox instance 194 (BR_VERIFY_SOURCE_INSTANCE) is the source, reset at the start and
# stopped after. Not in the default run (label backup, like integration_backup); run:
#   tools/test-layer.sh backup   or   build/tests/integration_backup_verify  (root)
br_test(integration_backup_verify
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backup_verify_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql br_io_binlog br_sidecar_archive
  LABELS "integration;mysql;process;backup" RUN_SERIAL DEPENDS bloodraven TIMEOUT 900)
if(TARGET integration_backup_verify)
  set_tests_properties(integration_backup_verify PROPERTIES DISABLED TRUE)
endif()
