# The bounded fence and the switch event against lock holders on real MySQL 9.7 (sandbox
# instance 61 only).
br_test(integration_fence_bounded
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/fence_bounded_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/mysql_sandbox.cpp
  LIBS br_io_mysql br_sidecar_fencing LABELS "integration;mysql" RUN_SERIAL TIMEOUT 600)
