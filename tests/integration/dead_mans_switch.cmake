# The in-database dead man's switch against real MySQL 9.7 (sandbox instances 9 and 10 only).
br_test(integration_dead_mans_switch
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dead_mans_switch_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql LABELS "integration;mysql" RUN_SERIAL TIMEOUT 600)
