# Storage (issue 21): settings from <P>_* variables, the PVC object store, key validation, the S3
# client's pure parts (unit).
br_test(unit_storage
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/storage_config_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/pvc_store_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/s3_request_test.cpp
  LIBS br_io_storage LABELS "unit;backup")
