# MySQL over verified TLS on real MySQL 9.7 (issue 26): plain clients refused, CA and host name
# verified, replication with SOURCE_SSL_VERIFY_SERVER_CERT, ALTER INSTANCE RELOAD TLS after a
# rotation, issued by the sidecar's tls_watcher when the files change. Sandbox instances 310 and 311.
br_test(integration_mysql_tls
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/mysql_tls_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql br_actors_sidecar LABELS "integration;mysql;tls" RUN_SERIAL TIMEOUT 300)
