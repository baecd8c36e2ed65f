# spec.tls in the backup engine (issue 26): the tools' --ssl-mode=VERIFY_IDENTITY/--ssl-ca, the
# CA staged in the private directory (refusals), the sessions' verify_identity, the scratch
# server's TLS arguments. The real tools against real servers: integration_backup_tls.
br_test(unit_backup_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/backup_tls_test.cpp
  LIBS br_io_backup
  LABELS "unit;backup;tls")
