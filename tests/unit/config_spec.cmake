# MysqlFailoverGroup spec/status types: parsing (YAML, JSON), defaults, validation, durations.
br_test(unit_config_spec
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/config_spec_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/config_spec_validate_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/config_spec_pods_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/config_spec_status_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/config_replication_mode_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/config_tls_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/duration_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/duration_limits_test.cpp
  LIBS br_config
  LABELS unit)
