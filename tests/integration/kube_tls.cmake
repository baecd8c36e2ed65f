# spec.tls in Kubernetes mode on the API simulator (issue 26): the group TLS controller under the
# chart's RBAC; cert-manager simulated by the test (a Certificate CRD, the issued Secret written by
# the test); the generated CA without it; the real bloodraven binary starting the controller once it
# leads. No MySQL, no pod; a few seconds.
br_test(integration_kube_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_tls_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim br_io_crypto yaml-cpp
  DEPENDS bloodraven
  LABELS "integration;kube;tls" TIMEOUT 300)
