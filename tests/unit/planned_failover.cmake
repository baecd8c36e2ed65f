# Planned failover (issue 20): annotation parsing, validation (every refusal reason) and the
# phase record, as table tests (actors/operator/decide/planned_failover.hpp).
br_test(unit_planned_failover SOURCES ${CMAKE_CURRENT_LIST_DIR}/planned_failover_test.cpp
  LIBS br_operator_decide LABELS "unit;planned")
# step() rows: the request, the record through the plan, its Events and metrics.
br_test(unit_group_step_planned SOURCES ${CMAKE_CURRENT_LIST_DIR}/group_step_planned_test.cpp
  LIBS br_operator_decide LABELS "unit;planned")
# The idempotent hand-off of admin annotations (issue 19 finding 13; issue 20: the planned-failover
# annotation stays until the request ends).
br_test(unit_admin_handoff SOURCES ${CMAKE_CURRENT_LIST_DIR}/admin_handoff_test.cpp
  LIBS br_operator_decide LABELS "unit;planned")
# Issue 24: the planned failover's Dragonfly phases (decide/planned_dragonfly.hpp) as tables.
br_test(unit_planned_dragonfly SOURCES ${CMAKE_CURRENT_LIST_DIR}/planned_dragonfly_test.cpp
  LIBS br_operator_decide LABELS "unit;planned;dragonfly")
