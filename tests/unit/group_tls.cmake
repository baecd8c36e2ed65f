# A group's TLS certificate in Kubernetes mode (issue 26): the pure decisions of
# actors/operator/kube/core/group_tls_plan (source, names, Certificate, Secret copy, generated-CA
# issue and renewal, clean-up) as table tests, some on real certificates.
br_test(unit_group_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/group_tls_test.cpp
  LIBS br_actors_operator
  LABELS "unit;tls")
