# Pure pieces of the Kubernetes reconciler and platform actors, and OrderedUpdate's decision.
br_test(unit_kube_reconcile
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_platform_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/ordered_update_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/gr_ordered_update_test.cpp
  LIBS br_actors_operator LABELS unit)
