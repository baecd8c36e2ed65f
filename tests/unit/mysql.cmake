# io/mysql pure parts (classifier, quoting, session filter, dialect text, probe-row parsing).
br_test(unit_mysql_errors
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/mysql_error_classify_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/mysql_adapter_pure_test.cpp
  LIBS br_io_mysql LABELS unit)
