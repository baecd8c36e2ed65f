br_test(unit_broken_specs SOURCES ${CMAKE_CURRENT_LIST_DIR}/broken_specs_test.cpp LIBS br_config LABELS unit)
