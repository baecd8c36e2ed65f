# Binlog archiver (PITR) on real MySQL 9.7 (sandbox instances 51 and 52 only): scans, the manifest
# against the server's own Previous_gtids, a replay of the archive into a fresh server, and the
# real bloodraven-sidecar process archiving on its own.
br_test(integration_binlog_archiver
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/binlog_archiver_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_actors_sidecar br_io_binlog br_io_http nlohmann_json::nlohmann_json
  LABELS "integration;mysql;process" RUN_SERIAL DEPENDS bloodraven-sidecar TIMEOUT 600)
