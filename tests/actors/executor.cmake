# The failover executor (actors/operator/failover_executor.*) in virtual time against a simulated fleet.
br_test(actors_executor
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/executor_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/executor_semisync_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/recording_platform.cpp
  LIBS br_actors_operator LABELS actors)
