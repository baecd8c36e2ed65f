# Kubernetes mode's leadership generation (S8): lease loss raises site_io's floor (API simulator,
# no MySQL: the group's sites are on a closed port).
br_test(integration_kube_leadership_floor
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_leadership_floor_test.cpp
  LIBS br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube" TIMEOUT 300)
