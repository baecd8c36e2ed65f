# The promotion gate with real processes: operator + two sidecars on MySQL 9.7 (instances 7, 8 only).
br_test(integration_gate_process
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gate_process_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_actors_common br_io_http br_io_mysql nlohmann_json::nlohmann_json
  LABELS "integration;mysql;process" RUN_SERIAL DEPENDS bloodraven bloodraven-sidecar TIMEOUT 600)
