# Status API wire shapes (pure) and the WebSocket Origin list.
br_test(unit_status_shapes SOURCES ${CMAKE_CURRENT_LIST_DIR}/status_shapes_test.cpp
  LIBS br_actors_operator LABELS unit)
# PITR progress folded from sidecar reports (pure).
br_test(unit_pitr_status SOURCES ${CMAKE_CURRENT_LIST_DIR}/pitr_status_test.cpp
  LIBS br_actors_operator LABELS unit)
# The admin requests' checks (pure but for the group table).
br_test(unit_admin_request SOURCES ${CMAKE_CURRENT_LIST_DIR}/admin_request_test.cpp
  LIBS br_actors_operator LABELS unit)
