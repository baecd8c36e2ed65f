# tools/kubectl-bloodraven (bash + kubectl + jq) against the API simulator with the chart's CRD.
br_test(integration_kubectl_plugin
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kubectl_plugin_test.cpp ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_kube_sim br_io_kube yaml-cpp
  LABELS "integration;kube;process" TIMEOUT 300)
