# When the deposed primary's sessions are killed (actors/operator/decide/session_drain.hpp).
br_test(unit_session_drain SOURCES ${CMAKE_CURRENT_LIST_DIR}/session_drain_test.cpp
  LIBS br_operator_decide LABELS "unit;planned")
