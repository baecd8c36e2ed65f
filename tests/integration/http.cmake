# HTTP adapter: Beast server, CAF ask bridge and libcurl client over real loopback sockets.
br_test(integration_http
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/http_server_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/http_ask_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/http_client_test.cpp
  LIBS br_io_http
  LABELS integration
  TIMEOUT 180)
# The same server over TLS (server_options tls_*): the piece the status webhook and issue 26 use.
br_test(integration_http_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/http_tls_test.cpp
  LIBS br_io_http br_io_crypto
  LABELS "integration;tls;webhook"
  TIMEOUT 120)
# Client certificates on that server and the client's TLS files (issue 26: the sidecar and
# operator APIs with mutual TLS).
br_test(integration_http_mtls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/http_mtls_test.cpp
  LIBS br_io_http br_io_crypto
  LABELS "integration;tls"
  TIMEOUT 120)
