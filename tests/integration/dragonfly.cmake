# Dragonfly follow-along (issue 24) on real Valkey 9 servers from the sandbox chroot (the
# Dragonfly stand-in; needs root for the chroot). About 10 s.
br_test(integration_redis_client
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/redis_client_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/child_process.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/valkey_server.cpp
  LIBS br_io_redis
  LABELS "integration;process;dragonfly;valkey" TIMEOUT 300)
# tools/playground up --dragonfly end to end (acceptance 1, 3, 4 of issue 24 in standalone mode);
# sandbox instances 26-27, real Valkey, HAProxy. About 60 s.
add_test(NAME integration_playground_dragonfly COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/playground_dragonfly_test.sh)
set_tests_properties(integration_playground_dragonfly PROPERTIES LABELS "integration;process;mysql;dragonfly;valkey"
  RUN_SERIAL TRUE TIMEOUT 900 ENVIRONMENT "${BR_TEST_ENV}")
# The manager's REPLTAKEOVER branch against tests/support/dragonfly_sim (a SIMULATION of
# Dragonfly's takeover; Valkey has none): the real manager actor and RESP client. About 10 s.
br_test(integration_dragonfly_takeover
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/dragonfly_takeover_test.cpp
          ${PROJECT_SOURCE_DIR}/tests/support/dragonfly_sim.cpp
  LIBS br_operator_dragonfly br_actors_common
  LABELS "integration;dragonfly" TIMEOUT 300)
# A planned failover with Dragonfly (acceptance 2 of issue 24 in standalone mode): the cache replica
# catches up before the fence and the master moves after MySQL, no acked cache write lost; with the
# target's cache stopped, onSyncTimeout=fail rolls back with MySQL untouched. Sandbox instances 252-253,
# real Valkey, HAProxy. About 60 s.
add_test(NAME integration_playground_dragonfly_planned COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/playground_dragonfly_planned_test.sh)
set_tests_properties(integration_playground_dragonfly_planned PROPERTIES LABELS "integration;process;mysql;dragonfly;valkey;planned"
  RUN_SERIAL TRUE TIMEOUT 900 ENVIRONMENT "${BR_TEST_ENV}")
