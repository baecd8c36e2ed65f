# Standalone route file following manual fences (issue 20; actors/operator/local/route_book.hpp).
br_test(unit_route_book SOURCES ${CMAKE_CURRENT_LIST_DIR}/route_book_test.cpp
  LIBS br_operator_local LABELS "unit;planned")
