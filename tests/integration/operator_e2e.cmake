# The operator's real group actors end to end against real MySQL 9.7 (sandbox instances 4, 5, 6 only).
br_test(integration_operator_e2e
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/operator_e2e_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_actors_operator LABELS "integration;mysql" RUN_SERIAL TIMEOUT 900)
