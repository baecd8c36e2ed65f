# Pure rendering of the standalone router's haproxy.cfg (config/render/haproxy_cfg).
br_test(unit_haproxy_cfg
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/haproxy_cfg_test.cpp
  LIBS br_config_render
  LABELS unit)
