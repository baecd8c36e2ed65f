# spec.tls in the backup, restore and verify Jobs (issue 26): the TLS Secret mounted read-only and
# --tls-ca (verify: --tls-cert/--tls-key for its scratch server) passed; without spec.tls neither.
br_test(unit_render_tls_jobs
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/render_tls_jobs_test.cpp
  LIBS br_actors_operator
  LABELS "unit;tls;backup;kube")
