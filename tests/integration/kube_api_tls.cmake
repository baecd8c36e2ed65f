# The operator and sidecar APIs over mutual TLS in Kubernetes mode on the API simulator (issue 26):
# the API CA and the sites' Secrets issued by the group TLS controller under the chart's RBAC,
# verified with OpenSSL and renewed when due; the real bloodraven binary with --api-tls-ca-secret
# serving its API over mutual TLS from the certificate it issued itself. No MySQL, no pod.
br_test(integration_kube_api_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/kube_api_tls_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
  LIBS br_ts_kube_harness br_actors_operator br_kube_sim br_io_crypto yaml-cpp
  DEPENDS bloodraven
  LABELS "integration;kube;tls" TIMEOUT 300)
