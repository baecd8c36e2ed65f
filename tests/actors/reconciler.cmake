# The Kubernetes reconciler's front in virtual time (scripted worker, mock coordinator and platform).
br_test(actors_reconciler
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/reconciler_test.cpp
  LIBS br_actors_operator
  LABELS actors)
