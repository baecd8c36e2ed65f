br_test(integration_process
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/process_test.cpp ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_io_http nlohmann_json::nlohmann_json
  LABELS "integration;process" DEPENDS bloodraven bloodraven-sidecar TIMEOUT 300)
