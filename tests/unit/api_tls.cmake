# TLS for the sidecar and operator APIs (issue 26): who a client certificate stands for
# (actors/common/peer_identity, compiled in directly) and the --tls-* flags (config/api_tls).
br_test(unit_api_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/api_tls_test.cpp
          ${PROJECT_SOURCE_DIR}/actors/common/peer_identity.cpp
  LIBS br_config
  LABELS "unit;tls")
