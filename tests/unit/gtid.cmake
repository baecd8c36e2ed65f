# GTID set algebra: table tests from real server strings plus randomized law/model tests.
br_test(unit_gtid_set
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gtid_set_test.cpp ${CMAKE_CURRENT_LIST_DIR}/gtid_set_laws_test.cpp
  LIBS br_messages
  LABELS unit)
