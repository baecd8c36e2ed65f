# The copy of a group's generated operator Secret in the operator's namespace (pure parts).
br_test(unit_credential_copy
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/credential_copy_test.cpp
  LIBS br_actors_operator
  LABELS unit bootstrap)
