# Kubernetes mode against the API simulator: group source, status writer, state store.
br_test(integration_kube_mode
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_mode_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/recording_platform.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_actors_operator br_kube_sim yaml-cpp
  LABELS "integration;kube;process" TIMEOUT 300)
br_test(integration_kube_mode_process
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_mode_process_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_kube_sim br_io_kube br_io_http yaml-cpp
  LABELS "integration;kube;process" DEPENDS bloodraven TIMEOUT 300)
