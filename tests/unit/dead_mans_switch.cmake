# Pure parts of the in-database dead man's switch (arming rule, parsing, SQL text).
br_test(unit_dead_mans_switch
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dead_mans_switch_sql_test.cpp
  LIBS br_io_mysql LABELS unit)
