# How a group comes into being (actors/operator/decide/bootstrap*.hpp): table tests.
br_test(unit_bootstrap
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/bootstrap_test.cpp
  LIBS br_operator_decide
  LABELS unit bootstrap)
