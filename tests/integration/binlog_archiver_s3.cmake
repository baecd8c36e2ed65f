# Not in the default run (~61 s plus the radosgw install): label s3, tools/test-layer.sh s3.
# Binlog archive on S3 (issue 21 acceptance 3): real MySQL 9.7 (sandbox instances 151, 152), a real
# S3 server (radosgw, tests/support/s3_server.*), a failover through the sandbox, the retention
# sweep against a stand-in for the operator's /pitr-cutoff.
br_test(integration_binlog_archiver_s3
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/binlog_archiver_s3_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/s3_server.cpp
  LIBS br_actors_sidecar br_io_binlog br_io_storage br_io_http nlohmann_json::nlohmann_json
  LABELS "integration;mysql;backup;s3" RUN_SERIAL TIMEOUT 900)
if(TARGET integration_binlog_archiver_s3)
  set_tests_properties(integration_binlog_archiver_s3 PROPERTIES DISABLED TRUE)
endif()
