# HTTP adapter: Beast server, CAF ask bridge and libcurl client over real loopback sockets.
br_test(integration_http
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/http_server_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/http_ask_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/http_client_test.cpp
  LIBS br_io_http
  LABELS integration
  TIMEOUT 180)
