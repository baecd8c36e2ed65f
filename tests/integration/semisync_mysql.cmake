# Semi-synchronous replication on real MySQL 9.7 (issue 25): the rendered my.cnf options, a
# commit acknowledged and one blocked without a receiver. Sandbox instances 270 and 271.
br_test(integration_semisync_mysql
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/semisync_mysql_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql br_config_render LABELS "integration;mysql;semisync" RUN_SERIAL TIMEOUT 600)
