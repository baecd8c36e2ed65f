# The operator and sidecar APIs over mutual TLS on the process kubelet (issue 26): the operator
# (group source, its API, the group TLS controller with the API CA) bootstraps two sites whose
# sidecars serve and call with their site's API Secret; forged identities refused; a renewed
# Secret reaches the running sidecar without a restart. Root; not in the default run (label
# kubelet): tools/kubelet-tests.sh integration_kube_kubelet_api_tls
br_test(integration_kube_kubelet_api_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_kubelet_api_tls_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_process_kubelet br_actors_operator br_kube_sim br_io_mysql br_io_crypto yaml-cpp
  LABELS "integration;kube;mysql;process;kubelet;tls" RUN_SERIAL DEPENDS bloodraven-sidecar TIMEOUT 1500)
if(TARGET integration_kube_kubelet_api_tls)
  set_tests_properties(integration_kube_kubelet_api_tls PROPERTIES DISABLED TRUE)
endif()
