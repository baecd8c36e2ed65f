br_test(actors_supervision SOURCES ${CMAKE_CURRENT_LIST_DIR}/supervisor_test.cpp
  LIBS br_actors_common LABELS actors)
