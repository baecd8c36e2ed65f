# The executor's bootstrap and auto_clone plans in virtual time (restart mid-plan: no second
# promotion, no second CLONE).
br_test(actors_executor_bootstrap
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/executor_bootstrap_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/recording_platform.cpp
  LIBS br_operator_group LABELS actors bootstrap)
