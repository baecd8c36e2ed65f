# io/mysql against real MySQL 9.7 from tools/mysql-sandbox (instances 1+2 shared, 3 own).
br_test(integration_mysql
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/mysql_probe_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/mysql_commands_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/mysql_faults_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql LABELS "integration;mysql" RUN_SERIAL TIMEOUT 900)
