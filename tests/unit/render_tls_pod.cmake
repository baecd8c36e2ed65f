# spec.tls in the pods (issue 26): the TLS Secret volume and its mounts (config/render/tls_pod).
br_test(unit_render_tls_pod
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/render_tls_pod_test.cpp
  LIBS br_config_render
  LABELS "unit;tls")
