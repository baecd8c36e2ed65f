# The failover executor's pure plan bookkeeping (actors/operator/plan_steps.*): table tests.
br_test(unit_plan_steps SOURCES ${CMAKE_CURRENT_LIST_DIR}/plan_steps_test.cpp
  LIBS br_actors_operator LABELS unit)
