# The operator and sidecar APIs over mutual TLS with real processes (issue 26): operator
# (--standalone) + two sidecars with --tls-* flags, no MySQL; and HAProxy (the standalone router)
# checking the sidecars over TLS. About 10 s.
br_test(integration_api_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/api_tls_process_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_actors_common br_config_render br_io_http br_io_crypto nlohmann_json::nlohmann_json
  LABELS "integration;process;tls" DEPENDS bloodraven bloodraven-sidecar TIMEOUT 300)
