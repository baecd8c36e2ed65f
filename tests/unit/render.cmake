# Pure rendering of a group's Kubernetes objects (config/render): names, labels, my.cnf, rollouts.
br_test(unit_render
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/render_objects_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/render_my_cnf_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/render_workload_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/render_traffic_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/render_rollout_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/render_pods_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/render_init_datadir_test.cpp
          ${CMAKE_CURRENT_LIST_DIR}/render_accounts_test.cpp
  LIBS br_config_render
  LABELS unit)
