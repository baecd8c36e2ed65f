# Not in the default run (the first run installs radosgw into the chroot, then ~40 s): label s3,
# run with tools/test-layer.sh s3.
# S3 object store against a real S3 server (Ceph radosgw, standalone dbstore, from the sandbox
# chroot; tests/support/s3_server.*), instance 151. The first run installs radosgw into the chroot.
br_test(integration_s3_store
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/s3_store_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/s3_server.cpp
  LIBS br_io_storage br_io_http OpenSSL::Crypto
  LABELS "integration;backup;s3" RUN_SERIAL TIMEOUT 900)
if(TARGET integration_s3_store)
  set_tests_properties(integration_s3_store PROPERTIES DISABLED TRUE)
endif()
