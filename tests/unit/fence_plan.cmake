# Pure rules of the bounded fence (attempt lock waits, the step after an attempt, blocker SQL).
br_test(unit_fence_plan
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/fence_plan_test.cpp
  LIBS br_io_mysql LABELS unit)
