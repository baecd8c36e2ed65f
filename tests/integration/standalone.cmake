# bloodraven --standalone as a real process against sandbox MySQL instances 9 and 10 only.
br_test(integration_standalone
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/standalone_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_actors_common br_io_http br_io_mysql nlohmann_json::nlohmann_json
  LABELS "integration;mysql;process" DEPENDS bloodraven RUN_SERIAL TIMEOUT 600)
