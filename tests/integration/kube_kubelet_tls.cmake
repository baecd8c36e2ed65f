# spec.tls on the process kubelet (issue 26, acceptance 2): a renewed TLS Secret reaches the
# running pod's files (the kubelet's in-place volume update) and mysqld re-reads them on the
# sidecar's word (ALTER INSTANCE RELOAD TLS), without a container restart. Root, one pod; not in
# the default run (label kubelet): tools/kubelet-tests.sh integration_kube_kubelet_tls
br_test(integration_kube_kubelet_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_kubelet_tls_test.cpp
  LIBS br_ts_kube_harness br_process_kubelet br_actors_operator br_kube_sim br_io_mysql br_io_crypto yaml-cpp
  LABELS "integration;kube;mysql;process;kubelet;tls" RUN_SERIAL DEPENDS bloodraven-sidecar TIMEOUT 900)
if(TARGET integration_kube_kubelet_tls)
  set_tests_properties(integration_kube_kubelet_tls PROPERTIES DISABLED TRUE)
endif()
# spec.tls end to end in Kubernetes mode: the operator (group source + group TLS controller, the
# generated CA) bootstraps two sites on the process kubelet with every MySQL session and the
# replication channel verified. Root, about 1-2 min; not in the default run (label kubelet):
# tools/kubelet-tests.sh integration_kube_kubelet_tls_e2e
br_test(integration_kube_kubelet_tls_e2e
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_kubelet_tls_e2e_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_process_kubelet br_actors_operator br_kube_sim br_io_mysql yaml-cpp
  LABELS "integration;kube;mysql;process;kubelet;tls" RUN_SERIAL DEPENDS bloodraven-sidecar TIMEOUT 1500)
if(TARGET integration_kube_kubelet_tls_e2e)
  set_tests_properties(integration_kube_kubelet_tls_e2e PROPERTIES DISABLED TRUE)
endif()
