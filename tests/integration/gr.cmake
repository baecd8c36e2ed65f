# Group Replication on real MySQL 9.7 (issue 22 groundwork; docs/group-replication.md): three fresh sandbox
# servers (instances 181-183) bootstrapped, joined (one through a clone), kill -9 of the primary, election,
# rejoin. Label gr; DISABLED in plain ctest (2.5-4 min, 3 servers). Run:
#   BR_SOURCE_DIR=$PWD bash tests/integration/gr_sandbox_test.sh
add_test(NAME integration_gr_sandbox COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/gr_sandbox_test.sh)
set_tests_properties(integration_gr_sandbox PROPERTIES LABELS "integration;mysql;gr" RUN_SERIAL TRUE
  TIMEOUT 900 ENVIRONMENT "${BR_TEST_ENV}" DISABLED TRUE)

# decide/gr_view's cross_validate on the real member tables of such a group, through a kill -9 of the
# primary (plus a simulated liar and a simulated one-member reach). Label gr; DISABLED (about 1.5 min).
# Run: BR_SOURCE_DIR=$PWD build/tests/integration_gr_view
br_test(integration_gr_view
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_view_mysql_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
          ${PROJECT_SOURCE_DIR}/actors/operator/decide/gr_view.cpp
  LABELS "integration;mysql;gr" RUN_SERIAL TIMEOUT 600)
if(TARGET integration_gr_view)
  set_tests_properties(integration_gr_view PROPERTIES DISABLED TRUE)
endif()
