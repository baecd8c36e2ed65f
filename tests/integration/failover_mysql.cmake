# The failover executor against real MySQL 9.7 (sandbox instances 4, 5 and 6 only).
br_test(integration_failover_mysql
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/failover_mysql_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/recording_platform.cpp
  LIBS br_actors_operator LABELS "integration;mysql" RUN_SERIAL TIMEOUT 1200)
