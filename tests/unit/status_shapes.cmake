# Status API wire shapes (pure) and the WebSocket Origin list.
br_test(unit_status_shapes SOURCES ${CMAKE_CURRENT_LIST_DIR}/status_shapes_test.cpp
  LIBS br_actors_operator LABELS unit)
