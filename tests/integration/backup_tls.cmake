# Backup, restore and verify over verified TLS on real MySQL 9.7 (issue 26): `bloodraven backup
# run --tls-ca`, `restore --standalone` (spec.tls.caFile), `backup verify --tls-*` (the scratch
# server over TLS); a server whose certificate names another host refused by the jobs and by the
# tools themselves. Sandbox instances 350-352 (TLS required), reset at the start, stopped and
# their TLS options removed after. Needs root (the sandbox chroot). Labels backup;tls, DISABLED in
# plain ctest like integration_backup (about 80 s, most of it the three servers' reset); run:
#   tools/test-layer.sh tls   or   build/tests/integration_backup_tls
br_test(integration_backup_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backup_tls_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql br_io_backup br_sidecar_archive
  LABELS "integration;mysql;process;backup;tls" RUN_SERIAL DEPENDS bloodraven TIMEOUT 600)
if(TARGET integration_backup_tls)
  set_tests_properties(integration_backup_tls PROPERTIES DISABLED TRUE)
endif()
# The same flags without MySQL (the real binary, about 1 s; in the default run): where the CA comes
# from (--tls-ca, the --standalone group file's spec.tls.caFile, none) and the refusals.
br_test(integration_backup_tls_flags
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backup_tls_flags_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql
  LABELS "integration;process;backup;tls" DEPENDS bloodraven TIMEOUT 120)
