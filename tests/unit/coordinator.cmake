# The coordinator's pure helpers (actors/operator/coordinator_decide, durable_state_json).
br_test(unit_coordinator_decide
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/coordinator_decide_test.cpp
  LIBS br_actors_operator
  LABELS unit)
