# Sidecar: pure fencing rules, view JSON, configuration (unit).
br_test(unit_sidecar
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/fencing_rules_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/view_json_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/sidecar_config_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/push_rule_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/tls_reload_rule_test.cpp
  LIBS br_actors_sidecar br_config LABELS unit)
