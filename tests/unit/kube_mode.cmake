# Pure pieces of Kubernetes mode (credentials, status merge, anti-flap annotations, rehydration).
br_test(unit_kube_mode
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_mode_units_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/group_lifecycle_test.cpp
  LIBS br_actors_operator LABELS unit)
