# Dragonfly follow-along (issue 24) on real Valkey 9 servers from the sandbox chroot (the
# Dragonfly stand-in; needs root for the chroot). About 10 s.
br_test(integration_redis_client
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/redis_client_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/valkey_server.cpp
  LIBS br_io_redis
  LABELS "integration;process;dragonfly;valkey" TIMEOUT 300)
