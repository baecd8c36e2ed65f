# The operator and sidecar APIs over mutual TLS in Kubernetes mode (issue 26): the pure decisions
# of actors/operator/kube/core/api_tls_plan (names, the site's Secret, issue/renew/keep on real
# certificates, the operator's settings) and the pod render (config/render/api_tls_pod).
br_test(unit_api_tls_plan
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/api_tls_plan_test.cpp
  LIBS br_actors_operator
  LABELS "unit;tls")
