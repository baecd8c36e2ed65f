# Operator actors (coordinator, pollers, group supervisor, local platform) in virtual time.
br_test(actors_operator
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/operator_failover_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/operator_topology_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/operator_local_platform_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/operator_restore_freeze_test.cpp
    ${CMAKE_CURRENT_LIST_DIR}/operator_dragonfly_planned_test.cpp
    ${PROJECT_SOURCE_DIR}/tests/support/recording_platform.cpp
  LIBS br_actors_operator
  LABELS actors)
# The real site_io pool against a closed loopback port (no MySQL needed).
br_test(integration_site_io
  SOURCES ${PROJECT_SOURCE_DIR}/tests/integration/site_io_refused_test.cpp
  LIBS br_actors_operator
  LABELS integration)
