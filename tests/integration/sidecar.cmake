# Real bloodraven-sidecar processes on real MySQL 9.7 (sandbox instances 7 and 8 only).
br_test(integration_sidecar
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/sidecar_process_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_actors_common br_io_http br_io_mysql nlohmann_json::nlohmann_json
  LABELS "integration;mysql;process" RUN_SERIAL DEPENDS bloodraven-sidecar TIMEOUT 600)
