# Node taints against the API simulator: only nodes labelled for the site are ever tainted.
br_test(integration_kube_taints
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_taints_test.cpp
  LIBS br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube" TIMEOUT 120)
