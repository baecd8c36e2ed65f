# Operator status API + /ws/status over real loopback sockets (no MySQL).
br_test(integration_status_api
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/status_api_test.cpp
  LIBS br_actors_operator LABELS integration TIMEOUT 300)
