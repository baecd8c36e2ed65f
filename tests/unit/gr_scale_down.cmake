# The Group Replication scale-down (decide/gr_scale_down.hpp, issue 23): which leaving member is
# stopped next, the switchover before the PRIMARY, the majority of the smaller group, the waits.
br_test(unit_gr_scale_down
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/gr_scale_down_test.cpp
  LIBS br_operator_decide
  LABELS "unit;gr")
