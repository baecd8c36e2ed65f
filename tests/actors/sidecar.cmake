br_test(actors_sidecar SOURCES ${CMAKE_CURRENT_LIST_DIR}/sidecar_monitor_test.cpp
  LIBS br_actors_sidecar LABELS actors)
