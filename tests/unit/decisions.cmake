# The operator's pure decision functions (actors/operator/*): table tests, no actors, no IO.
br_test(unit_decisions
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/debounce_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/evaluate_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/rank_candidates_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/split_brain_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cooldown_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/recovery_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/reclone_token_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/primary_reassert_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/promotion_gate_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/semisync_gate_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/semisync_in_step_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/semisync_waiting_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/receiver_restart_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/decisions_inspect_test.cpp
  LIBS br_actors_operator
  LABELS unit)
